"""Options of the ``[plugins]`` group: which installed plugins are used."""

from oslo_config import cfg

plugins_opts: list[cfg.Opt] = [
    cfg.ListOpt(
        "disabled_packs",
        default=[],
        help="Distributions (e.g. keel-heat-pack-nova) whose plugins are "
        "ignored although installed.",
    ),
    cfg.ListOpt(
        "disabled_types",
        default=[],
        help="Resource types left out of the registry, by name. A "
        "trailing * matches a prefix (OS::Sahara::*).",
    ),
    cfg.ListOpt(
        "required_packs",
        default=[],
        help="Distributions that must be installed, enabled and load "
        "without error; start-up fails otherwise.",
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[plugins]`` options.

    :returns: one ``(group name, options)`` pair
    """
    return [("plugins", plugins_opts)]
