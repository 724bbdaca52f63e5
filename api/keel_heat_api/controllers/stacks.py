"""Stack collection, lookup, show, create, update and delete."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urlencode

import webob
import webob.exc

from keel_heat_api import errors, views
from keel_heat_api.controllers.base import (
    accepted,
    check_tenant,
    enforce,
    no_content,
    policy,
    stack_identity,
    stack_policy,
)
from keel_heat_api.params import (
    MIXED,
    MULTI,
    SINGLE,
    allowed_params,
    extract_bool,
    extract_int,
    extract_tags,
)
from keel_heat_api.request import ApiRequest
from keel_heat_api.template_input import InstantiationData

_ARN_PATH = re.compile(r"stacks/([^/]+)/([^/]+)(.*)")

_FILTERS = dict.fromkeys(
    (
        "stack_name",
        "stack_action",
        "stack_status",
        "stack_status_reason",
        "disable_rollback",
        "timeout_mins",
        "stack_owner",
        "parent",
        "stack_user_project_id",
        "id",
        "status",
        "name",
        "action",
        "tenant",
        "username",
        "owner_id",
    ),
    MIXED,
)
_LIST_PARAMS = {
    "limit": SINGLE,
    "marker": SINGLE,
    "sort_dir": SINGLE,
    "sort_keys": MULTI,
    "show_deleted": SINGLE,
    "show_nested": SINGLE,
    "show_hidden": SINGLE,
    "tags": SINGLE,
    "tags_any": SINGLE,
    "not_tags": SINGLE,
    "not_tags_any": SINGLE,
}
_BOOL_PARAMS = ("show_deleted", "show_nested", "show_hidden")
_TAG_PARAMS = ("tags", "tags_any", "not_tags", "not_tags_any")


def identity_from_arn(arn: str) -> dict[str, str] | None:
    """Return the identity a Heat ARN names, or ``None`` if not one."""
    fields = arn.split(":", 5)
    if len(fields) < 6 or fields[0].lower() != "arn":
        return None
    if fields[1:3] != ["openstack", "heat"]:
        return None
    match = _ARN_PATH.match(fields[5])
    if match is None:
        return None
    return {
        "tenant": unquote(fields[4]),
        "stack_name": unquote(match.group(1)),
        "stack_id": unquote(match.group(2)),
        "path": unquote(match.group(3)),
    }


def _list_args(req: ApiRequest) -> tuple[dict[str, Any], dict[str, Any]]:
    params = allowed_params(req.query, _LIST_PARAMS)
    for name in _BOOL_PARAMS:
        if name in params:
            params[name] = extract_bool(name, params[name])
    if "limit" in params:
        params["limit"] = extract_int("limit", params["limit"])
    for name in _TAG_PARAMS:
        if name in params:
            params[name] = extract_tags(params[name])
    sort_dir = params.get("sort_dir")
    if sort_dir is not None and sort_dir.lower() not in ("asc", "desc"):
        raise errors.HTTPBadRequest(
            f"Invalid sort direction '{sort_dir}', acceptable values are: "
            "asc, desc."
        )
    return params, allowed_params(req.query, _FILTERS)


def _admin_context(req: ApiRequest) -> Any:
    ctx = req.context
    admin = type(ctx)(
        is_admin=True,
        request_id=ctx.request_id,
        global_request_id=ctx.global_request_id,
        overwrite=False,
    )
    return admin


def _index(req: ApiRequest, global_tenant: bool) -> dict[str, Any]:
    params, filters = _list_args(req)
    with_count = False
    if req.query.get("with_count"):
        with_count = extract_bool("with_count", req.query.get("with_count"))
    ctx = _admin_context(req) if global_tenant else req.context
    stacks = req.rpc.list_stacks(ctx, filters=filters or None, **params)
    count = None
    if with_count:
        count = req.rpc.count_stacks(
            ctx,
            filters=filters or None,
            **{
                k: v
                for k, v in params.items()
                if k in _BOOL_PARAMS + _TAG_PARAMS
            },
        )
    items = [
        views.format_stack(
            req, s, views.STACK_SUMMARY_KEYS, include_project=ctx.is_admin
        )
        for s in stacks
    ]
    result: dict[str, Any] = {"stacks": items}
    links = views.collection_links(req, items)
    if links:
        result["links"] = links
    if count is not None:
        result["count"] = count
    return result


@policy("stacks:index")
def index(req: ApiRequest) -> dict[str, Any]:
    """``GET /stacks``; ``global_tenant`` also needs stacks:global_index."""
    global_tenant = False
    if "global_tenant" in req.query:
        global_tenant = extract_bool(
            "global_tenant", req.query.get("global_tenant")
        )
    if global_tenant:
        enforce(req, "stacks:global_index", str(req.context.project_id))
    return _index(req, global_tenant)


@policy("stacks:detail")
def detail(req: ApiRequest) -> dict[str, Any]:
    """``GET /stacks/detail``: every stack, no paging."""
    stacks = req.rpc.list_stacks(req.context)
    return {"stacks": [views.format_stack(req, s) for s in stacks]}


def _create_call(req: ApiRequest, method: str) -> tuple[Any, Any]:
    data = InstantiationData(req.conf, req.require_body())
    args = data.prepare_args()
    result = getattr(req.rpc, method)(
        req.context,
        data.stack_name(),
        data.template(),
        data.environment(),
        data.files(),
        args,
        environment_files=data.environment_files(),
        files_container=data.files_container(),
    )
    return data, result


@policy("stacks:create")
def create(req: ApiRequest) -> webob.Response:
    """``POST /stacks``: 201 with ``Location``."""
    _data, identity = _create_call(req, "create_stack")
    stack = views.format_stack(req, {"stack_identity": identity})
    from keel_heat_api.root import json_response

    return json_response(
        {"stack": stack},
        status=201,
        headers={"Location": stack["links"][0]["href"]},
    )


@policy("stacks:preview")
def preview(req: ApiRequest) -> dict[str, Any]:
    """``POST /stacks/preview``."""
    _data, result = _create_call(req, "preview_stack")
    return {"stack": views.format_stack(req, result)}


def lookup(
    req: ApiRequest, tenant_id: str, stack_name: str, path: str = ""
) -> webob.Response:
    """Redirect a name, id or ARN to the stack's canonical URL (302)."""
    project = check_tenant(req, tenant_id)
    enforce(req, "stacks:lookup", project)
    identity = identity_from_arn(stack_name)
    if identity is None:
        identity = req.rpc.identify_stack(req.context, stack_name)
    location = req.identity_url(identity)
    if path:
        location = location + "/" + path
    if req.query:
        location += "?" + urlencode(list(req.query.items()))
    return webob.exc.HTTPFound(location=location)


