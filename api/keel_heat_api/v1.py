"""The route table of the native Orchestration API v1: Heat's routes
(61 of them, counting each method of a lookup route).

Registration order is Heat's; see :mod:`.routing` for how a path picks
its route.
"""

from __future__ import annotations

from keel_heat_api.controllers import (
    discovery,
    resources,
    software,
    stack_parts,
    stacks,
)
from keel_heat_api.routing import Handler, Router

T = "/{tenant_id}"
ST = T + "/stacks"
S = ST + "/{stack_name}/{stack_id}"
R = S + "/resources/{resource_name}"
_GET_SUBPATHS = "resources|events|template|actions|environment|files"
_POST_SUBPATHS = "resources|events|template|actions"
ALL = "GET POST PUT PATCH DELETE"


def _stack_routes() -> list[tuple[str, str, Handler]]:
    return [
        (T + "/validate", "POST", stack_parts.validate_template),
        (T + "/resource_types", "GET", discovery.list_resource_types),
        (T + "/resource_types/{type_name}", "GET", discovery.resource_schema),
        (
            T + "/resource_types/{type_name}/template",
            "GET",
            discovery.generate_template,
        ),
        (T + "/template_versions", "GET", discovery.list_template_versions),
        (
            T + "/template_versions/{template_version}/functions",
            "GET",
            discovery.list_template_functions,
        ),
        (ST, "GET", stacks.index),
        (ST, "POST", stacks.create),
        (ST + "/preview", "POST", stacks.preview),
        (ST + "/detail", "GET", stacks.detail),
        (ST + "/{stack_name}", ALL, stacks.lookup),
        (ST + "/{stack_name:arn:.*}", ALL, stacks.lookup),
        (
            ST + "/{stack_name}/{path:" + _GET_SUBPATHS + "}",
            "GET",
            stacks.lookup,
        ),
        (
            ST + "/{stack_name}/{path:" + _POST_SUBPATHS + "}",
            "POST",
            stacks.lookup,
        ),
        (S, "GET", stacks.show),
        (S + "/template", "GET", stacks.template),
        (S + "/environment", "GET", stacks.environment),
        (S + "/files", "GET", stacks.files),
        (S, "PUT", stacks.update),
        (S, "PATCH", stacks.update_patch),
        (S + "/preview", "PUT", stacks.preview_update),
        (S + "/preview", "PATCH", stacks.preview_update_patch),
        (S, "DELETE", stacks.delete),
        (S + "/abandon", "DELETE", stacks.abandon),
        (S + "/export", "GET", stacks.export),
        (S + "/snapshots", "POST", stack_parts.snapshot),
        (
            S + "/snapshots/{snapshot_id}",
            "GET",
            stack_parts.show_snapshot,
        ),
        (
            S + "/snapshots/{snapshot_id}",
            "DELETE",
            stack_parts.delete_snapshot,
        ),
        (S + "/snapshots", "GET", stack_parts.list_snapshots),
        (
            S + "/snapshots/{snapshot_id}/restore",
            "POST",
            stack_parts.restore_snapshot,
        ),
        (S + "/outputs", "GET", stack_parts.list_outputs),
        (S + "/outputs/{output_key}", "GET", stack_parts.show_output),
    ]


def routes() -> list[tuple[str, str, Handler]]:
    """Return ``(template, methods, handler)`` in registration order."""
    return _stack_routes() + [
        (S + "/resources", "GET", resources.index),
        (R, "GET", resources.show),
        (R + "/metadata", "GET", resources.metadata),
        (R + "/signal", "POST", resources.signal),
        (R, "PATCH", resources.mark_unhealthy),
        (S + "/events", "GET", resources.events_index),
        (R + "/events", "GET", resources.events_index),
        (R + "/events/{event_id}", "GET", resources.event_show),
        (S + "/actions", "POST", stack_parts.action),
        (T + "/build_info", "GET", discovery.build_info),
        (T + "/software_configs", "GET", software.config_index),
        (T + "/software_configs", "POST", software.config_create),
        (T + "/software_configs/{config_id}", "GET", software.config_show),
        (
            T + "/software_configs/{config_id}",
            "DELETE",
            software.config_delete,
        ),
        (T + "/software_deployments", "GET", software.deployment_index),
        (T + "/software_deployments", "POST", software.deployment_create),
        (
            T + "/software_deployments/metadata/{server_id}",
            "GET",
            software.deployment_metadata,
        ),
        (
            T + "/software_deployments/{deployment_id}",
            "GET",
            software.deployment_show,
        ),
        (
            T + "/software_deployments/{deployment_id}",
            "PUT",
            software.deployment_update,
        ),
        (
            T + "/software_deployments/{deployment_id}",
            "DELETE",
            software.deployment_delete,
        ),
        (T + "/services", "GET", discovery.list_services),
    ]


def router() -> Router:
    """Return the router of the v1 API."""
    return Router(routes())
