"""What the resource-type API shows of a plugin class.

Pure functions over a Resource class:

* :func:`resource_schema` is the body of
  ``GET /v1/{tenant}/resource_types/{type}``;
* :func:`generate_template` is the body of
  ``GET /v1/{tenant}/resource_types/{type}/template``: a provider template
  (HOT or CFN) whose parameters mirror the properties and whose outputs
  mirror the attributes.

HIDDEN properties and attributes are left out of both, as are properties
that are not implemented.  Heat fails with a 500 (``KeyError: 'Any'``) on
the template of a type with an ``Any`` property; here such a property
becomes a ``json`` parameter instead.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core.plugin_api import attributes, support
from keel_heat_core.template import constraints as constr
from keel_heat_core.template.property_schema import Schema, visible_schemata

TEMPLATE_TYPES = (HOT, CFN) = ("hot", "cfn")

_HOT_TYPES = {
    Schema.INTEGER: "number",
    Schema.STRING: "string",
    Schema.NUMBER: "number",
    Schema.BOOLEAN: "boolean",
    Schema.MAP: "json",
    Schema.LIST: "comma_delimited_list",
    Schema.ANY: "json",
}
_CFN_TYPES = {
    Schema.INTEGER: "Number",
    Schema.STRING: "String",
    Schema.NUMBER: "Number",
    Schema.BOOLEAN: "Boolean",
    Schema.MAP: "Json",
    Schema.LIST: "CommaDelimitedList",
    Schema.ANY: "Json",
}
_BOOLEAN_VALUES = ["True", "true", "False", "false"]


def description_of(cls: type) -> str:
    """The user documentation of a resource class (its docstring)."""
    return inspect.getdoc(cls) or ""


def _attribute_schemas(cls: type) -> dict[str, attributes.Schema]:
    own = attributes.visible_schemata(getattr(cls, "attributes_schema", {}))
    base = getattr(
        cls, "base_attributes_schema", attributes.BASE_ATTRIBUTES_SCHEMA
    )
    own.update(attributes.schemata(base))
    return own


def resource_schema(
    cls: type, type_name: str, with_description: bool = False
) -> dict[str, Any]:
    """The schema of a resource type as the API shows it.

    :param cls: the Resource class.
    :param type_name: the registered type name.
    :param with_description: add the class docstring as ``description``.
    """
    props = visible_schemata(getattr(cls, "properties_schema", {}))
    status: support.SupportStatus = getattr(
        cls, "support_status", support.SupportStatus()
    )
    result: dict[str, Any] = {
        "resource_type": type_name,
        "properties": {n: _plain(dict(s)) for n, s in props.items()},
        "attributes": {n: dict(s) for n, s in _attribute_schemas(cls).items()},
        "support_status": status.to_dict(),
    }
    if with_description:
        result["description"] = description_of(cls)
    return result


def _plain(value: Any) -> Any:
    """A JSON-like copy (tuples become lists, as after a JSON round trip)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _min_max(c: constr.Range) -> Iterator[tuple[str, Any]]:
    if c.min is not None:
        yield "min", c.min
    if c.max is not None:
        yield "max", c.max


def _hot_parameter(schema: Schema) -> dict[str, Any]:
    param: dict[str, Any] = {"type": _HOT_TYPES[schema.type]}
    if schema.description is not None:
        param["description"] = schema.description
    if schema.default is not None:
        param["default"] = _plain(schema.default)
    items: list[dict[str, Any]] = []
    for c in schema.constraints:
        if isinstance(c, constr.Length):
            items.append({"length": dict(_min_max(c))})
        elif isinstance(c, constr.Range):
            items.append({"range": dict(_min_max(c))})
        elif isinstance(c, constr.AllowedValues):
            items.append({"allowed_values": list(c.allowed)})
        elif isinstance(c, constr.AllowedPattern):
            items.append({"allowed_pattern": c.pattern})
        else:
            items.append({})
    if items:
        param["constraints"] = items
    return param


def _cfn_parameter(schema: Schema) -> dict[str, Any]:
    param: dict[str, Any] = {"Type": _CFN_TYPES[schema.type]}
    if schema.description is not None:
        param["Description"] = schema.description
    if schema.default is not None:
        param["Default"] = _plain(schema.default)
    for c in schema.constraints:
        if isinstance(c, constr.Length):
            for key, value in _min_max(c):
                param["MinLength" if key == "min" else "MaxLength"] = value
        elif isinstance(c, constr.Range):
            for key, value in _min_max(c):
                param["MinValue" if key == "min" else "MaxValue"] = value
        elif isinstance(c, constr.AllowedValues):
            param["AllowedValues"] = list(c.allowed)
        elif isinstance(c, constr.AllowedPattern):
            param["AllowedPattern"] = c.pattern
    if schema.type == Schema.BOOLEAN:
        param["AllowedValues"] = list(_BOOLEAN_VALUES)
    return param