@stack_policy("stacks:show")
def show(req: ApiRequest, identity: dict[str, str]) -> dict[str, Any]:
    """``GET {S}``; ``resolve_outputs=false`` leaves outputs out."""
    resolve_outputs = True
    if "resolve_outputs" in req.query:
        resolve_outputs = extract_bool(
            "resolve_outputs", req.query.get("resolve_outputs")
        )
    stacks = req.rpc.show_stack(req.context, identity, resolve_outputs)
    if not stacks:
        raise errors.HTTPNotFound(
            f"The Stack ({identity['stack_name']}) could not be found."
        )
    return {"stack": views.format_stack(req, stacks[0])}


@stack_policy("stacks:template")
def template(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``GET {S}/template``: the stored template."""
    return req.rpc.get_template(req.context, identity)


@stack_policy("stacks:environment")
def environment(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``GET {S}/environment``: hidden parameters masked."""
    return req.rpc.get_environment(req.context, identity)


@stack_policy("stacks:files")
def files(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``GET {S}/files``."""
    return req.rpc.get_files(req.context, identity)


def _update(
    req: ApiRequest, identity: dict[str, str], data: InstantiationData
) -> webob.Response:
    args = data.prepare_args(is_update=True)
    req.rpc.update_stack(
        req.context,
        identity,
        data.template(),
        data.environment(),
        data.files(),
        args,
        environment_files=data.environment_files(),
        files_container=data.files_container(),
    )
    return accepted()


@stack_policy("stacks:update")
def update(req: ApiRequest, identity: dict[str, str]) -> webob.Response:
    """``PUT {S}``: replace template and inputs (202)."""
    return _update(
        req, identity, InstantiationData(req.conf, req.require_body())
    )


def update_patch(
    req: ApiRequest, tenant_id: str, stack_name: str, stack_id: str
) -> webob.Response:
    """``PATCH {S}``: merge with the stored inputs (202)."""
    ctx = req.context
    if ctx.project_id != tenant_id and not ctx.is_admin:
        raise errors.HTTPForbidden()
    data = InstantiationData(req.conf, req.require_body(), patch=True)
    rule = (
        "stacks:update_no_change"
        if data.no_change()
        else "stacks:update_patch"
    )
    enforce(req, rule, str(ctx.project_id))
    identity = stack_identity(req, stack_name, stack_id)
    return _update(req, identity, data)


def _preview_update(
    req: ApiRequest, identity: dict[str, str], patch: bool
) -> dict[str, Any]:
    data = InstantiationData(req.conf, req.require_body(), patch=patch)
    args = data.prepare_args(is_update=True)
    if req.query.get("show_nested"):
        args["show_nested"] = extract_bool(
            "show_nested", req.query.get("show_nested")
        )
    changes = req.rpc.preview_update_stack(
        req.context,
        identity,
        data.template(),
        data.environment(),
        data.files(),
        args,
        environment_files=data.environment_files(),
        files_container=data.files_container(),
    )
    return {"resource_changes": changes}


@stack_policy("stacks:preview_update")
def preview_update(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``PUT {S}/preview``."""
    return _preview_update(req, identity, patch=False)


@stack_policy("stacks:preview_update_patch")
def preview_update_patch(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``PATCH {S}/preview``."""
    return _preview_update(req, identity, patch=True)


@stack_policy("stacks:delete")
def delete(req: ApiRequest, identity: dict[str, str]) -> webob.Response:
    """``DELETE {S}`` (204)."""
    req.refuse_body()
    req.rpc.delete_stack(req.context, identity, cast=False)
    return no_content()


@stack_policy("stacks:abandon")
def abandon(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``DELETE {S}/abandon``: the abandon data."""
    return req.rpc.abandon_stack(req.context, identity)


@stack_policy("stacks:export")
def export(req: ApiRequest, identity: dict[str, str]) -> Any:
    """``GET {S}/export``: the abandon data, stack kept."""
    return req.rpc.export_stack(req.context, identity)
