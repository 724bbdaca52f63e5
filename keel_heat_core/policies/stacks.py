"""Rules of the stack operations of the native API (``stacks:*``)."""

from oslo_policy import policy

from keel_heat_core.policies import base

R = base.PROJECT_READER
M = base.PROJECT_MEMBER
S = base.STACK
V1 = base.V1

# (name, check string, description, method, path)
_RULES: list[tuple[str, str, str, str, str]] = [
    ("abandon", M, "Abandon a stack.", "DELETE", S + "/abandon"),
    ("create", M, "Create a stack.", "POST", V1 + "/stacks"),
    ("delete", M, "Delete a stack.", "DELETE", S),
    ("detail", R, "List stacks in detail.", "GET", V1 + "/stacks/detail"),
    ("export", M, "Export a stack.", "GET", S + "/export"),
    (
        "generate_template",
        M,
        "Generate a template from a resource type.",
        "GET",
        V1 + "/resource_types/{type_name}/template",
    ),
    ("index", R, "List stacks.", "GET", V1 + "/stacks"),
    (
        "list_resource_types",
        R,
        "List resource types.",
        "GET",
        V1 + "/resource_types",
    ),
    (
        "list_template_versions",
        R,
        "List template versions.",
        "GET",
        V1 + "/template_versions",
    ),
    (
        "list_template_functions",
        R,
        "List the functions of a template version.",
        "GET",
        V1 + "/template_versions/{template_version}/functions",
    ),
    ("preview", R, "Preview a stack.", "POST", V1 + "/stacks/preview"),
    (
        "resource_schema",
        R,
        "Show a resource type's schema.",
        "GET",
        V1 + "/resource_types/{type_name}",
    ),
    ("show", R, "Show a stack.", "GET", S),
    ("template", R, "Show a stack's template.", "GET", S + "/template"),
    (
        "environment",
        R,
        "Show a stack's environment.",
        "GET",
        S + "/environment",
    ),
    ("files", R, "Show a stack's files.", "GET", S + "/files"),
    ("update", M, "Replace a stack's template and inputs.", "PUT", S),
    ("update_patch", M, "Update a stack with merged inputs.", "PATCH", S),
    (
        "preview_update",
        M,
        "Preview a stack update.",
        "PUT",
        S + "/preview",
    ),
    (
        "preview_update_patch",
        M,
        "Preview a merging stack update.",
        "PATCH",
        S + "/preview",
    ),
    (
        "validate_template",
        M,
        "Validate a template.",
        "POST",
        V1 + "/validate",
    ),
    ("snapshot", M, "Snapshot a stack.", "POST", S + "/snapshots"),
    (
        "show_snapshot",
        R,
        "Show a stack snapshot.",
        "GET",
        S + "/snapshots/{snapshot_id}",
    ),
    (
        "delete_snapshot",
        M,
        "Delete a stack snapshot.",
        "DELETE",
        S + "/snapshots/{snapshot_id}",
    ),
    (
        "list_snapshots",
        R,
        "List a stack's snapshots.",
        "GET",
        S + "/snapshots",
    ),
    (
        "restore_snapshot",
        M,
        "Restore a stack snapshot.",
        "POST",
        S + "/snapshots/{snapshot_id}/restore",
    ),
    ("list_outputs", R, "List a stack's outputs.", "GET", S + "/outputs"),
    (
        "show_output",
        R,
        "Show one output of a stack.",
        "GET",
        S + "/outputs/{output_key}",
    ),
]


def list_rules() -> list[policy.RuleDefault]:
    """Return the 31 ``stacks:*`` rules."""
    rules: list[policy.RuleDefault] = [
        base.api_rule("stacks:" + name, check, desc, [(method, path)])
        for name, check, desc, method, path in _RULES
    ]
    rules.append(
        base.api_rule(
            "stacks:global_index",
            base.RULE_DENY_EVERYBODY,
            "List stacks of all projects.",
            [("GET", V1 + "/stacks")],
            deprecated_check=None,
            scope_types=[],
        )
    )
    rules.append(
        base.api_rule(
            "stacks:lookup",
            base.PROJECT_READER_OR_STACK_USER,
            "Find a stack by name, id or ARN and redirect to it.",
            [("GET", V1 + "/stacks/{stack_identity}")],
            deprecated_check=base.RULE_ALLOW_EVERYBODY,
        )
    )
    rules.append(
        base.api_rule(
            "stacks:update_no_change",
            "rule:stacks:update_patch",
            "A merging update that changes nothing.",
            [("PATCH", S)],
            deprecated_check=None,
        )
    )
    return rules
