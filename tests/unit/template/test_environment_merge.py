"""Merging environment files: sections, strategies, conflicts."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keel_heat_core import exception
from keel_heat_core.template import environment_merge as em
from keel_heat_core.template import parameters as pm

SCHEMATA = pm.param_schemata(
    pm.HOTParamSchema20180302,
    {
        "s": {"type": "string"},
        "l": {"type": "comma_delimited_list"},
        "j": {"type": "json"},
        "n": {"type": "number"},
        "b": {"type": "boolean"},
    },
)

FILE_A = """
parameter_merge_strategies: {default: merge, j: deep_merge}
parameters:
  s: abc
  l: 'a,b'
  j: {x: {y: 1}, k: [1]}
  n: '1'
"""
FILE_B = """
parameters:
  s: def
  l: c
  j: {x: {z: 2}, k: [2]}
  n: '2'
"""


def merged(files: dict[str, str], start: dict[str, Any] | None = None) -> Any:
    params: dict[str, Any] = {"parameters": dict(start or {})}
    em.merge_environments(list(files), files, params, SCHEMATA)
    return params


def test_worked_example_46() -> None:
    result = merged({"A": FILE_A, "B": FILE_B})
    assert result["parameters"] == {
        "s": "abcdef",
        "l": "a,b,c",
        "j": {"x": {"y": 1, "z": 2}, "k": [1, 2]},
        "n": "12",
    }


def test_conflicting_strategy() -> None:
    c = "parameter_merge_strategies: {s: overwrite}\nparameters: {s: zzz}\n"
    with pytest.raises(exception.ConflictingMergeStrategyForParam) as info:
        merged({"A": FILE_A, "B": FILE_B, "C": c})
    assert str(info.value) == (
        "Conflicting merge strategy 'overwrite' for parameter 's' in file 'C'."
    )


def test_later_default_does_not_change_fixed_strategies() -> None:
    a = "parameters: {s: abc}\n"
    b = "parameter_merge_strategies: {default: merge}\nparameters: {s: d}\n"
    assert merged({"A": a, "B": b})["parameters"] == {"s": "d"}


def test_environment_files_override_request_parameters() -> None:
    result = merged({"A": "parameters: {s: file}\n"}, {"s": "request"})
    assert result["parameters"] == {"s": "file"}


def test_first_section_taken_as_is() -> None:
    result = merged({"A": "parameters: {zz: 1, s: null}\n"})
    assert result["parameters"] == {"zz": 1, "s": None}
    # later files only merge declared, non-null keys
    result = merged(
        {"A": "parameters: {s: a}\n", "B": "parameters: {zz: 1}\n"}
    )
    assert result["parameters"] == {"s": "a"}


def test_other_sections_shallow_merge() -> None:
    a = (
        "resource_registry: {'A::B': x.yaml, "
        "resources: {r: {hooks: pre-create}}}\n"
    )
    b = "resource_registry: {resources: {q: {hooks: pre-delete}}}\n"
    result = merged({"A": a, "B": b})
    assert result["resource_registry"] == {
        "A::B": "x.yaml",
        "resources": {"q": {"hooks": "pre-delete"}},
    }
    assert result["parameter_defaults"] == {}


def test_merge_of_bad_values() -> None:
    a = "parameter_merge_strategies: {default: merge}\nparameters: {n: '1'}\n"
    with pytest.raises(ValueError) as info:
        merged({"A": a, "B": "parameters: {n: 2}\n"})
    assert str(info.value) == "Invalid parameter in environment ."
    a = (
        "parameter_merge_strategies: {default: merge}\n"
        "parameters: {b: 'yes'}\n"
    )
    with pytest.raises(exception.InvalidMergeStrategyForParam) as sinfo:
        merged({"A": a, "B": "parameters: {b: 'no'}\n"})
    assert str(sinfo.value) == (
        "Invalid merge strategy 'merge' for parameter 'b'."
    )


def test_missing_file_is_a_validation_error() -> None:
    params: dict[str, Any] = {"parameters": {}}
    with pytest.raises(exception.StackValidationFailed):
        em.merge_environments(["nope.yaml"], {}, params, SCHEMATA)


def test_all_param_schemata_reads_nested_templates() -> None:
    files = {
        "n.yaml": "heat_template_version: 2021-04-16\n"
        "parameters: {inner: {type: string}}\n",
        "script.sh": "#!/bin/sh\n",
    }
    found = em.all_param_schemata(SCHEMATA, files)
    assert set(found) == {*SCHEMATA, "inner"}


@given(
    st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=4),
    st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=4),
)
def test_shallow_map_merge_is_dict_update(a: dict, b: dict) -> None:
    expected = {**a, **b} if a else b
    assert em.merge_map(dict(a), b) == expected


@given(
    st.lists(st.text(alphabet="ab", min_size=1), min_size=1, max_size=4),
    st.lists(st.text(alphabet="ab", min_size=1), min_size=1, max_size=4),
)
def test_list_merge_of_text_and_lists(a: list[str], b: list[str]) -> None:
    assert em.merge_list(",".join(a), ",".join(b)) == ",".join(a + b)
    assert em.merge_list(list(a), list(b)) == a + b


def test_strategy_lookup() -> None:
    assert em.get_param_merge_strategy(None, "x") == "overwrite"
    assert em.get_param_merge_strategy({"default": "merge"}, "x") == "merge"
    assert em.get_param_merge_strategy({"x": "bogus"}, "x") == "overwrite"
    assert (
        em.get_param_merge_strategy(
            {"default": "merge"}, "x", {"x": "deep_merge"}
        )
        == "deep_merge"
    )


def test_patch_environment() -> None:
    from keel_heat_core.template import environment as env_mod

    glob = env_mod.build_global_env(resource_classes={}, event_sinks={})
    stored = {
        "parameters": {"s": "old", "l": "a", "gone": 1},
        "parameter_defaults": {"d": 1},
        "resource_registry": {"A::B": "x.yaml"},
        "event_sinks": [],
        "encrypted_param_names": [],
    }
    env = em.patch_environment(
        stored,
        {"parameters": {"n": "3"}, "parameter_defaults": {"e": 2}},
        ["l"],
        SCHEMATA,
        global_environment=glob,
    )
    assert env.params == {"s": "old", "n": "3"}
    assert env.param_defaults == {"d": 1, "e": 2}
    assert env.registry.as_dict()["A::B"] == "x.yaml"
    assert stored["parameters"] == {"s": "old", "l": "a", "gone": 1}
