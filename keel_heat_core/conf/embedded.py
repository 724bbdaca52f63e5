"""Options of the ``[embedded]`` group, used by ``keel-heat-all``."""

from oslo_config import cfg

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
