"""Options of the ``[yaql]`` group: limits of the HOT ``yaql`` function."""

from oslo_config import cfg

yaql_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "limit_iterators",
        default=200,
        min=1,
        help="Most elements one yaql expression may iterate over or produce.",
    ),
    cfg.IntOpt(
        "memory_quota",
        default=10000,
        min=1,
        help="Most memory, in bytes, the result of one yaql expression "
        "may take.",
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[yaql]`` options.

    :returns: one ``(group name, options)`` pair
    """
    return [("yaql", yaql_opts)]
