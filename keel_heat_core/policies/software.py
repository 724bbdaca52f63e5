"""Rules of software configs, deployments and the service list."""

from oslo_policy import policy

from keel_heat_core.policies import base

R = base.PROJECT_READER
M = base.PROJECT_MEMBER
V1 = base.V1
CFG = V1 + "/software_configs"
DEP = V1 + "/software_deployments"


def list_rules() -> list[policy.RuleDefault]:
    """Return the ``service``, ``software_configs`` and
    ``software_deployments`` rules."""
    return [
        base.api_rule(
            "service:index",
            base.PROJECT_ADMIN,
            "List the engine services.",
            [("GET", V1 + "/services")],
            deprecated_check=base.RULE_CONTEXT_IS_ADMIN,
        ),
        base.api_rule(
            "software_configs:global_index",
            base.RULE_DENY_EVERYBODY,
            "List software configs of all projects.",
            [("GET", CFG)],
            deprecated_check=None,
            scope_types=[],
        ),
        base.api_rule(
            "software_configs:index",
            R,
            "List software configs.",
            [("GET", CFG)],
        ),
        base.api_rule(
            "software_configs:create",
            M,
            "Create a software config.",
            [("POST", CFG)],
        ),
        base.api_rule(
            "software_configs:show",
            R,
            "Show a software config.",
            [("GET", CFG + "/{config_id}")],
        ),
        base.api_rule(
            "software_configs:delete",
            M,
            "Delete a software config.",
            [("DELETE", CFG + "/{config_id}")],
        ),
        base.api_rule(
            "software_deployments:index",
            R,
            "List software deployments.",
            [("GET", DEP)],
        ),
        base.api_rule(
            "software_deployments:create",
            M,
            "Create a software deployment.",
            [("POST", DEP)],
        ),
        base.api_rule(
            "software_deployments:show",
            R,
            "Show a software deployment.",
            [("GET", DEP + "/{deployment_id}")],
        ),
        base.api_rule(
            "software_deployments:update",
            M,
            "Update a software deployment.",
            [("PUT", DEP + "/{deployment_id}")],
        ),
        base.api_rule(
            "software_deployments:delete",
            M,
            "Delete a software deployment.",
            [("DELETE", DEP + "/{deployment_id}")],
        ),
        base.api_rule(
            "software_deployments:metadata",
            base.PROJECT_READER_OR_STACK_USER,
            "Show the deployment metadata of a server.",
            [("GET", DEP + "/metadata/{server_id}")],
            deprecated_check=None,
        ),
    ]
