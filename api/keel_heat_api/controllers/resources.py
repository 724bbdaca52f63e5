"""Resources and events of a stack."""

from __future__ import annotations

from typing import Any

from keel_heat_api import errors, views
from keel_heat_api.controllers.base import stack_policy
from keel_heat_api.params import (
    MIXED,
    MULTI,
    SINGLE,
    allowed_params,
    extract_bool,
    extract_int,
)
from keel_heat_api.request import ApiRequest

_RESOURCE_FILTERS = dict.fromkeys(
    ("type", "status", "name", "action", "id", "physical_resource_id"), MIXED
)
_EVENT_PARAMS = {
    "limit": SINGLE,
    "marker": SINGLE,
    "sort_dir": SINGLE,
    "sort_keys": MULTI,
    "nested_depth": SINGLE,
}
_EVENT_FILTERS = dict.fromkeys(
    ("resource_status", "resource_action", "resource_name", "resource_type"),
    MIXED,
)


@stack_policy("resource:index")
def index(req: ApiRequest, identity: dict[str, str]) -> dict[str, Any]:
    """``GET {S}/resources``; unknown query keys are refused."""
    invalid = (
        set(req.query.keys())
        - set(_RESOURCE_FILTERS)
        - {
            "nested_depth",
            "with_detail",
        }
    )
    if invalid:
        raise errors.HTTPBadRequest(
            f"Invalid filter parameters {sorted(invalid)}"
        )
    nested_depth = 0
    if "nested_depth" in req.query:
        nested_depth = (
            extract_int("nested_depth", req.query.get("nested_depth")) or 0
        )
    nested_depth = min(nested_depth, req.conf.max_nested_stack_depth)
    with_detail = False
    if "with_detail" in req.query:
        with_detail = extract_bool("with_detail", req.query.get("with_detail"))
    filters = allowed_params(req.query, _RESOURCE_FILTERS)
    resources = req.rpc.list_stack_resources(
        req.context, identity, nested_depth, with_detail, filters=filters
    )
    return {"resources": [views.format_resource(req, r) for r in resources]}


@stack_policy("resource:show")
def show(
    req: ApiRequest, identity: dict[str, str], resource_name: str
) -> dict[str, Any]:
    """``GET {S}/resources/{name}``; ``with_attr`` may repeat."""
    with_attr = allowed_params(req.query, {"with_attr": MULTI}).get(
        "with_attr"
    )
    res = req.rpc.describe_stack_resource(
        req.context, identity, resource_name, with_attr=with_attr
    )
    return {"resource": views.format_resource(req, res)}


@stack_policy("resource:metadata")
def metadata(
    req: ApiRequest, identity: dict[str, str], resource_name: str
) -> dict[str, Any]:
    """``GET {S}/resources/{name}/metadata``."""
    res = req.rpc.describe_stack_resource(req.context, identity, resource_name)
    return {"metadata": res.get("metadata")}


@stack_policy("resource:signal")
def signal(
    req: ApiRequest, identity: dict[str, str], resource_name: str
) -> None:
    """``POST {S}/resources/{name}/signal``; the body is the details."""
    req.rpc.resource_signal(
        req.context,
        stack_identity=identity,
        resource_name=resource_name,
        details=req.body(),
    )


@stack_policy("resource:mark_unhealthy")
def mark_unhealthy(
    req: ApiRequest, identity: dict[str, str], resource_name: str
) -> None:
    """``PATCH {S}/resources/{name_or_physical_id}``."""
    body = req.require_body()
    valid = ("mark_unhealthy", "resource_status_reason")
    invalid = set(body) - set(valid)
    if invalid:
        raise errors.HTTPBadRequest(
            f"Invalid keys in resource mark unhealthy {invalid}"
        )
    if "mark_unhealthy" not in body:
        raise errors.HTTPBadRequest(
            "Missing mandatory (mark_unhealthy) key from mark unhealthy "
            "request"
        )
    req.rpc.resource_mark_unhealthy(
        req.context,
        stack_identity=identity,
        resource_name=resource_name,
        mark_unhealthy=extract_bool("mark_unhealthy", body["mark_unhealthy"]),
        resource_status_reason=body.get("resource_status_reason", ""),
    )


def _events(
    req: ApiRequest,
    identity: dict[str, str],
    filters: dict[str, Any] | None,
    detail: bool = False,
    **params: Any,
) -> list[dict[str, Any]]:
    events = req.rpc.list_events(
        req.context, identity, filters=filters, **params
    )
    return [views.format_event(req, e, detail) for e in events]


@stack_policy("events:index")
def events_index(
    req: ApiRequest, identity: dict[str, str], resource_name: str | None = None
) -> dict[str, Any]:
    """``GET {S}/events`` and ``GET {S}/resources/{name}/events``."""
    params = allowed_params(req.query, _EVENT_PARAMS)
    for key in ("limit", "nested_depth"):
        if key in params:
            params[key] = extract_int(key, params[key])
    filters: dict[str, Any] | None = allowed_params(req.query, _EVENT_FILTERS)
    if resource_name is None:
        filters = filters or None
    else:
        assert filters is not None
        filters["resource_name"] = resource_name
    events = _events(req, identity, filters, **params)
    if not events and resource_name is not None:
        raise errors.HTTPNotFound(
            f"No events found for resource {resource_name}"
        )
    return {"events": events}


@stack_policy("events:show")
def event_show(
    req: ApiRequest,
    identity: dict[str, str],
    resource_name: str,
    event_id: str,
) -> dict[str, Any]:
    """``GET {S}/resources/{name}/events/{id}``."""
    filters = {"resource_name": resource_name, "uuid": event_id}
    events = _events(req, identity, filters, detail=True)
    if not events:
        raise errors.HTTPNotFound(f"No event {event_id} found")
    return {"event": events[0]}
