"""Snapshots, outputs, actions and template validation."""

from __future__ import annotations

from typing import Any

import webob

from keel_heat_api import errors
from keel_heat_api.controllers.base import (
    accepted,
    check_tenant,
    enforce,
    no_content,
    policy,
    stack_identity,
    stack_policy,
)
from keel_heat_api.params import extract_bool, extract_name
from keel_heat_api.request import ApiRequest
from keel_heat_api.template_input import InstantiationData

ACTIONS = (
    "suspend",
    "resume",
    "check",
    "cancel_update",
    "cancel_without_rollback",
)
#: The only error code ``ignore_errors`` may name.
IGNORABLE_ERRORS = ("99001",)


@stack_policy("stacks:snapshot")
def snapshot(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``POST {S}/snapshots``: the snapshot, unwrapped."""
    body = req.require_body()
    name = extract_name("name", body.get("name"))
    return req.rpc.stack_snapshot(req.context, identity, name)


@stack_policy("stacks:list_snapshots")
def list_snapshots(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``GET {S}/snapshots``."""
    return {"snapshots": req.rpc.stack_list_snapshots(req.context, identity)}


@stack_policy("stacks:show_snapshot")
def show_snapshot(
    req: ApiRequest, identity: dict[str, str], snapshot_id: str
) -> Any:
    """``GET {S}/snapshots/{id}``."""
    snap = req.rpc.show_snapshot(req.context, identity, snapshot_id)
    return {"snapshot": snap}


@stack_policy("stacks:delete_snapshot")
def delete_snapshot(
    req: ApiRequest, identity: dict[str, str], snapshot_id: str
) -> webob.Response:
    """``DELETE {S}/snapshots/{id}`` (204)."""
    req.rpc.delete_snapshot(req.context, identity, snapshot_id)
    return no_content()


@stack_policy("stacks:restore_snapshot")
def restore_snapshot(
    req: ApiRequest, identity: dict[str, str], snapshot_id: str
) -> webob.Response:
    """``POST {S}/snapshots/{id}/restore`` (202)."""
    req.refuse_body()
    req.rpc.stack_restore(req.context, identity, snapshot_id)
    return accepted()


@stack_policy("stacks:list_outputs")
def list_outputs(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``GET {S}/outputs``: keys and descriptions."""
    return {"outputs": req.rpc.list_outputs(req.context, identity)}


@stack_policy("stacks:show_output")
def show_output(
    req: ApiRequest, identity: dict[str, str], output_key: str
) -> Any:
    """``GET {S}/outputs/{key}``: one resolved output."""
    return {"output": req.rpc.show_output(req.context, identity, output_key)}


def action(
    req: ApiRequest, tenant_id: str, stack_name: str, stack_id: str
) -> None:
    """``POST {S}/actions`` with exactly one action key (200 ``null``)."""
    body = req.body()
    if not body:
        raise errors.HTTPBadRequest("No action specified")
    if not isinstance(body, dict):
        raise errors.HTTPBadRequest("No action specified")
    if len(body) > 1:
        raise errors.HTTPBadRequest("Multiple actions specified")
    name = next(iter(body))
    if name not in ACTIONS:
        raise errors.HTTPBadRequest(f"Invalid action {name} specified")
    project = check_tenant(req, tenant_id)
    enforce(req, "actions:" + name, project)
    identity = stack_identity(req, stack_name, stack_id)
    ctx = req.context
    if name == "suspend":
        req.rpc.stack_suspend(ctx, identity)
    elif name == "resume":
        req.rpc.stack_resume(ctx, identity)
    elif name == "check":
        req.rpc.stack_check(ctx, identity)
    else:
        req.rpc.stack_cancel_update(
            ctx, identity, cancel_with_rollback=(name == "cancel_update")
        )


def _ignorable_errors(req: ApiRequest) -> list[str] | None:
    raw = req.query.get("ignore_errors")
    if not raw:
        return None
    codes = [code for code in raw.split(",") if code]
    unknown = [code for code in codes if code not in IGNORABLE_ERRORS]
    if unknown:
        raise errors.HTTPBadRequest(
            f"Invalid codes in ignore_errors : {unknown}"
        )
    return codes


@policy("stacks:validate_template")
def validate_template(req: ApiRequest) -> Any:
    """``POST /validate``; an engine ``Error`` becomes a 400."""
    data = InstantiationData(req.conf, req.require_body())
    show_nested = False
    if "show_nested" in req.query:
        show_nested = extract_bool("show_nested", req.query.get("show_nested"))
    result = req.rpc.validate_template(
        req.context,
        data.template(),
        data.environment(),
        files=data.files(),
        environment_files=data.environment_files(),
        files_container=data.files_container(),
        show_nested=show_nested,
        ignorable_errors=_ignorable_errors(req),
    )
    if isinstance(result, dict) and "Error" in result:
        raise errors.HTTPBadRequest(str(result["Error"]))
    return result
