"""Template (provider) resources: a resource type implemented by a template.

The pure, template-level half of Heat's ``TemplateResource``:

* :class:`ProviderTemplate` reads the nested template and derives the
  resource's property schema (one property per parameter) and attribute
  schema (one attribute per output);
* :func:`child_params` turns the resource's property values into the
  nested stack's parameter values;
* :func:`validate_against_facade` checks a provider against the real type
  it stands in for;
* :func:`get_template_file` fetches a template by URL (only the allowed
  schemes; http(s) only from the hosts that
  :mod:`keel_heat_core.remote_templates` allows),
  :func:`check_nested_depth` enforces ``max_nested_stack_depth``.

The engine wraps these in its stack-backed resource class.
"""

from __future__ import annotations

import dataclasses
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core import remote_templates as remote
from keel_heat_core.template import constraints as constr
from keel_heat_core.template import format as template_format
from keel_heat_core.template import parameters as params_mod

REMOTE_SCHEMES = ("http", "https")
LOCAL_SCHEMES = ("file",)
STACK_ID_OUTPUT = "OS::stack_id"
MAX_NESTED_STACK_DEPTH = 5
MAX_TEMPLATE_SIZE = 524288

#: Parameter kind -> property type of the provider's property schema.
PROPERTY_TYPES = {
    constr.STRING: "String",
    constr.NUMBER: "Number",
    constr.LIST: "List",
    constr.MAP: "Map",
    constr.BOOLEAN: "Boolean",
}

_VERSION_KEYS = (
    "heat_template_version",
    "AWSTemplateFormatVersion",
    "HeatTemplateFormatVersion",
)


