"""Base rules and the check strings the other policy modules share."""

from oslo_policy import policy

RULE_CONTEXT_IS_ADMIN = "rule:context_is_admin"
RULE_PROJECT_ADMIN = "rule:project_admin"
RULE_DENY_STACK_USER = "rule:deny_stack_user"
RULE_DENY_EVERYBODY = "rule:deny_everybody"
RULE_ALLOW_EVERYBODY = "rule:allow_everybody"

PROJECT_READER = "role:reader and project_id:%(project_id)s"
PROJECT_MEMBER = "role:member and project_id:%(project_id)s"
PROJECT_ADMIN = "role:admin and project_id:%(project_id)s"
PROJECT_STACK_USER = "role:heat_stack_user and project_id:%(project_id)s"
PROJECT_READER_OR_STACK_USER = f"({PROJECT_READER}) or ({PROJECT_STACK_USER})"

#: The prefix of every URL of the native API.
V1 = "/v1/{tenant_id}"
#: The URL of one stack, once its name and id are known.
STACK = V1 + "/stacks/{stack_name}/{stack_id}"

_DEPRECATED_REASON = (
    "The default now distinguishes the reader, member and admin personas "
    "of a project instead of denying only the heat_stack_user role."
)


def api_rule(
    name: str,
    check_str: str,
    description: str,
    operations: list[tuple[str, str]],
    deprecated_check: str | None = RULE_DENY_STACK_USER,
    scope_types: list[str] | None = None,
) -> policy.DocumentedRuleDefault:
    """Build a documented rule guarding one or more API operations.

    :param name: the rule name, for example ``stacks:create``.
    :param check_str: the default check string.
    :param description: what the rule guards.
    :param operations: ``(method, path)`` pairs the rule applies to.
    :param deprecated_check: the pre-persona default, or ``None``.
    :param scope_types: token scopes accepted; ``["project"]`` by default.
    """
    deprecated = None
    if deprecated_check is not None:
        deprecated = policy.DeprecatedRule(
            name=name,
            check_str=deprecated_check,
            deprecated_reason=_DEPRECATED_REASON,
            deprecated_since="W",
        )
    return policy.DocumentedRuleDefault(
        name=name,
        check_str=check_str,
        description=description,
        operations=[{"method": m, "path": p} for m, p in operations],
        scope_types=["project"] if scope_types is None else scope_types,
        deprecated_rule=deprecated,
    )


def list_rules() -> list[policy.RuleDefault]:
    """Return the generic rules other rules refer to."""
    return [
        policy.RuleDefault(
            name="context_is_admin",
            check_str="(role:admin and is_admin_project:True)",
            description="What a request needs to count as an admin one.",
        ),
        policy.RuleDefault(
            name="project_admin",
            check_str="role:admin",
            description="An admin of the project.",
        ),
        policy.RuleDefault(
            name="deny_stack_user",
            check_str="not role:heat_stack_user",
            description="Anyone but a stack's in-instance user.",
        ),
        policy.RuleDefault(
            name="deny_everybody",
            check_str="!",
            description="Nobody.",
        ),
        policy.RuleDefault(
            name="allow_everybody",
            check_str="",
            description="Everybody.",
        ),
    ]
