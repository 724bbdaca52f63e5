"""Compare a plugin's resource-type views with what Heat answers.

Pack authors keep a copy of Heat's ``GET /resource_types/{type}`` and
``.../template`` bodies and check that their port shows the same schema:
names, types, required, update_allowed, immutable, defaults, constraints,
nested schemas and support status.  Description texts are left out of the
comparison (each project writes its own documentation).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core.plugin_api import schema_views

_DESCRIPTION_KEYS = ("description", "Description")


def strip_descriptions(value: Any) -> Any:
    """A copy of ``value`` without description texts.

    A ``description`` key is dropped when its value is text (or null):
    that leaves properties or parameters *named* ``description`` (whose
    value is a schema map) in place.
    """
    if isinstance(value, Mapping):
        return {
            k: strip_descriptions(v)
            for k, v in value.items()
            if not (
                k in _DESCRIPTION_KEYS and (v is None or isinstance(v, str))
            )
        }
    if isinstance(value, list | tuple):
        return [strip_descriptions(v) for v in value]
    return value


def diff(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Readable differences between two JSON-like values."""
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        problems = []
        for key in sorted(set(expected) | set(actual), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                problems.append(f"{where}: missing")
            elif key not in expected:
                problems.append(f"{where}: unexpected {actual[key]!r}")
            else:
                problems.extend(diff(expected[key], actual[key], where))
        return problems
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: {expected!r} != {actual!r}"]
        problems = []
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            problems.extend(diff(e, a, f"{path}[{i}]"))
        return problems
    if expected != actual or type(expected) is not type(actual):
        if (
            isinstance(expected, int | float)
            and isinstance(actual, int | float)
            and not isinstance(expected, bool)
            and expected == actual
        ):
            return []
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def schema_differences(
    cls: type, type_name: str, heat_schema: Mapping[str, Any]
) -> list[str]:
    """Differences between our resource-type schema and Heat's."""
    ours = schema_views.resource_schema(cls, type_name)
    return diff(strip_descriptions(heat_schema), strip_descriptions(ours))


def template_differences(
    cls: type,
    type_name: str,
    template_type: str,
    heat_template: Mapping[str, Any],
) -> list[str]:
    """Differences between our generated template and Heat's."""
    ours = schema_views.generate_template(cls, type_name, template_type)
    problems = diff(
        strip_descriptions(heat_template), strip_descriptions(ours)
    )
    key = "description" if template_type == "hot" else "Description"
    if heat_template.get(key) != ours.get(key):
        problems.append(
            f"{key}: expected {heat_template.get(key)!r}, "
            f"got {ours.get(key)!r}"
        )
    return problems
