"""Parameters: conversion, defaults, pseudo parameters, immutability,
parameter groups (the vectors are in test_parameters_vectors.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keel_heat_core import exception
from keel_heat_core.template import parameter_groups
from keel_heat_core.template import parameters as pm

W = "heat_template_version.2021-04-16"


class Tmpl:
    """The little of a template that parameters read."""

    def __init__(self, t: dict[str, Any], version: str = W) -> None:
        key, _, value = version.partition(".")
        self.family = "hot" if key == "heat_template_version" else "cfn"
        self.version = (key, value)
        self.t = t

    def parameters_section(self) -> Any:
        return self.t.get(
            "parameters" if self.family == "hot" else "Parameters"
        )

    def parameter_groups_section(self) -> Any:
        return self.t.get("parameter_groups")


class Ident:
    stack_id = "1234"
    stack_name = "st"
    tenant = "proj"

    def arn(self) -> str:
        return f"arn:openstack:heat::{self.tenant}:stacks/st/1234"


def hot(
    decls: dict[str, Any], values: dict[str, Any] | None = None, **kw: Any
):
    params = pm.make_parameters(
        Tmpl({"parameters": decls}),
        values or {},
        stack_identifier=Ident(),
        **kw,
    )
    params.validate()
    return params


def test_pseudo_parameters_hot() -> None:
    params = hot({})
    assert dict(params) == {
        "OS::stack_id": "1234",
        "OS::project_id": "proj",
        "OS::stack_name": "st",
    }
    with pytest.raises(KeyError):
        params["OS::region"]


def test_pseudo_parameters_before_the_stack_exists() -> None:
    params = pm.make_parameters(Tmpl({"parameters": {}}), {})
    assert params["OS::stack_id"] == ""
    assert "OS::stack_name" not in params
    cfn = pm.make_parameters(
        Tmpl({"Parameters": {}}, "AWSTemplateFormatVersion.2010-09-09"), {}
    )
    assert cfn["AWS::StackId"] == "None"
    assert "AWS::Region" not in cfn


def test_pseudo_parameters_cfn() -> None:
    tmpl = Tmpl({"Parameters": {}}, "AWSTemplateFormatVersion.2010-09-09")
    params = pm.make_parameters(tmpl, {}, stack_identifier=Ident())
    params.validate()
    assert params["AWS::Region"] == "ap-southeast-1"
    assert params["AWS::StackId"] == Ident().arn()
    assert params["AWS::StackName"] == "st"


def test_set_stack_id() -> None:
    params = pm.make_parameters(Tmpl({"parameters": {}}), {})
    assert not params.set_stack_id(None)
    assert params.set_stack_id(Ident())
    assert params["OS::stack_id"] == "1234"


def test_user_cannot_set_pseudo_parameters() -> None:
    with pytest.raises(exception.UnknownUserParameter) as info:
        hot({}, {"OS::stack_name": "x"})
    assert str(info.value) == (
        "The Parameter (OS::stack_name) was not defined in template."
    )


def test_template_parameter_replaces_pseudo_one() -> None:
    params = hot({"OS::stack_name": {"type": "string", "default": "mine"}})
    assert params["OS::stack_name"] == "mine"


def test_value_precedence() -> None:
    decl = {"p": {"type": "string", "default": "tmpl"}}
    assert hot(decl)["p"] == "tmpl"
    assert hot(decl, param_defaults={"p": "env"})["p"] == "env"
    assert hot(decl, {"p": "user"}, param_defaults={"p": "env"})["p"] == "user"
    # parameter_defaults for undeclared names are ignored
    assert "zz" not in hot(decl, param_defaults={"zz": 1})


def test_missing_value() -> None:
    with pytest.raises(exception.UserParameterMissing):
        hot({"p": {"type": "number"}})
    assert hot({"p": {"type": "number"}}, param_defaults={"p": "3"})["p"] == 3


def test_shown_values() -> None:
    params = hot(
        {
            "s": {"type": "string", "hidden": True, "default": "x"},
            "l": {"type": "comma_delimited_list", "default": ["a", 1]},
            "j": {"type": "json", "default": {"b": [1]}},
            "b": {"type": "boolean", "default": "yes"},
            "n": {"type": "number", "default": "1.50"},
        }
    )
    shown = params.display()
    assert shown["s"] == "******"
    assert shown["l"] == "a,1"
    assert shown["j"] == '{"b": [1]}'
    assert shown["b"] == "True"
    assert shown["n"] == "1.5"
    assert params["l"] == ["a", "1"]


def test_immutable_compares_converted_old_with_raw_new() -> None:
    decl = {"n": {"type": "number", "immutable": True}}
    old = hot(decl, {"n": "5"})
    new = hot(decl, {"n": "5"})
    assert old.immutable_params_modified(new, {"n": "5"}) == ["n"]
    assert old.immutable_params_modified(new, {"n": 5}) is None
    mutable = hot({"n": {"type": "number"}}, {"n": "6"})
    assert old.immutable_params_modified(mutable, {"n": "6"}) is None


def test_immutable_error_text() -> None:
    err = exception.ImmutableParameterModified(keys="l, n")
    assert str(err) == (
        "The following parameters are immutable and may not be updated: l, n"
    )


@pytest.mark.parametrize(
    ("decls", "message"),
    [
        (
            {"p": {"type": "string", "foo": 1}},
            "Invalid key 'foo' for parameter (p)",
        ),
        ({"p": "x"}, "Invalid parameter (p), expected a mapping"),
        ({"p": {"default": 1}}, "Missing parameter type for parameter: p"),
        ({"p": {"type": "str"}}, "Invalid type (str)"),
        (
            {"p": {"type": "string", "constraints": {"length": {"min": 1}}}},
            "Invalid parameter constraints for parameter p, expected a list",
        ),
        (
            {"p": {"type": "string", "constraints": [{"x": 1}]}},
            "Invalid key 'x' for parameter constraints",
        ),
        (
            {
                "p": {
                    "type": "number",
                    "constraints": [{"range": {"minimum": 1}}],
                }
            },
            "Invalid key 'minimum' for range constraint",
        ),
        (
            {"p": {"type": "number", "constraints": [{"description": "d"}]}},
            "No constraint expressed",
        ),
        (
            {"p": {"type": "string", "tags": "a"}},
            "Tags property should be a list for parameter: p",
        ),
    ],
)
def test_declaration_errors(decls: dict[str, Any], message: str) -> None:
    with pytest.raises(exception.InvalidSchemaError) as info:
        hot(decls)
    assert str(info.value) == message


def test_modulo_only_from_2017_02_24() -> None:
    decl = {
        "p": {
            "type": "number",
            "default": 3,
            "constraints": [{"modulo": {"step": 2, "offset": 1}}],
        }
    }
    old = Tmpl({"parameters": decl}, "heat_template_version.2016-10-14")
    with pytest.raises(exception.InvalidSchemaError) as info:
        pm.make_parameters(old, {})
    assert str(info.value) == "No constraint expressed"
    new = Tmpl({"parameters": decl}, "heat_template_version.ocata")
    pm.make_parameters(new, {}).validate()


def test_tags_only_from_2018_03_02() -> None:
    decl = {"p": {"type": "string", "default": "x", "tags": ["a"]}}
    with pytest.raises(exception.InvalidSchemaError):
        pm.make_parameters(
            Tmpl({"parameters": decl}, "heat_template_version.pike"), {}
        )
    params = pm.make_parameters(
        Tmpl({"parameters": decl}, "heat_template_version.queens"), {}
    )
    assert params.params["p"].tags() == ["a"]


def test_non_numeric_bound_is_a_schema_error() -> None:
    with pytest.raises(exception.InvalidSchemaError):
        hot(
            {"p": {"type": "number", "constraints": [{"range": {"min": "a"}}]}}
        )


def test_parameters_section_must_be_a_map() -> None:
    with pytest.raises(exception.StackValidationFailed):
        hot(["a"])  # type: ignore[arg-type]


def test_custom_constraints_skip_defaults() -> None:
    decl = {
        "p": {
            "type": "string",
            "default": "nope",
            "constraints": [{"custom_constraint": "ip_addr"}],
        }
    }
    params = pm.make_parameters(Tmpl({"parameters": decl}), {})
    params.params["p"].schema.validate()
    with pytest.raises(exception.StackValidationFailed):
        params.validate()


def test_cfn_constraint_description_applies_to_all() -> None:
    tmpl = Tmpl(
        {
            "Parameters": {
                "P": {
                    "Type": "String",
                    "MinLength": "2",
                    "AllowedPattern": "[a-z]*",
                    "ConstraintDescription": "lowercase only",
                }
            }
        },
        "HeatTemplateFormatVersion.2012-12-12",
    )
    for value in ("a", "AB"):
        params = pm.make_parameters(tmpl, {"P": value})
        with pytest.raises(exception.StackValidationFailed) as info:
            params.validate()
        assert str(info.value) == "Parameter 'P' is invalid: lowercase only"


# -- parameter groups ------------------------------------------------------


def _groups(groups: Any) -> None:
    tmpl = Tmpl(
        {
            "parameters": {"a": {"type": "string"}, "b": {"type": "string"}},
            "parameter_groups": groups,
        }
    )
    parameter_groups.ParameterGroups(tmpl).validate()


def test_parameter_groups_valid() -> None:
    _groups([{"label": "g", "parameters": ["a", "OS::stack_id"]}])
    _groups(None)


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ({"x": 1}, "parameter_groups: The parameter_groups should be a list."),
        (
            [{"label": "g"}],
            "parameter_groups.g: The parameters must be "
            "provided for each parameter group.",
        ),
        (
            [{"label": "g", "parameters": "a"}],
            "parameter_groups.g: The "
            "parameters of parameter group should be a list.",
        ),
        (
            [
                {"label": "g", "parameters": ["a"]},
                {"label": "h", "parameters": ["a"]},
            ],
            "parameter_groups.h: The a parameter must be assigned to "
            "one parameter group only.",
        ),
        (
            [{"label": "g", "parameters": ["zz"]}],
            "parameter_groups.g: The "
            "grouped parameter zz does not reference a valid parameter.",
        ),
        (
            [{"label": "g", "parameters": ["OS::stack_name"]}],
            "parameter_groups.g: The grouped parameter OS::stack_name does "
            "not reference a valid parameter.",
        ),
    ],
)
def test_parameter_groups_errors(groups: Any, message: str) -> None:
    with pytest.raises(exception.StackValidationFailed) as info:
        _groups(groups)
    assert str(info.value) == f"Parameter Groups error: {message}"


# -- conversion properties -------------------------------------------------


@given(st.integers() | st.floats(allow_nan=False, allow_infinity=False))
def test_number_round_trips_through_text(value: Any) -> None:
    params = hot({"p": {"type": "number"}}, {"p": str(value)})
    assert params["p"] == value
    assert type(params["p"]) is (int if isinstance(value, int) else float)


@given(st.text())
def test_number_text_converts_or_fails_as_python(text: str) -> None:
    try:
        expected: Any = int(text)
    except ValueError:
        try:
            expected = float(text)
        except ValueError:
            expected = None
    try:
        params = hot({"p": {"type": "number"}}, {"p": text})
    except exception.StackValidationFailed as exc:
        assert expected is None
        assert str(exc).startswith("Parameter 'p' is invalid: ")
    else:
        assert expected is not None
        got = params["p"]
        assert got == expected or (got != got and expected != expected)


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters=","))))
def test_comma_delimited_list_round_trips(items: list[str]) -> None:
    joined = ",".join(items)
    params = hot({"p": {"type": "comma_delimited_list"}}, {"p": joined})
    assert params["p"] == (joined.split(",") if joined else [])
    assert str(params.params["p"]) == joined


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=10,
)


@given(st.dictionaries(st.text(), json_values) | st.lists(json_values))
def test_json_accepts_values_and_their_text(value: Any) -> None:
    decl = {"p": {"type": "json"}}
    assert hot(decl, {"p": value})["p"] == value
    assert hot(decl, {"p": json.dumps(value)})["p"] == value


@given(st.sampled_from(["t", "TRUE", "on", "Yes", "1", "f", "off", "NO", "0"]))
def test_boolean_strings(text: str) -> None:
    value = hot({"p": {"type": "boolean"}}, {"p": text})["p"]
    assert value is (text.lower() in ("t", "true", "on", "yes", "1"))
