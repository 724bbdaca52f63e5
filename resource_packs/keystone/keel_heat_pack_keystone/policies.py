"""Admin-only policy rules of the Keystone types.

Heat 27 guards every ``OS::Keystone::*`` type with the core's wildcard
rule ``resource_types:OS::Keystone::*`` (``rule:project_admin``). The pack
adds one rule per type, with the same default, so that an operator can
open a single type (for example ``OS::Keystone::UserRoleAssignment``) to
other roles in ``policy.yaml`` without editing the wildcard. The engine
checks the type's rule and then the wildcard.
"""

from oslo_policy import policy

#: Heat's check for admin-only types (defined by the core's base rules).
PROJECT_ADMIN = "rule:project_admin"

#: The types of this pack, in Heat's order of listing.
TYPES = (
    "OS::Keystone::Domain",
    "OS::Keystone::Endpoint",
    "OS::Keystone::Group",
    "OS::Keystone::GroupRoleAssignment",
    "OS::Keystone::Project",
    "OS::Keystone::Region",
    "OS::Keystone::Role",
    "OS::Keystone::Service",
    "OS::Keystone::User",
    "OS::Keystone::UserRoleAssignment",
)


def list_rules() -> list[policy.RuleDefault]:
    """The ``resource_types:<Type>`` rule of each Keystone type."""
    return [
        policy.RuleDefault(
            name="resource_types:" + type_name,
            check_str=PROJECT_ADMIN,
            description=f"Use the {type_name} resource type.",
            scope_types=["project"],
        )
        for type_name in TYPES
    ]
