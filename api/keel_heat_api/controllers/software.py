"""Software configs and software deployments."""

from __future__ import annotations

from typing import Any

import webob

from keel_heat_api import errors
from keel_heat_api.controllers.base import enforce, no_content, policy
from keel_heat_api.controllers.stacks import _admin_context
from keel_heat_api.params import (
    SINGLE,
    allowed_params,
    extract_bool,
    extract_int,
    extract_name,
)
from keel_heat_api.request import ApiRequest


@policy("software_configs:index")
def config_index(req: ApiRequest) -> dict[str, Any]:
    """``GET /software_configs``; ``global_tenant`` needs global_index."""
    params = allowed_params(req.query, {"limit": SINGLE, "marker": SINGLE})
    if "limit" in params:
        params["limit"] = extract_int("limit", params["limit"])
    ctx = req.context
    if "global_tenant" in req.query and extract_bool(
        "global_tenant", req.query.get("global_tenant")
    ):
        enforce(req, "software_configs:global_index", str(ctx.project_id))
        ctx = _admin_context(req)
    return {"software_configs": req.rpc.list_software_configs(ctx, **params)}


def _list_of_objects(body: dict[str, Any], key: str) -> list[Any]:
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(
        isinstance(item, dict) for item in value
    ):
        raise errors.HTTPBadRequest(f"{key} must be a list of objects.")
    return value


@policy("software_configs:create")
def config_create(req: ApiRequest) -> dict[str, Any]:
    """``POST /software_configs`` (200)."""
    body = req.require_body()
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise errors.HTTPBadRequest("options must be an object.")
    config = req.rpc.create_software_config(
        req.context,
        group=extract_name("group", body.get("group")),
        name=extract_name("name", body.get("name")),
        config=body.get("config"),
        inputs=_list_of_objects(body, "inputs"),
        outputs=_list_of_objects(body, "outputs"),
        options=options,
    )
    return {"software_config": config}


@policy("software_configs:show")
def config_show(req: ApiRequest, config_id: str) -> dict[str, Any]:
    """``GET /software_configs/{id}``."""
    return {
        "software_config": req.rpc.show_software_config(req.context, config_id)
    }


@policy("software_configs:delete")
def config_delete(req: ApiRequest, config_id: str) -> webob.Response:
    """``DELETE /software_configs/{id}`` (204; 409 while referenced)."""
    req.rpc.delete_software_config(req.context, config_id)
    return no_content()


@policy("software_deployments:index")
def deployment_index(req: ApiRequest) -> dict[str, Any]:
    """``GET /software_deployments[?server_id]``."""
    params = allowed_params(req.query, {"server_id": SINGLE})
    deployments = req.rpc.list_software_deployments(req.context, **params)
    return {"software_deployments": deployments}


@policy("software_deployments:metadata")
def deployment_metadata(req: ApiRequest, server_id: str) -> dict[str, Any]:
    """``GET /software_deployments/metadata/{server_id}``."""
    configs = req.rpc.metadata_software_deployments(
        req.context, server_id=server_id
    )
    return {"metadata": configs}


@policy("software_deployments:show")
def deployment_show(req: ApiRequest, deployment_id: str) -> dict[str, Any]:
    """``GET /software_deployments/{id}``."""
    deployment = req.rpc.show_software_deployment(req.context, deployment_id)
    return {"software_deployment": deployment}


_CREATE_KEYS = (
    "config_id",
    "server_id",
    "input_values",
    "action",
    "status",
    "status_reason",
    "stack_user_project_id",
)
_UPDATE_KEYS = (
    "config_id",
    "input_values",
    "output_values",
    "action",
    "status",
    "status_reason",
)


@policy("software_deployments:create")
def deployment_create(req: ApiRequest) -> dict[str, Any]:
    """``POST /software_deployments`` (200)."""
    body = req.require_body()
    data = _checked({key: body.get(key) for key in _CREATE_KEYS})
    deployment = req.rpc.create_software_deployment(req.context, **data)
    return {"software_deployment": deployment}


#: a deployment's string fields and their columns' lengths
_STRING_FIELDS = {
    "config_id": 36,
    "server_id": 36,
    "action": 255,
    "status": 255,
}


def _checked(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` once its string fields are strings that fit their
    columns (else 400, not a database error)."""
    for key, maximum in _STRING_FIELDS.items():
        if key in data:
            data[key] = extract_name(key, data[key], maximum)
    return data


@policy("software_deployments:update")
def deployment_update(req: ApiRequest, deployment_id: str) -> dict[str, Any]:
    """``PUT /software_deployments/{id}``: null or absent keys kept."""
    body = req.require_body()
    data = _checked(
        {k: body[k] for k in _UPDATE_KEYS if body.get(k) is not None}
    )
    deployment = req.rpc.update_software_deployment(
        req.context, deployment_id, **data
    )
    return {"software_deployment": deployment}


@policy("software_deployments:delete")
def deployment_delete(req: ApiRequest, deployment_id: str) -> webob.Response:
    """``DELETE /software_deployments/{id}`` (204)."""
    req.rpc.delete_software_deployment(req.context, deployment_id)
    return no_content()
