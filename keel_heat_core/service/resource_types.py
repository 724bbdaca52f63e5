"""Resource types and template versions as the engine API lists them."""

from __future__ import annotations

import pydoc
import re
from typing import Any

from keel_heat_core import exception
from keel_heat_core.plugin_api import schema_views
from keel_heat_core.template import versions
from keel_heat_core.template.environment import global_env

HIDDEN = "HIDDEN"


def _class_of(info: Any) -> Any:
    try:
        return info.get_class()
    except Exception:
        return None


def _status(cls: Any) -> Any:
    return getattr(cls, "support_status", None)


def list_resource_types(
    support_status: str | None = None,
    type_name: str | None = None,
    heat_version: str | None = None,
    with_description: bool = False,
) -> list[Any]:
    """Names (or ``{resource_type, description}``) of the usable types.

    Hidden types are never listed; ``type_name`` is a regular expression
    matched at the start of the name; ``support_status`` and
    ``heat_version`` filter on the class's support status.
    """

    def keep(name: str, info: Any) -> bool:
        cls = _class_of(info)
        status = _status(cls)
        if status is not None and status.status == HIDDEN:
            return False
        if type_name is not None and not re.match(type_name, name):
            return False
        if support_status is not None and (
            status is None or status.status != support_status.upper()
        ):
            return False
        return not (
            heat_version is not None
            and (status is None or status.version != heat_version)
        )

    names = sorted(global_env().registry.type_names(keep))
    if not with_description:
        return names
    return [
        {
            "resource_type": name,
            "description": schema_views.description_of(_type_class(name)),
        }
        for name in names
    ]


def _type_class(type_name: str) -> Any:
    try:
        cls = global_env().get_class(type_name)
    except Exception as exc:
        raise exception.EntityNotFound(
            entity="Resource Type", name=type_name
        ) from exc
    if cls is None or not isinstance(cls, type):
        raise exception.EntityNotFound(entity="Resource Type", name=type_name)
    status = _status(cls)
    if status is not None and status.status == HIDDEN:
        raise exception.NotSupported(feature=type_name)
    return cls


def resource_schema(type_name: str, with_description: bool = False) -> Any:
    """``resource_schema`` of engine API 1.30."""
    return schema_views.resource_schema(
        _type_class(type_name), type_name, with_description
    )


def generate_template(type_name: str, template_type: str = "cfn") -> Any:
    """``generate_template`` of engine API 1.9."""
    return schema_views.generate_template(
        _type_class(type_name), type_name, template_type
    )


def list_template_functions(
    template_version: str, with_condition: bool = False
) -> list[dict[str, str]]:
    """``[{functions, description}]`` of a template version."""
    cls = versions.template_classes().get(template_version)
    if cls is None:
        raise exception.NotFound(
            f"Template with version {template_version} not found"
        )
    out = []
    for name, fn in cls.function_table(with_condition).items():
        # the function's ``description`` is the API text; its docstring
        # stands in for a function that has none
        summary = (
            getattr(fn, "description", "")
            or (pydoc.splitdoc(pydoc.getdoc(fn))[0])
        )
        out.append({"functions": name, "description": summary})
    return out
