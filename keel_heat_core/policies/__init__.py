"""oslo.policy rules in code: Heat 27's 100 defaults.

``list_rules`` is the ``oslo.policy.policies`` entry point of the core
distribution; packs register their own ``resource_types:<Type>`` rules
under the same entry-point group.
"""

import itertools

from oslo_policy import policy

from keel_heat_core.policies import (
    base,
    cloudformation,
    resource_types,
    resources,
    software,
    stacks,
)


def list_rules() -> list[policy.RuleDefault]:
    """Return every default rule of the core distribution."""
    return list(
        itertools.chain(
            base.list_rules(),
            stacks.list_rules(),
            resources.list_rules(),
            software.list_rules(),
            cloudformation.list_rules(),
            resource_types.list_rules(),
        )
    )
