"""The resource-type reference: one Markdown page per installed type.

Pages are rendered from the schema the API serves for a type (``GET
/resource_types/<type>?with_description=true``), so the reference says
exactly what the installed packs declare: each property's type,
whether it is required, its default, constraints, and what an update
of it does; each attribute; the type's support status and its pack.
``keel-heat-manage packs docs`` prints or writes them; the pages of the
packs in this repository are kept in ``docs/resource-types/``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

#: what an update of a property does, by (update_allowed, immutable)
UPDATE_EFFECT = {
    (True, False): "updated in place",
    (False, False): "an update replaces the resource",
    (False, True): "cannot be updated: an update that changes it fails",
    (True, True): "cannot be updated: an update that changes it fails",
}


def file_name(type_name: str) -> str:
    """``OS::Heat::RandomString`` → ``OS__Heat__RandomString.md``."""
    return type_name.replace("::", "__") + ".md"


def _value(value: Any) -> str:
    return "`" + json.dumps(value, sort_keys=True) + "`"


def _bounds(value: Mapping[str, Any]) -> str:
    low, high = value.get("min"), value.get("max")
    if low is not None and high is not None:
        return f"from {_value(low)} to {_value(high)}"
    if low is not None:
        return f"at least {_value(low)}"
    return f"at most {_value(high)}"


def _constraint(constraint: Mapping[str, Any]) -> str:
    parts = []
    for kind, value in constraint.items():
        if kind == "description":
            continue
        if kind == "allowed_values":
            parts.append("one of " + ", ".join(_value(v) for v in value))
        elif kind == "range":
            parts.append(_bounds(value))
        elif kind == "length":
            parts.append("of length " + _bounds(value))
        elif kind == "allowed_pattern":
            parts.append(f"matching {_value(value)}")
        elif kind == "custom_constraint":
            parts.append(f"a valid `{value}`")
        elif kind == "modulo":
            parts.append(
                f"{_value(value.get('offset'))} modulo"
                f" {_value(value.get('step'))}"
            )
        else:
            parts.append(f"{kind} {_value(value)}")
    text = "; ".join(parts)
    if constraint.get("description"):
        text += f" ({constraint['description']})"
    return text


def _status(status: Mapping[str, Any]) -> str:
    text = str(status.get("status") or "SUPPORTED")
    if status.get("version"):
        text += f" since {status['version']}"
    if status.get("message"):
        text += f": {status['message']}"
    previous = status.get("previous_status")
    if previous:
        text += f" (before: {_status(previous)})"
    return text


def _property(
    name: str, schema: Mapping[str, Any], depth: int
) -> Iterable[str]:
    indent = "  " * depth
    facts = [f"`{schema.get('type', 'any')}`"]
    facts.append("required" if schema.get("required") else "optional")
    if "default" in schema:
        facts.append(f"default {_value(schema['default'])}")
    if depth == 0:
        effect = (
            bool(schema.get("update_allowed")),
            bool(schema.get("immutable")),
        )
        facts.append(UPDATE_EFFECT[effect])
    line = f"{indent}- **{name}** ({', '.join(facts)})"
    if schema.get("description"):
        line += f": {schema['description']}"
    yield line
    for constraint in schema.get("constraints") or ():
        yield f"{indent}  - must be {_constraint(constraint)}"
    for child, child_schema in sorted((schema.get("schema") or {}).items()):
        label = "each item" if child == "*" else child
        yield from _property(label, child_schema, depth + 1)


def render_type(
    schema: Mapping[str, Any], distribution: str, version: str
) -> str:
    """The page of one type.

    :param schema: the API's schema of the type, with its description.
    :param distribution: the pack that provides the type.
    :param version: that pack's version.
    """
    name = schema["resource_type"]
    lines = [f"# {name}", ""]
    lines.append(f"- Support status: {_status(schema['support_status'])}")
    lines.append(f"- Provided by: `{distribution}` {version}")
    lines.append("")
    if schema.get("description"):
        lines += [schema["description"].strip(), ""]
    lines += ["## Properties", ""]
    properties = schema.get("properties") or {}
    if not properties:
        lines.append("None.")
    for prop, prop_schema in sorted(properties.items()):
        lines.extend(_property(prop, prop_schema, 0))
    lines += ["", "## Attributes", ""]
    for attr, attr_schema in sorted((schema.get("attributes") or {}).items()):
        kind = attr_schema.get("type")
        label = f"**{attr}**" + (f" (`{kind}`)" if kind else "")
        text = attr_schema.get("description") or ""
        lines.append(f"- {label}: {text}".rstrip(": ").rstrip())
    return "\n".join(lines).rstrip() + "\n"


def render_index(types: Mapping[str, tuple[str, str]]) -> str:
    """The index page: each type with its pack.

    :param types: type name to (distribution, support status text).
    """
    lines = [
        "# Resource types",
        "",
        "Generated by `keel-heat-manage packs docs` from the schemas of the"
        " installed packs; do not edit by hand.",
        "",
        "| type | pack | support status |",
        "|---|---|---|",
    ]
    for name, (distribution, status) in sorted(types.items()):
        link = f"[{name}]({file_name(name)})"
        lines.append(f"| {link} | `{distribution}` | {status} |")
    return "\n".join(lines) + "\n"


def status_text(schema: Mapping[str, Any]) -> str:
    """The support status of a type, in one line."""
    return _status(schema["support_status"])
