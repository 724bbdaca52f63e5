"""WSGI entry point for uwsgi and gunicorn: ``keel_heat_api.wsgi:application``.

The configuration is read from ``/etc/keel-heat/keel-heat.conf`` (or the
files named by ``KEEL_HEAT_CONFIG_FILES``, comma-separated), never from
the server's command line: gunicorn's and uwsgi's arguments are theirs.
"""

from __future__ import annotations

from oslo_config import cfg
from oslo_log import log as logging

from keel_heat_api import app as api_app
from keel_heat_api.fault import WSGIApp
from keel_heat_api.wsgi_config import DEFAULT_CONFIG, config_files
from keel_heat_core import heap, profiling

__all__ = ["DEFAULT_CONFIG", "application", "init_application"]


def init_application() -> WSGIApp:
    """Read the configuration and return the API application."""
    conf = cfg.ConfigOpts()
    logging.register_options(conf)
    from keel_heat_api import opts

    opts.register_opts(conf)
    conf(
        args=[],
        project="keel-heat",
        prog="keel-heat-api",
        default_config_files=config_files(),
    )
    logging.setup(conf, "keel-heat-api")
    profiling.setup(conf, "api")
    return api_app.setup_app(conf)


application = init_application()
# the application and everything it loaded live as long as the worker
heap.freeze_startup_objects()
