"""The route table of the native Orchestration API v1 (api.md §2)."""

from __future__ import annotations

from keel_heat_api.controllers import discovery
from keel_heat_api.routing import Handler, Router

T = "/{tenant_id}"


def routes() -> list[tuple[str, str, Handler]]:
    """Return ``(template, methods, handler)`` in registration order."""
    return [
        (T + "/resource_types", "GET", discovery.list_resource_types),
        (
            T + "/resource_types/{type_name}",
            "GET",
            discovery.resource_schema,
        ),
        (
            T + "/resource_types/{type_name}/template",
            "GET",
            discovery.generate_template,
        ),
        (
            T + "/template_versions",
            "GET",
            discovery.list_template_versions,
        ),
        (
            T + "/template_versions/{template_version}/functions",
            "GET",
            discovery.list_template_functions,
        ),
        (T + "/build_info", "GET", discovery.build_info),
        (T + "/services", "GET", discovery.list_services),
    ]


def router() -> Router:
    """Return the router of the v1 API."""
    return Router(routes())
