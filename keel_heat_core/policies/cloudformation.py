"""Rules of the CFN-compatible query API (``cloudformation:*``)."""

from oslo_policy import policy

from keel_heat_core.policies import base

_READ = base.PROJECT_READER
_WRITE = base.PROJECT_MEMBER

# (action, check string, deprecated check string)
_ACTIONS: list[tuple[str, str, str]] = [
    ("ListStacks", _READ, base.RULE_DENY_STACK_USER),
    ("CreateStack", _WRITE, base.RULE_DENY_STACK_USER),
    ("DescribeStacks", _READ, base.RULE_DENY_STACK_USER),
    ("DeleteStack", _WRITE, base.RULE_DENY_STACK_USER),
    ("UpdateStack", _WRITE, base.RULE_DENY_STACK_USER),
    ("CancelUpdateStack", _WRITE, base.RULE_DENY_STACK_USER),
    ("DescribeStackEvents", _READ, base.RULE_DENY_STACK_USER),
    ("ValidateTemplate", _READ, base.RULE_DENY_STACK_USER),
    ("GetTemplate", _READ, base.RULE_DENY_STACK_USER),
    ("EstimateTemplateCost", _READ, base.RULE_DENY_STACK_USER),
    (
        "DescribeStackResource",
        base.PROJECT_READER_OR_STACK_USER,
        base.RULE_ALLOW_EVERYBODY,
    ),
    ("DescribeStackResources", _READ, base.RULE_DENY_STACK_USER),
    ("ListStackResources", _READ, base.RULE_DENY_STACK_USER),
]


def list_rules() -> list[policy.RuleDefault]:
    """Return the 13 ``cloudformation:*`` rules."""
    rules: list[policy.RuleDefault] = []
    for action, check, deprecated in _ACTIONS:
        rules.append(
            policy.RuleDefault(
                name="cloudformation:" + action,
                check_str=check,
                description=f"The CFN {action} action.",
                scope_types=["project"],
                deprecated_rule=policy.DeprecatedRule(
                    name="cloudformation:" + action,
                    check_str=deprecated,
                    deprecated_reason=(
                        "The default now distinguishes project personas."
                    ),
                    deprecated_since="W",
                ),
            )
        )
    return rules
