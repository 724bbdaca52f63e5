"""The shapes the engine API returns (Heat's ``heat/engine/api.py``)."""

from __future__ import annotations

import datetime
from typing import Any

from keel_heat_core.db.records import StackSummaryRecord
from keel_heat_core.model import rows as r
from keel_heat_core.model.identifier import StackIdentifier

TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def timestamp(value: datetime.datetime | None) -> str | None:
    """Heat's ``%Y-%m-%dT%H:%M:%SZ`` (None stays None)."""
    return None if value is None else value.strftime(TIME_FORMAT)


#: what a stack's summary shows: the engine's row, or a listing's record
ListedStack = r.StackRow | StackSummaryRecord


def identity(stack: ListedStack, path: str = "") -> dict[str, str]:
    """``{tenant, stack_name, stack_id, path}``."""
    return StackIdentifier(
        stack.tenant or "", stack.name or "", stack.id, path
    ).as_dict()


def stack_summary(stack: ListedStack, tags: Any = None) -> dict[str, Any]:
    """One entry of ``list_stacks``."""
    return {
        "stack_identity": identity(stack),
        "stack_name": stack.name or "",
        "description": "",
        "stack_action": stack.action or "",
        "stack_status": stack.status or "",
        "stack_status_reason": stack.status_reason or "",
        "creation_time": timestamp(stack.created_at),
        "updated_time": timestamp(stack.updated_at),
        "deletion_time": timestamp(stack.deleted_at),
        "stack_owner": stack.username,
        "parent": stack.owner_id,
        "stack_user_project_id": stack.stack_user_project_id,
        "tags": list(tags) if tags else None,
    }


def stack_detail(
    stack: r.StackRow,
    stored: Any,
    tags: Any = None,
    outputs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``show_stack``'s stack (``outputs`` only when resolved)."""
    out = stack_summary(stack, tags)
    description = stored.t.description() if stored is not None else ""
    out.update(
        # a listing shows no tags as null, a show as [] (as Heat does)
        tags=list(tags or ()),
        description=description,
        template_description=description,
        notification_topics=[],
        capabilities=[],
        disable_rollback=stack.disable_rollback,
        timeout_mins=stack.timeout,
        parameters=stored.parameters.display() if stored is not None else {},
    )
    if outputs is not None:
        out["outputs"] = outputs
    return out


def resource(
    stack: r.StackRow,
    row: r.ResourceRow,
    resource_type: str,
    required_by: list[str] | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """``list_stack_resources`` / ``describe_stack_resource`` entry
    (``description`` only in the detailed form)."""
    # Heat's key order (format_stack_resource)
    out: dict[str, Any] = {
        "updated_time": timestamp(row.updated_at or row.created_at),
        "creation_time": timestamp(row.created_at),
        "resource_name": row.name,
        "physical_resource_id": row.physical_id or "",
        "resource_action": row.action,
        "resource_status": row.status,
        "resource_status_reason": row.status_reason,
        "resource_type": resource_type,
        "resource_identity": identity(stack, f"/resources/{row.name}"),
        "stack_identity": identity(stack),
        "stack_name": stack.name,
        "required_by": list(required_by or []),
    }
    if description is not None:
        out["description"] = description
    return out


def event(stack: r.StackRow, ev: Any) -> dict[str, Any]:
    """``list_events`` entry from an event record."""
    path = f"/resources/{ev.resource_name}/events/{ev.uuid}"
    return {
        "event_identity": identity(stack, path),
        "stack_identity": identity(stack),
        "stack_name": stack.name,
        "event_time": timestamp(ev.created_at),
        "resource_name": ev.resource_name,
        "physical_resource_id": ev.physical_resource_id,
        "resource_action": ev.resource_action,
        "resource_status": ev.resource_status,
        "resource_status_reason": ev.resource_status_reason,
        "resource_type": ev.resource_type,
        "resource_properties": ev.resource_properties or {},
    }