def _outputs(
    resource_name: str, cls: type, template_type: str
) -> dict[str, Any]:
    outputs: dict[str, Any] = {}
    for name, schema in _attribute_schemas(cls).items():
        if template_type == HOT:
            outputs[name] = {
                "value": {"get_attr": [resource_name, name]},
                "description": schema.description,
            }
        else:
            outputs[name] = {
                "Value": {"Fn::GetAtt": [resource_name, name]},
                "Description": schema.description,
            }
    if template_type == HOT:
        outputs["OS::stack_id"] = {"value": {"get_resource": resource_name}}
    else:
        outputs["OS::stack_id"] = {"Value": {"Ref": resource_name}}
    return outputs


def template_resource_name(cls: type) -> str:
    """The resource name used in generated templates (the class name)."""
    return str(getattr(cls, "template_resource_name", None) or cls.__name__)


def generate_template(
    cls: type, type_name: str, template_type: str = CFN
) -> dict[str, Any]:
    """A provider template equivalent to the resource type.

    :param cls: the Resource class.
    :param type_name: the registered type name.
    :param template_type: ``"hot"`` or ``"cfn"`` (anything else: cfn).
    """
    props = visible_schemata(getattr(cls, "properties_schema", {}))
    name = template_resource_name(cls)
    hot = template_type == HOT
    params: dict[str, Any] = {}
    resource_props: dict[str, Any] = {}
    for prop, schema in props.items():
        if hot:
            params[prop] = _hot_parameter(schema)
            resource_props[prop] = {"get_param": prop}
        else:
            params[prop] = _cfn_parameter(schema)
            if schema.type == Schema.LIST:
                resource_props[prop] = {"Fn::Split": [",", {"Ref": prop}]}
            else:
                resource_props[prop] = {"Ref": prop}
    outputs = _outputs(name, cls, HOT if hot else CFN)
    description = f"Initial template of {name}"
    if hot:
        return {
            "heat_template_version": "2016-10-14",
            "description": description,
            "parameters": params,
            "outputs": outputs,
            "resources": {
                name: {"type": type_name, "properties": resource_props}
            },
        }
    return {
        "HeatTemplateFormatVersion": "2012-12-12",
        "Description": description,
        "Parameters": params,
        "Outputs": outputs,
        "Resources": {name: {"Type": type_name, "Properties": resource_props}},
    }


def ensure_visible(cls: type, type_name: str) -> None:
    """Refuse to show a HIDDEN type, as Heat does.

    :raises NotSupported: ``<type> is not supported.``
    """
    status = getattr(cls, "support_status", support.SupportStatus())
    if support.is_hidden(status):
        raise exception.NotSupported(feature=type_name)


def list_types(
    types: Mapping[str, type],
    support_status: str | None = None,
    type_name: str | None = None,
    version: str | None = None,
    with_description: bool = False,
    available: Callable[[str, type], bool] | None = None,
    allowed: Callable[[str], bool] | None = None,
) -> list[Any]:
    """The body of ``GET /resource_types``, filtered like Heat's.

    :param types: registered type name to class.
    :param support_status: keep only types with this status.
    :param type_name: a regular expression the name must match (from its
        start); an invalid expression matches nothing.
    :param version: keep only types whose support status has this version.
    :param with_description: answer ``{"resource_type", "description"}``
        maps instead of names.
    :param available: whether the type's service is in the catalog.
    :param allowed: whether policy lets the caller use the type.
    :raises Invalid: for an unknown ``support_status``.
    """
    if support_status is not None and not support.is_valid_status(
        support_status
    ):
        raise exception.Invalid(
            reason="Invalid support status and should be one of "
            f"{support.SUPPORT_STATUSES}"
        )

    def name_matches(name: str) -> bool:
        if type_name is None:
            return True
        try:
            return re.match(type_name, name) is not None
        except re.error:
            return False

    result: list[Any] = []
    for name, cls in types.items():
        status: support.SupportStatus = getattr(
            cls, "support_status", support.SupportStatus()
        )
        if support.is_hidden(status) or not name_matches(name):
            continue
        if support_status is not None and status.status != support_status:
            continue
        if version is not None and status.version != version:
            continue
        if available is not None and not _safe(available, name, cls):
            continue
        if allowed is not None and not allowed(name):
            continue
        if with_description:
            result.append(
                {"resource_type": name, "description": description_of(cls)}
            )
        else:
            result.append(name)
    return result


def _safe(check: Callable[[str, type], bool], name: str, cls: type) -> bool:
    try:
        return bool(check(name, cls))
    except Exception:
        return False


def find_type(types: Mapping[str, type], type_name: str) -> type:
    """The class of a registered type that users may see.

    :raises EntityNotFound: ``The Resource Type (X) could not be found.``
        (404) for an unknown name.
    :raises NotSupported: for a HIDDEN type (400).
    """
    cls = types.get(type_name)
    if cls is None:
        raise exception.EntityNotFound(entity="Resource Type", name=type_name)
    ensure_visible(cls, type_name)
    return cls


def show_type(
    types: Mapping[str, type], type_name: str, with_description: bool = False
) -> dict[str, Any]:
    """``GET /resource_types/{type}`` (see :func:`find_type` for errors)."""
    cls = find_type(types, type_name)
    return resource_schema(cls, type_name, with_description)


def type_template(
    types: Mapping[str, type], type_name: str, template_type: str = CFN
) -> dict[str, Any]:
    """``GET /resource_types/{type}/template`` (see :func:`find_type`)."""
    return generate_template(
        find_type(types, type_name), type_name, template_type
    )
