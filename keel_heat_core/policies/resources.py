"""Rules of resources, events, stack actions and build information."""

from oslo_policy import policy

from keel_heat_core.policies import base

R = base.PROJECT_READER
M = base.PROJECT_MEMBER
S = base.STACK
RES = S + "/resources/{resource_name}"

_ACTIONS: list[tuple[str, str, str]] = [
    ("action", M, "Run a stack action (not enforced)."),
    ("snapshot", M, "Snapshot action (not enforced)."),
    ("suspend", M, "Suspend a stack."),
    ("resume", M, "Resume a suspended stack."),
    ("check", R, "Check a stack's resources."),
    ("cancel_update", M, "Cancel a stack update and roll back."),
    ("cancel_without_rollback", M, "Cancel a stack operation."),
]


def list_rules() -> list[policy.RuleDefault]:
    """Return the ``actions``, ``build_info``, ``events`` and
    ``resource`` rules."""
    rules: list[policy.RuleDefault] = [
        base.api_rule(
            "actions:" + name, check, desc, [("POST", S + "/actions")]
        )
        for name, check, desc in _ACTIONS
    ]
    rules += [
        base.api_rule(
            "build_info:build_info",
            R,
            "Show build information.",
            [("GET", base.V1 + "/build_info")],
        ),
        base.api_rule(
            "events:index",
            R,
            "List a stack's events.",
            [("GET", S + "/events"), ("GET", RES + "/events")],
        ),
        base.api_rule(
            "events:show",
            R,
            "Show one event.",
            [("GET", RES + "/events/{event_id}")],
        ),
        base.api_rule(
            "resource:index",
            R,
            "List a stack's resources.",
            [("GET", S + "/resources")],
        ),
        base.api_rule(
            "resource:metadata",
            base.PROJECT_READER_OR_STACK_USER,
            "Show a resource's metadata.",
            [("GET", RES + "/metadata")],
            deprecated_check=base.RULE_ALLOW_EVERYBODY,
        ),
        base.api_rule(
            "resource:signal",
            base.PROJECT_READER_OR_STACK_USER,
            "Signal a resource.",
            [("POST", RES + "/signal")],
            deprecated_check=base.RULE_ALLOW_EVERYBODY,
        ),
        base.api_rule(
            "resource:mark_unhealthy",
            M,
            "Mark a resource (un)healthy.",
            [("PATCH", S + "/resources/{resource_name_or_physical_id}")],
        ),
        base.api_rule("resource:show", R, "Show a resource.", [("GET", RES)]),
    ]
    return rules
