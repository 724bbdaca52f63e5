"""Evaluate template snippets through the real parser and functions."""

from __future__ import annotations

from typing import Any

from keel_heat_core.template import function, versions
from keel_heat_core.template.stack_definition import StackDefinition


def evaluate(
    snippet: Any,
    version: str = "2021-04-16",
    params: dict[str, Any] | None = None,
    conditions: dict[str, Any] | None = None,
) -> Any:
    """Parse, validate and resolve ``snippet`` as an output value would
    be."""
    doc: dict[str, Any] = {"heat_template_version": version}
    if conditions is not None:
        doc["conditions"] = conditions
    tmpl = versions.load(doc)
    defn = StackDefinition(tmpl, params or {})
    parsed = tmpl.parse(defn, snippet, "outputs.o.value")
    function.validate(parsed, ["outputs", "o", "value"])
    return function.resolve(parsed)
