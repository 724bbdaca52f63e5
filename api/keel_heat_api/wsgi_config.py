"""Where the WSGI entry points read their configuration from.

``/etc/keel-heat/keel-heat.conf``, or the files named by
``KEEL_HEAT_CONFIG_FILES`` (comma-separated); never from the server's
command line: gunicorn's and uwsgi's arguments are theirs. Shared by
:mod:`keel_heat_api.wsgi` and :mod:`keel_heat_api.wsgi_cfn`.
"""

from __future__ import annotations

import os

DEFAULT_CONFIG = "/etc/keel-heat/keel-heat.conf"


def config_files() -> list[str]:
    """Return the configuration files to read, in order."""
    env = os.environ.get("KEEL_HEAT_CONFIG_FILES")
    if env:
        return [path for path in env.split(",") if path]
    return [DEFAULT_CONFIG] if os.path.exists(DEFAULT_CONFIG) else []
