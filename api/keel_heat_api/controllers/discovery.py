"""Template versions and functions, resource types, build info, services."""

from __future__ import annotations

import functools
from importlib import metadata
from typing import Any

from keel_heat_api import errors
from keel_heat_api.controllers.base import policy
from keel_heat_api.params import extract_bool
from keel_heat_api.request import ApiRequest
from keel_heat_core.rpc.engine_base import messaging


def _optional_bool(req: ApiRequest, name: str) -> bool:
    value = req.query.get(name)
    return False if value is None else extract_bool(name, value)


@policy("stacks:list_template_versions")
def list_template_versions(req: ApiRequest) -> dict[str, Any]:
    """``GET /template_versions``."""
    return {"template_versions": req.rpc.list_template_versions(req.context)}


@policy("stacks:list_template_functions")
def list_template_functions(
    req: ApiRequest, template_version: str
) -> dict[str, Any]:
    """``GET /template_versions/{v}/functions``."""
    with_condition = _optional_bool(req, "with_condition_func")
    functions = req.rpc.list_template_functions(
        req.context, template_version, with_condition
    )
    return {"template_functions": functions}


@policy("stacks:list_resource_types")
def list_resource_types(req: ApiRequest) -> dict[str, Any]:
    """``GET /resource_types``."""
    types = req.rpc.list_resource_types(
        req.context,
        support_status=req.query.get("support_status"),
        type_name=req.query.get("name"),
        heat_version=req.query.get("version"),
        with_description=_optional_bool(req, "with_description"),
    )
    return {"resource_types": types}


@policy("stacks:resource_schema")
def resource_schema(req: ApiRequest, type_name: str) -> Any:
    """``GET /resource_types/{type}``; ``with_description`` is honoured."""
    return req.rpc.resource_schema(
        req.context,
        type_name,
        with_description=_optional_bool(req, "with_description"),
    )


@policy("stacks:generate_template")
def generate_template(req: ApiRequest, type_name: str) -> Any:
    """``GET /resource_types/{type}/template``."""
    template_type = "cfn"
    if "template_type" in req.query:
        value = req.query.get("template_type")
        template_type = str(value).lower()
        if template_type not in ("cfn", "hot"):
            raise errors.HTTPBadRequest(
                "Template type is not supported: Invalid template type "
                f'"{value}", valid types are: cfn, hot.'
            )
    return req.rpc.generate_template(req.context, type_name, template_type)


def installed_packs() -> list[dict[str, str]]:
    """Return the resource packs and client plugins installed when this
    process first asked (what it and its engines were started with)."""
    return [dict(pack) for pack in _scan_packs()]


@functools.cache
def _scan_packs() -> tuple[dict[str, str], ...]:
    # walking every installed distribution's metadata takes 20-40 ms: an
    # admin's GET /build_info did it at every request
    packs = []
    for dist in metadata.distributions():
        name = dist.metadata["Name"] or ""
        normal = name.lower().replace("_", "-")
        if normal.startswith(("keel-heat-pack-", "keel-heat-client-")):
            packs.append({"name": normal, "version": dist.version})
    return tuple(sorted(packs, key=lambda p: p["name"]))


@policy("build_info:build_info")
def build_info(req: ApiRequest) -> dict[str, Any]:
    """``GET /build_info``; admins also see the installed packs."""
    engine_revision = req.rpc.get_revision(req.context)
    info: dict[str, Any] = {
        "api": {"revision": req.conf.revision.heat_revision},
        "engine": {"revision": engine_revision},
    }
    if req.context.is_admin:
        info["packs"] = installed_packs()
    return info


@policy("service:index")
def list_services(req: ApiRequest) -> dict[str, Any]:
    """``GET /services``; 503 when no engine answers."""
    try:
        services = req.rpc.list_services(req.context)
    except messaging.MessagingTimeout:
        raise errors.HTTPServiceUnavailable(
            "All heat engines are down."
        ) from None
    return {"services": services}
