"""Templates for the benchmark shapes.

Each shape builds a HOT template (and a files map for template
resources) with ``n`` resources whose one property carries ``value``;
an update is the same shape with another value, so every resource
changes one property.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

VERSION = "2021-04-16"

Shape = Callable[[int, str, str], tuple[dict[str, Any], dict[str, str]]]


def _member(rtype: str, value: str) -> dict[str, Any]:
    if rtype == "OS::Heat::TestResource":
        return {"type": rtype, "properties": {"value": value}}
    return {"type": rtype, "properties": {"marker": value}}


def wide(
    n: int, value: str, rtype: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """N independent resources."""
    resources = {f"r{i}": _member(rtype, value) for i in range(n)}
    return {"heat_template_version": VERSION, "resources": resources}, {}


def chain(
    n: int, value: str, rtype: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """N resources, each depending on the one before it."""
    resources: dict[str, Any] = {}
    for i in range(n):
        res = _member(rtype, value)
        if i:
            res["depends_on"] = [f"r{i - 1}"]
        resources[f"r{i}"] = res
    return {"heat_template_version": VERSION, "resources": resources}, {}


def group(
    n: int, value: str, rtype: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """One OS::Heat::ResourceGroup of N members."""
    resources = {
        "group": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": n,
                "resource_def": _member(rtype, value),
            },
        }
    }
    return {"heat_template_version": VERSION, "resources": resources}, {}


def nested(
    n: int, value: str, rtype: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """Template resources three levels deep; the deepest holds N members.

    The value travels down as a parameter, so an update changes every
    member's property through all three levels.
    """
    param = {"value": {"type": "string"}}
    leaf_resources = {f"r{i}": _member(rtype, "{{V}}") for i in range(n)}
    leaf = json.loads(
        json.dumps(leaf_resources).replace(
            '"{{V}}"', json.dumps({"get_param": "value"})
        )
    )
    files = {
        "level3.yaml": json.dumps(
            {
                "heat_template_version": VERSION,
                "parameters": param,
                "resources": leaf,
            }
        )
    }
    for level, child in (
        ("level2.yaml", "level3.yaml"),
        ("level1.yaml", "level2.yaml"),
    ):
        files[level] = json.dumps(
            {
                "heat_template_version": VERSION,
                "parameters": param,
                "resources": {
                    "inner": {
                        "type": child,
                        "properties": {"value": {"get_param": "value"}},
                    }
                },
            }
        )
    top = {
        "heat_template_version": VERSION,
        "resources": {
            "outer": {"type": "level1.yaml", "properties": {"value": value}}
        },
    }
    return top, files


def outputs(n: int) -> dict[str, Any]:
    """A stack of one resource and ``n`` outputs that read it."""
    return {
        "heat_template_version": VERSION,
        "resources": {"r": {"type": "OS::Heat::None"}},
        "outputs": {
            f"o{i}": {
                "value": {
                    "str_replace": {
                        "template": "out-ID-N",
                        "params": {"ID": {"get_resource": "r"}, "N": i},
                    }
                }
            }
            for i in range(n)
        },
    }


def big_template_text(resources: int) -> str:
    """A template of ``resources`` resources with nested functions.

    With 2000 resources it is about 5 MB of JSON text.
    """
    res: dict[str, Any] = {}
    for i in range(resources):
        res[f"res_{i:05d}"] = {
            "type": "OS::Heat::None",
            "properties": {
                "name": {
                    "list_join": [
                        "-",
                        [
                            {"get_param": "prefix"},
                            {
                                "str_replace": {
                                    "template": "node_N_" + "x" * 2200,
                                    "params": {"N": str(i)},
                                }
                            },
                        ],
                    ]
                },
                "tags": [f"t{j}" for j in range(20)],
            },
        }
    return json.dumps(
        {
            "heat_template_version": VERSION,
            "parameters": {"prefix": {"type": "string", "default": "b"}},
            "resources": res,
        }
    )


SHAPES: dict[str, Shape] = {
    "wide": wide,
    "chain": chain,
    "group": group,
    "nested": nested,
}
