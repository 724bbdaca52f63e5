"""Shaping engine results into API bodies (keys in Heat's order).

Each formatter walks the engine's dict in order, as Heat does: the
identity becomes ``id`` and ``links``, ``*_action`` is folded into
``*_status`` (``CREATE_COMPLETE``) and internal keys are dropped.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from keel_heat_api.request import ApiRequest

STACK_SUMMARY_KEYS = (
    "stack_identity",
    "stack_name",
    "description",
    "stack_status",
    "stack_status_reason",
    "creation_time",
    "deletion_time",
    "updated_time",
    "stack_owner",
    "parent",
    "stack_user_project_id",
    "tags",
)
EVENT_SUMMARY_KEYS = (
    "event_identity",
    "event_time",
    "resource_name",
    "resource_status",
    "resource_status_reason",
    "physical_resource_id",
)


def link(
    req: ApiRequest, identity: dict[str, Any], rel: str = "self"
) -> dict[str, str]:
    """Return ``{"href", "rel"}`` for an identity."""
    return {"href": req.identity_url(identity), "rel": rel}


def _stack_of(identity: dict[str, Any]) -> dict[str, Any]:
    return dict(identity, path="")


def _resource_of(identity: dict[str, Any]) -> dict[str, Any]:
    path = identity.get("path") or ""
    parts = path.split("/")
    return dict(identity, path="/".join(parts[:3]))


def format_stack(
    req: ApiRequest,
    stack: dict[str, Any],
    keys: tuple[str, ...] | None = None,
    include_project: bool = False,
) -> dict[str, Any]:
    """Return the API form of an engine stack dict."""

    def transform(key: str, value: Any) -> Iterator[tuple[str, Any]]:
        if keys and key not in keys:
            return
        if key == "stack_identity":
            yield "id", value["stack_id"]
            yield "links", [link(req, value)]
            if include_project:
                yield "project", value["tenant"]
        elif key == "stack_action":
            return
        elif key == "stack_status" and "stack_action" in stack:
            yield key, f"{stack['stack_action']}_{value}"
        else:
            yield key, value

    return dict(kv for k, v in stack.items() for kv in transform(k, v))


def next_link(req: ApiRequest, marker: str) -> str:
    """Return the URL of the next page, every other parameter kept."""
    params = [(k, v) for k, v in req.query.items() if k != "marker"]
    params.append(("marker", marker))
    return str(req.req.path_url) + "?" + urlencode(params)


def collection_links(
    req: ApiRequest, items: list[dict[str, Any]]
) -> list[dict[str, str]]:
    """Return the ``next`` link when a full page was returned."""
    limit = req.query.get("limit")
    try:
        size = int(limit) if limit is not None else 0
    except ValueError:
        size = 0
    if size > 0 and len(items) == size:
        return [{"rel": "next", "href": next_link(req, items[-1]["id"])}]
    return []


def format_resource(req: ApiRequest, res: dict[str, Any]) -> dict[str, Any]:
    """Return the API form of an engine resource dict."""

    def transform(key: str, value: Any) -> Iterator[tuple[str, Any]]:
        if key == "resource_identity":
            links = [link(req, value), link(req, _stack_of(value), "stack")]
            nested = res.get("nested_stack_id")
            if nested:
                links.append(link(req, nested, "nested"))
            yield "links", links
        elif key in (
            "stack_name",
            "stack_identity",
            "resource_action",
            "nested_stack_id",
            "metadata",
        ):
            return
        elif key == "resource_status" and "resource_action" in res:
            yield key, f"{res['resource_action']}_{value}"
        elif key == "resource_name":
            yield "logical_resource_id", value
            yield key, value
        else:
            yield key, value

    return dict(kv for k, v in res.items() for kv in transform(k, v))


def format_event(
    req: ApiRequest, event: dict[str, Any], detail: bool = False
) -> dict[str, Any]:
    """Return the API form of an engine event dict."""
    keys = None if detail else EVENT_SUMMARY_KEYS

    def transform(key: str, value: Any) -> Iterator[tuple[str, Any]]:
        if keys and key not in keys:
            return
        if key == "event_identity":
            event_id = (value.get("path") or "").rsplit("/", 1)[-1]
            yield "id", event_id
            yield (
                "links",
                [
                    link(req, value),
                    link(req, _resource_of(value), "resource"),
                    link(req, _stack_of(value), "stack"),
                ],
            )
        elif key in ("stack_identity", "stack_name", "resource_action"):
            return
        elif key == "resource_status" and "resource_action" in event:
            yield key, f"{event['resource_action']}_{value}"
        elif key == "resource_name":
            yield "logical_resource_id", value
            yield key, value
        else:
            yield key, value

    result = dict(kv for k, v in event.items() for kv in transform(k, v))
    root = event.get("root_stack_id")
    if root and "links" in result:
        result["links"].append(link(req, root, "root_stack"))
    return result
