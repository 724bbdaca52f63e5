"""``OS::Heat::HARestarter``: a removed type kept as a placeholder."""

from __future__ import annotations

from keel_heat_core import plugin_api as api
from keel_heat_pack_heat.none_resource import NoneResource


class Restarter(NoneResource):
    """What remains of the HARestarter: a resource that does nothing.

    The type was removed from Heat (it deleted and re-created servers and
    everything depending on them); stacks and templates that still hold
    one keep working, the resource being a placeholder. Mark a resource
    unhealthy and update the stack to have it replaced instead.
    Hidden: not listed, and its schema is not shown.
    """

    support_status = api.SupportStatus(
        status=api.support.HIDDEN,
        version="10.0.0",
        message=(
            "The HARestarter resource type has been removed. Existing "
            "stacks containing HARestarter resources can still be used, "
            "but the HARestarter resource will be a placeholder that does "
            "nothing."
        ),
        previous_status=api.SupportStatus(
            status=api.support.DEPRECATED,
            message=(
                "The HARestarter resource type is deprecated and will be "
                "removed in a future release of Heat, once it has support "
                "for auto-healing any type of resource. Note that "
                "HARestarter does *not* actually restart servers - it "
                "deletes and then recreates them. It also does the same to "
                "all dependent resources, and may therefore exhibit "
                "unexpected and undesirable behaviour. Instead, use the "
                "mark-unhealthy API to mark a resource as needing "
                "replacement, and then a stack update to perform the "
                "replacement while respecting  the dependencies and not "
                "deleting them unnecessarily."
            ),
            version="2015.1",
        ),
    )
