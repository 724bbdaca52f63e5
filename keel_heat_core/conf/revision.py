"""Options of the ``[revision]`` group (``build_info``)."""

from oslo_config import cfg

revision_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "heat_revision",
        default="unknown",
        help="Build revision reported by build_info.",
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[revision]`` options.

    :returns: one ``(group name, options)`` pair
    """
    return [("revision", revision_opts)]
