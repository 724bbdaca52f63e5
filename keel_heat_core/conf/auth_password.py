"""Options of the ``[auth_password]`` group (multi-cloud access)."""

from oslo_config import cfg

auth_password_opts: list[cfg.Opt] = [
    cfg.BoolOpt(
        "multi_cloud",
        default=False,
        help="Let requests name the Keystone they authenticate against.",
    ),
    cfg.ListOpt(
        "allowed_auth_uris",
        default=[],
        help="Keystone endpoints a request may name when multi_cloud "
        "is on; at least one is needed.",
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[auth_password]`` options.

    :returns: one ``(group name, options)`` pair
    """
    return [("auth_password", auth_password_opts)]
