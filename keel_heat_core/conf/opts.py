"""Entry point of ``oslo-config-generator`` for the core's own options.

The libraries' options (oslo.log, oslo.messaging, oslo.db…) come from
their own namespaces, listed in ``etc/oslo-config-generator/``.
"""

import itertools

from oslo_config import cfg

from keel_heat_core.conf import core_opts, identity, trustee


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the core options grouped for the sample configuration.

    :returns: ``(group name, options)`` pairs, one per group
    """
    pairs = core_opts() + trustee.list_opts() + identity.list_opts()
    merged: dict[str, list[cfg.Opt]] = {}
    for group, opts in pairs:
        merged.setdefault(group, []).extend(opts)
    return [(g, list(o)) for g, o in itertools.chain(merged.items())]