@dataclasses.dataclass
class PropertySpec:
    """The property a provider derives from one nested parameter."""

    type: str
    description: Any = None
    required: bool = False
    constraints: list[constr.Constraint] = dataclasses.field(
        default_factory=list
    )
    update_allowed: bool = True
    immutable: bool = False
    #: json parameters accept text and lists through a Map property
    allow_conversion: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The property as ``resource_types/<type>`` shows it."""
        result: dict[str, Any] = {"type": self.type.lower()}
        if self.description is not None:
            result["description"] = self.description
        result["required"] = self.required
        result["update_allowed"] = self.update_allowed
        result["immutable"] = self.immutable
        if self.constraints:
            result["constraints"] = [c.to_dict() for c in self.constraints]
        return result


@dataclasses.dataclass
class AttributeSpec:
    """The attribute a provider derives from one nested output."""

    description: Any = None


class ProviderTemplate:
    """A nested template seen as a resource type.

    :param name: the registry name of the type (``My::Server`` or
        ``server.yaml``).
    :param template: the parsed nested template.
    :param param_defaults: the environment's ``parameter_defaults``, which
        replace the nested template's defaults (and so make a property
        optional).
    """

    def __init__(
        self,
        name: str,
        template: Mapping[str, Any],
        param_defaults: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.template = template
        self.param_defaults = dict(param_defaults or {})
        self.version = _version_of(template)
        self.hot = self.version.startswith("heat_template_version")
        schema_class = params_mod.schema_class_for(self.version)
        section = template.get("parameters" if self.hot else "Parameters")
        self.param_schemata = params_mod.param_schemata(
            schema_class, section, self.param_defaults
        )

    @classmethod
    def from_text(
        cls,
        name: str,
        data: Any,
        param_defaults: Mapping[str, Any] | None = None,
    ) -> ProviderTemplate:
        """Parse template text (or take an already parsed map)."""
        if isinstance(data, Mapping):
            return cls(name, data, param_defaults)
        return cls(name, template_format.parse(data, url=name), param_defaults)

    @property
    def description(self) -> Any:
        """The nested template's description (the type's documentation)."""
        key = "description" if self.hot else "Description"
        return self.template.get(key)

    def properties_schema(self) -> dict[str, PropertySpec]:
        """One property per nested parameter."""
        result = {}
        for name, schema in self.param_schemata.items():
            result[name] = PropertySpec(
                type=PROPERTY_TYPES[schema.kind],
                description=schema.description,
                required=schema.required,
                constraints=list(schema.constraints),
                allow_conversion=schema.kind in (constr.MAP, constr.LIST),
            )
        return result

    def attributes_schema(self) -> dict[str, AttributeSpec]:
        """One attribute per nested output (descriptions from CFN
        ``Description`` only: HOT output descriptions are lost, as in
        Heat)."""
        outputs = self.template.get("outputs" if self.hot else "Outputs")
        if not isinstance(outputs, Mapping):
            return {}
        return {
            name: AttributeSpec(
                out.get("Description") if isinstance(out, Mapping) else None
            )
            for name, out in outputs.items()
        }


def _version_of(template: Mapping[str, Any]) -> str:
    for key in _VERSION_KEYS:
        if key in template:
            return f"{key}.{template[key]}"
    raise ValueError("Template format version not found.")


def child_params(
    values: Mapping[str, Any], property_types: Mapping[str, str]
) -> dict[str, Any]:
    """The nested stack's parameters from the resource's property values.

    :param values: the properties the user set (resolved), by name.
    :param property_types: each property's type (``List``, ``Map``...).

    Lists become comma-joined text (``None`` items empty); a list of maps
    becomes AWS member text (``.member.0.x=1,...``); others pass as they
    are.
    """
    params: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        if property_types.get(name) == "List" and isinstance(value, list):
            params[name] = _list_param(value)
        else:
            params[name] = value
    return params


def _list_param(value: list[Any]) -> str:
    if not value:
        return ""
    if isinstance(value[0], dict):
        members = []
        for count, item in enumerate(value):
            for key, val in item.items():
                members.append(f".member.{count}.{key}={val}")
        return ",".join(members)
    return ",".join("" if x is None else str(x) for x in value)


def validate_against_facade(
    type_name: str,
    provider_props: Mapping[str, Any],
    provider_attrs: Iterable[str],
    facade_props: Mapping[str, Any],
    facade_attrs: Iterable[str],
) -> None:
    """Check a provider template matches the type it stands in for.

    Property schemas need ``required`` and ``type`` (a facade ``Integer``
    matches a provider ``Number``).

    :raises StackValidationFailed: with Heat's facade messages.
    """
    for name, fs in facade_props.items():
        if fs.required and name not in provider_props:
            raise exception.StackValidationFailed(
                message=f"Required property {name} for facade {type_name} "
                "missing in provider"
            )
        if name in provider_props:
            ps_type = provider_props[name].type
            fs_type = "Number" if fs.type == "Integer" else fs.type
            if fs_type != ps_type:
                raise exception.StackValidationFailed(
                    message=f"Property {name} type mismatch between facade "
                    f"{type_name} ({fs.type}) and provider ({ps_type})"
                )
    for name, ps in provider_props.items():
        if ps.required and name not in facade_props:
            raise exception.StackValidationFailed(
                message=f"Provider requires property {name} unknown in "
                f"facade {type_name}"
            )
    provided = set(provider_attrs)
    for attr in facade_attrs:
        if attr not in provided:
            raise exception.StackValidationFailed(
                message=f"Attribute {attr} for facade {type_name} missing "
                "in provider"
            )


def check_nested_depth(
    parent_depth: int, max_depth: int = MAX_NESTED_STACK_DEPTH
) -> None:
    """Refuse a child stack below a parent already at the maximum depth.

    :raises RequestLimitExceeded: ``Request limit exceeded: Recursion depth
        exceeds 5.``
    """
    if parent_depth >= max_depth:
        raise exception.RequestLimitExceeded(
            message=f"Recursion depth exceeds {max_depth}."
        )


URLFetchError = remote.URLFetchError


def fetch(
    url: str,
    allowed_schemes: Iterable[str] = REMOTE_SCHEMES,
    max_size: int = MAX_TEMPLATE_SIZE,
) -> str:
    """The text at ``url`` (``file``, ``http`` or ``https``, if allowed).

    :raises URLFetchError: ``Invalid URL scheme x``, or the fetch error.
    """
    scheme = urllib.parse.urlparse(url).scheme
    if scheme not in tuple(allowed_schemes):
        raise URLFetchError(f"Invalid URL scheme {scheme}")
    if scheme == "file":
        try:
            with open(urllib.parse.urlparse(url).path) as handle:
                text = handle.read(max_size + 1)
        except OSError as exc:
            raise URLFetchError(f"Failed to retrieve template: {exc}") from exc
        if len(text) > max_size:
            raise URLFetchError(
                f"Template exceeds maximum allowed size ({max_size} bytes)"
            )
        return text
    # hosts, size and time as the operator allows, like template_url
    return remote.fetch(url).decode("utf-8", errors="replace")


def get_template_file(
    template_name: str, allowed_schemes: Iterable[str]
) -> str:
    """Fetch a provider template.

    :raises NotFound: ``Could not fetch remote template "x": ...``.
    """
    try:
        return fetch(template_name, allowed_schemes)
    except OSError as exc:
        raise exception.NotFound(
            msg_fmt=f'Could not fetch remote template "{template_name}": {exc}'
        ) from exc


def _facade_schemas(facade: Any) -> tuple[dict[str, Any], list[str]]:
    if isinstance(facade, ProviderTemplate):
        return facade.properties_schema(), list(facade.attributes_schema())
    props = dict(getattr(facade, "properties_schema", None) or {})
    attrs = [
        *(getattr(facade, "attributes_schema", None) or {}),
        *(getattr(facade, "base_attributes_schema", None) or {}),
    ]
    return props, attrs


def validate_template_resource(
    env: Any,
    resource_type: str,
    resource_name: str,
    files: Mapping[str, Any] | None,
) -> ProviderTemplate:
    """Validate a template resource the way Heat's TemplateResource does.

    Finds the template entry for the type, reads the template (``files``
    first, then a fetch with the schemes the entry allows), derives its
    schemas and, when the type also names a real implementation (a
    facade), checks the provider against it.

    :param env: the stack's environment.
    :raises StackValidationFailed: ``Could not fetch remote template
        "x": ...``, ``Only Templates with an extension of .yaml or
        .template are supported``, a parse error, or a facade mismatch.
    """
    from keel_heat_core.template import registry

    try:
        info = env.get_resource_info(
            resource_type,
            resource_name=resource_name,
            registry_type=registry.TemplateResourceInfo,
        )
    except exception.EntityNotFound as exc:
        raise exception.StackValidationFailed(
            message="Only Templates with an extension of .yaml or "
            ".template are supported"
        ) from exc
    name = info.template_name
    if files and name in files:
        data = files[name]
    else:
        schemes: tuple[str, ...] = REMOTE_SCHEMES
        if not info.user_resource:
            schemes = REMOTE_SCHEMES + LOCAL_SCHEMES
        try:
            data = get_template_file(name, schemes)
        except exception.NotFound as exc:
            raise exception.StackValidationFailed(message=str(exc)) from exc
    try:
        prov = ProviderTemplate.from_text(
            str(info.name), data, env.param_defaults
        )
    except ValueError as exc:
        raise exception.StackValidationFailed(message=str(exc)) from exc
    try:
        facade_info = env.get_resource_info(
            resource_type, resource_name=resource_name, ignore=info
        )
    except exception.EntityNotFound:
        return prov
    facade = facade_info.get_class(files=files)
    props, attrs = _facade_schemas(facade)
    validate_against_facade(
        resource_type,
        prov.properties_schema(),
        [*prov.attributes_schema(), "show"],
        props,
        attrs,
    )
    return prov


def check_template_recursion(
    env: Any,
    resource_type: str,
    resource_name: str,
    files: Mapping[str, Any] | None,
    section: str,
    depth: int = 0,
    max_depth: int = MAX_NESTED_STACK_DEPTH,
) -> None:
    """Refuse template resources nested deeper than ``max_depth`` (one
    that includes itself), before any stack is created, as Heat's
    validation of the child stacks does.

    Follows the templates in ``files`` through each child's environment
    (without the entry that made it, as the child stack gets it); a
    template that cannot be read here is left to the other checks.

    :param section: the name of the resources section of the template
        that holds the resource (``resources`` or ``Resources``).
    :param depth: the nested depth of the stack that holds it.
    :raises StackValidationFailed: ``RequestLimitExceeded: resources.
        r<t.yaml>...: Request limit exceeded: Recursion depth exceeds 5.``
    """
    from keel_heat_core.template import environment, registry

    try:
        info = env.get_resource_info(
            resource_type,
            resource_name=resource_name,
            registry_type=registry.TemplateResourceInfo,
        )
    except exception.EntityNotFound:
        return
    data = (files or {}).get(info.template_name)
    path = [section, f"{resource_name}<{info.template_name}>"]
    try:
        check_nested_depth(depth, max_depth)
        if data is None:
            return
        try:
            child = ProviderTemplate.from_text(info.template_name, data)
        except (ValueError, exception.HeatException):
            return
        child_env = environment.get_child_environment(
            env, None, item_to_remove=info, child_resource_name=resource_name
        )
        hot = child.hot
        resources = child.template.get("resources" if hot else "Resources")
        if not isinstance(resources, Mapping):
            return
        for name, rdef in resources.items():
            kind = (
                rdef.get("type" if hot else "Type")
                if isinstance(rdef, Mapping)
                else None
            )
            if isinstance(kind, str):
                check_template_recursion(
                    child_env,
                    kind,
                    name,
                    files,
                    "resources" if hot else "Resources",
                    depth + 1,
                    max_depth,
                )
    except (
        exception.RequestLimitExceeded,
        exception.StackValidationFailed,
    ) as exc:
        raise exception.StackValidationFailed(exc, path=path) from exc
