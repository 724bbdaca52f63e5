"""Options of the ``[embedded]`` group, used by ``keel-heat-all``."""

import ipaddress
import os
import pathlib
import secrets

from oslo_config import cfg

from keel_heat_core.conf import default

#: Environment variable that names the state directory.
STATE_DIR_ENV = "KEEL_HEAT_STATE_DIR"

embedded_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "state_dir",
        help="keel-heat only. Directory for the SQLite database and the "
        "generated encryption key of the embedded mode. Defaults to "
        f"${STATE_DIR_ENV}, else ./state.",
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[embedded]`` options.

    :returns: one ``(group name, options)`` pair
    """
    return [("embedded", embedded_opts)]


#: Name of the file, in the state directory, holding the generated key.
KEY_FILE = "auth_encryption_key"

#: Name of the SQLite database in the state directory.
DATABASE_FILE = "keel-heat.sqlite"

LOOPBACK = "127.0.0.1"


def state_dir(conf: cfg.ConfigOpts) -> pathlib.Path:
    """Return the state directory: the option, ``$KEEL_HEAT_STATE_DIR``,
    else ``./state``, made absolute and created if needed."""
    path = pathlib.Path(
        conf.embedded.state_dir or os.environ.get(STATE_DIR_ENV) or "state"
    ).absolute()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _stored_key(directory: pathlib.Path) -> str:
    path = directory / KEY_FILE
    if not path.exists():
        key = secrets.token_urlsafe(24)  # 32 characters
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(key)
    return path.read_text(encoding="ascii").strip()


def apply_defaults(conf: cfg.ConfigOpts) -> pathlib.Path:
    """Make the embedded mode the default of ``conf`` (keel-heat-all).

    Only defaults change: whatever a configuration file or the command
    line sets still wins. Without configuration the result is SQLite in
    the state directory, the in-process ``inproc://`` transport, the noauth
    mode bound to 127.0.0.1, and an encryption key generated once and kept
    in the state directory.

    :param conf: a parsed configuration with the options registered
    :returns: the state directory
    """
    directory = state_dir(conf)
    conf.set_default(
        "connection", f"sqlite:///{directory / DATABASE_FILE}", "database"
    )
    conf.set_default("transport_url", "inproc://")
    if "api" in conf and "auth_strategy" in conf.api:
        # The API distribution's option: registered when it is installed.
        conf.set_default("auth_strategy", "noauth", "api")
    for group in ("heat_api", "heat_api_cfn"):
        conf.set_default("bind_host", LOOPBACK, group)
    if conf.auth_encryption_key == default.DEFAULT_AUTH_ENCRYPTION_KEY:
        conf.set_default("auth_encryption_key", _stored_key(directory))
    return directory


def is_loopback(host: str) -> bool:
    """Say whether ``host`` is a loopback address or ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
