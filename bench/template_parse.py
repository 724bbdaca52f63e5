"""Benchmark: parse and validate big templates (not a test).

1. A ~5 MB HOT template with 2000 resources whose properties hold nested
   functions (str_replace, list_join, map_merge, get_param, get_attr,
   get_resource, if, repeat).
2. A 20-level chain: 20 resources, each reading the previous one's
   attribute through a 20-deep nest of str_replace/get_attr.

Prints seconds and peak Python memory (tracemalloc) for each phase::

    .venv/bin/python bench/template_parse.py
"""

from __future__ import annotations

import json
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from keel_heat_core.template import format as template_format
from keel_heat_core.template import validation, versions
from keel_heat_core.template.protocols import PendingStackView
from keel_heat_core.template.stack_definition import StackDefinition

RESOURCES = 2000
TARGET_BYTES = 5 * 1024 * 1024


def _properties(i: int, padding: str) -> dict[str, Any]:
    prev = f"r{i - 1}" if i else "r0"
    return {
        "value": {
            "str_replace": {
                "template": f"$a-$b-{padding}",
                "params": {
                    "$a": {"list_join": ["-", [{"get_param": "p"}, f"n{i}"]]},
                    "$b": {"get_attr": [prev, "show"]} if i else "start",
                },
            }
        },
        "meta": {
            "map_merge": [
                {"k": {"get_resource": prev}} if i else {},
                {
                    "if": [
                        "big",
                        {
                            "items": {
                                "repeat": {
                                    "template": "item-%x%",
                                    "for_each": {"%x%": ["a", "b", "c"]},
                                }
                            }
                        },
                        {},
                    ]
                },
            ]
        },
    }


def big_template() -> str:
    doc: dict[str, Any] = {
        "heat_template_version": "2021-04-16",
        "parameters": {"p": {"type": "string", "default": "v"}},
        "conditions": {"big": {"equals": [{"get_param": "p"}, "v"]}},
        "resources": {},
        "outputs": {
            "last": {"value": {"get_attr": [f"r{RESOURCES - 1}", "show"]}}
        },
    }
    size = len(json.dumps(doc))
    per = len(json.dumps(_properties(1, ""))) + 60
    padding = "x" * max(0, (TARGET_BYTES - size) // RESOURCES - per)
    for i in range(RESOURCES):
        doc["resources"][f"r{i}"] = {
            "type": "OS::Heat::None",
            "properties": _properties(i, padding),
        }
    return json.dumps(doc, indent=1)


def chain_template(depth: int = 20) -> str:
    resources: dict[str, Any] = {"r0": {"type": "OS::Heat::None"}}
    for i in range(1, depth + 1):
        value: Any = {"get_attr": [f"r{i - 1}", "show"]}
        for level in range(depth):
            value = {
                "str_replace": {
                    "template": f"L{level}($v)",
                    "params": {"$v": value},
                }
            }
        resources[f"r{i}"] = {
            "type": "OS::Heat::None",
            "properties": {"value": value},
        }
    return json.dumps(
        {
            "heat_template_version": "2021-04-16",
            "resources": resources,
            "outputs": {"o": {"value": {"get_attr": [f"r{depth}", "show"]}}},
        }
    )


def measure(work: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds of one run and its result."""
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def peak_memory(work: Callable[[], Any]) -> float:
    """Peak traced memory of one run, in MiB (tracing slows Python down,
    so it is measured apart from the time)."""
    tracemalloc.start()
    work()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


class CreatedView(PendingStackView):
    """Every resource exists; an attribute's value is the resource name."""

    def attribute(self, name: str, attr: str) -> Any:
        return f"<{name}.{attr}>"

    def resource_action(self, name: str) -> str | None:
        return "CREATE"


def resolve_all(defn: StackDefinition) -> list[Any]:
    """Resolve every resource's properties as if all were created."""
    defn.view = CreatedView()
    return [r.properties_data() for r in defn.resource_definitions().values()]


def parse_and_validate(text: str) -> StackDefinition:
    doc = template_format.parse(text, max_size=len(text) + 1)
    tmpl = versions.load(doc)
    defn = StackDefinition(tmpl, {"p": "v"})
    validation.validate_stack(defn)
    validation.dependency_map(defn)
    return defn


def main() -> None:
    import yaml

    big = big_template()
    big_yaml = yaml.safe_dump(json.loads(big), default_flow_style=False)
    chain = chain_template()
    chain_defn = parse_and_validate(chain)
    big_defn = parse_and_validate(big)
    print(f"big template: {len(big) / 2**20:.2f} MiB, {RESOURCES} resources")
    cases: list[tuple[str, Callable[[], Any]]] = [
        (
            "parse (JSON text)",
            lambda: template_format.parse(big, max_size=len(big) + 1),
        ),
        ("parse + validate (JSON text)", lambda: parse_and_validate(big)),
        ("2000 resources: resolve properties", lambda: resolve_all(big_defn)),
        (
            "parse (YAML text)",
            lambda: template_format.parse(
                big_yaml, max_size=len(big_yaml) + 1
            ),
        ),
        ("parse + validate (YAML text)", lambda: parse_and_validate(big_yaml)),
        (
            "20-level chain: parse + validate",
            lambda: parse_and_validate(chain),
        ),
        (
            "20-level chain: resolve properties",
            lambda: resolve_all(chain_defn),
        ),
    ]
    times = [(label, measure(work)[0]) for label, work in cases]
    for (label, seconds), (_, work) in zip(times, cases, strict=True):
        print(
            f"{label:<36} {seconds:8.3f} s   peak {peak_memory(work):8.1f} MiB"
        )


if __name__ == "__main__":
    main()
