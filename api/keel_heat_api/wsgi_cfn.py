"""WSGI entry point of the CFN API: ``keel_heat_api.wsgi_cfn:application``.

The configuration is read as for the native API
(:mod:`keel_heat_api.wsgi`): ``/etc/keel-heat/keel-heat.conf`` or the
files named by ``KEEL_HEAT_CONFIG_FILES``, never the server's command
line.
"""

from __future__ import annotations

from oslo_config import cfg
from oslo_log import log as logging

from keel_heat_api import cfn
from keel_heat_api.fault import WSGIApp
from keel_heat_api.wsgi_config import config_files
from keel_heat_core import heap, profiling

PROG = "keel-heat-api-cfn"


def init_application() -> WSGIApp:
    """Read the configuration and return the CFN API application."""
    conf = cfg.ConfigOpts()
    logging.register_options(conf)
    cfn.register_opts(conf)
    conf(
        args=[],
        project="keel-heat",
        prog=PROG,
        default_config_files=config_files(),
    )
    logging.setup(conf, PROG)
    profiling.setup(conf, "api-cfn")
    return cfn.setup_app(conf)


application = init_application()
# the application and everything it loaded live as long as the worker
heap.freeze_startup_objects()
