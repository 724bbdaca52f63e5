"""The parameter vectors of Heat 27.0.1, through the parameter layer.

Each vector of kind ``parameter`` (recorded from Heat 27.0.1
into ``data/parameter_vectors.jsonl``) is a
stack-create body.  Until the engine path exists, these tests run the
template's parameters section through :mod:`parameter_schema` and
:mod:`parameters` the way stack validation does, and compare validity,
error class and message, the output values (all of the form
``get_param: p`` / ``Ref: P``), the stack-show ``parameters`` map and the
validate-template ``Parameters`` map.
"""

from __future__ import annotations

import json
import math
import pathlib
from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.template import parameters as params_mod

DATA = pathlib.Path(__file__).parent / "data" / "parameter_vectors.jsonl"
VECTORS = [json.loads(line) for line in DATA.read_text().splitlines()]
TENANT = "00000000000000000000000000000001"

#: Vectors where we deliberately answer better than Heat (docs/compat.md).
DELIBERATE = {
    # Heat: 400 AttributeError "'list' object has no attribute 'items'"
    "param/parameters_not_map": "StackValidationFailed",
}


class Identity:
    """A stored stack's identity, as the pseudo parameters read it."""

    def __init__(self, name: str) -> None:
        self.stack_id = "5d2e5a9c-0000-4000-8000-000000000001"
        self.stack_name = name
        self.tenant = TENANT

    def arn(self) -> str:
        return (
            f"arn:openstack:heat::{self.tenant}:stacks/"
            f"{self.stack_name}/{self.stack_id}"
        )


def _build(vector: dict[str, Any], identity: Any) -> params_mod.Parameters:
    version = vector["template_version"]
    hot = version.startswith("heat_template_version")
    section = vector["template"].get("parameters" if hot else "Parameters")
    schemata = params_mod.param_schemata(
        params_mod.schema_class_for(version), section
    )
    cls = params_mod.HOTParameters if hot else params_mod.CfnParameters
    return cls(identity, schemata, vector["params"] or {})


def _same(actual: Any, expected: Any) -> bool:
    if isinstance(expected, dict) and "$float" in expected:
        if expected["$float"] == "NaN":
            return isinstance(actual, float) and math.isnan(actual)
        return actual == float(expected["$float"])
    return bool(actual == expected and type(actual) is type(expected))


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vector: dict[str, Any]) -> None:
    expect = vector["expect"]
    identity = Identity(vector.get("stack_name") or "vecstack")
    try:
        params = _build(vector, identity)
        params.validate()
    except (
        exception.HeatException,
        exception.StackValidationFailed,
    ) as exc:
        assert not expect["valid"], f"unexpected {exc!r}"
        if vector["id"] in DELIBERATE:
            assert type(exc).__name__ == DELIBERATE[vector["id"]]
            return
        assert type(exc).__name__ == expect["error_type"]
        assert str(exc) == expect["error_message"]
        return
    assert expect["valid"], f"expected {expect['error_message']}"
    outputs = vector["template"].get("outputs") or vector["template"].get(
        "Outputs", {}
    )
    for key, out in outputs.items():
        ref = out.get("value", out.get("Value"))
        name = ref.get("get_param", ref.get("Ref"))
        assert _same(params[name], expect["outputs"][key]), key
    skip = {p.split(".", 1)[1] for p in expect.get("nondeterministic", [])}
    shown = {k: v for k, v in params.shown().items() if k not in skip}
    wanted = {k: v for k, v in expect["parameters"].items() if k not in skip}
    assert shown == wanted


def _validate_template_view(vector: dict[str, Any]) -> dict[str, Any]:
    params = _build(vector, None)
    return {
        name: params_mod.format_validate_parameter(params.params[name])
        for name in params.non_pseudo_param_keys
    }


VALIDATE_OK = [
    v for v in VECTORS if v["expect"]["validate_template"].get("valid")
]


@pytest.mark.parametrize(
    "vector", VALIDATE_OK, ids=[v["id"] for v in VALIDATE_OK]
)
def test_validate_template_parameters(vector: dict[str, Any]) -> None:
    expected = vector["expect"]["validate_template"]["result"]["Parameters"]
    assert _validate_template_view(vector) == expected
