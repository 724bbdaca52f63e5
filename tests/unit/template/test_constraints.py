"""Constraint classes: Heat's texts, JSON forms, schema-definition errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keel_heat_core import exception
from keel_heat_core.template import constraints as constr


def _error(c: constr.Constraint, value: Any, schema: Any = None) -> str:
    with pytest.raises(ValueError) as info:
        c.validate(value, schema)
    return str(info.value)


class NumberSchema:
    def to_schema_type(self, value: Any) -> Any:
        return constr.str_to_num(value)


def test_range_messages() -> None:
    assert (
        _error(constr.Range(1, 3), 5) == "5 is out of range (min: 1, max: 3)"
    )
    assert (
        _error(constr.Range(min=1), "0")
        == "0 is out of range (min: 1, max: None)"
    )
    assert _error(constr.Range(1, 3, "Must be 1-3"), 9) == "Must be 1-3"
    constr.Range(1, 3).validate("2.5")


def test_length_messages() -> None:
    msg = _error(constr.Length(2, 3), "abcd")
    assert msg == "length (4) is out of range (min: 2, max: 3)"
    assert _error(constr.Length(max=1), ["a", "b"]) == (
        "length (2) is out of range (min: None, max: 1)"
    )


def test_modulo_messages() -> None:
    assert _error(constr.Modulo(2, 1), 4) == (
        "4 is not a multiple of 2 with an offset of 1"
    )
    constr.Modulo(2, 1).validate(7)
    constr.Modulo(-2, -1).validate(-3)


def test_allowed_values_messages_are_json() -> None:
    assert _error(constr.AllowedValues(["a", "b"]), "c") == (
        '"c" is not an allowed value ["a", "b"]'
    )
    assert _error(constr.AllowedValues(["a", "b"]), ["a", "c"]) == (
        '["a", "c"] is not an allowed value ["a", "b"]'
    )
    assert _error(constr.AllowedValues([1, 2]), "3", NumberSchema()) == (
        '"3" is not an allowed value [1, 2]'
    )


def test_allowed_values_compare_converted() -> None:
    constr.AllowedValues([2]).validate("2.0", NumberSchema())
    constr.AllowedValues(["a", "b"]).validate(["a", "b", "a"])


def test_allowed_pattern_matches_whole_value() -> None:
    c = constr.AllowedPattern("[a-z]+[0-9]*")
    c.validate("abc12")
    assert (
        _error(c, "abc12X") == '"abc12X" does not match pattern "[a-z]+[0-9]*"'
    )
    assert _error(c, "") == '"" does not match pattern "[a-z]+[0-9]*"'


def test_bad_pattern_is_a_schema_error_not_a_500() -> None:
    with pytest.raises(exception.InvalidSchemaError) as info:
        constr.AllowedPattern("[a-")
    assert "Invalid AllowedPattern" in str(info.value)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: constr.Range(),
            "A range constraint must have a min value "
            "and/or a max value specified.",
        ),
        (
            lambda: constr.Length(),
            "A length constraint must have a min value "
            "and/or a max value specified.",
        ),
        (lambda: constr.Range("a"), "min/max must be numeric"),
        (lambda: constr.Length(1.5), "min/max length must be integral"),
        (
            lambda: constr.Modulo(2),
            "A modulo constraint must have a step "
            "value and an offset value specified.",
        ),
        (lambda: constr.Modulo(0, 0), "step cannot be 0."),
        (
            lambda: constr.Modulo(2, 2),
            "offset must be smaller (by absolute value) than step.",
        ),
        (
            lambda: constr.Modulo(2, -1),
            "step and offset must be both positive or both negative.",
        ),
        (lambda: constr.Modulo(2.5, 1), "step/offset must be integer"),
        (lambda: constr.AllowedValues("ab"), "AllowedValues must be a list"),
        (lambda: constr.AllowedPattern(5), "AllowedPattern must be a string"),
    ],
)
def test_definition_errors(build: Any, message: str) -> None:
    with pytest.raises(exception.InvalidSchemaError) as info:
        build()
    assert str(info.value) == message


def test_json_forms_round_trip() -> None:
    forms = [
        {"range": {"min": 1, "max": 5}},
        {"length": {"min": 1}, "description": "not empty"},
        {"modulo": {"step": 2, "offset": 1}},
        {"allowed_values": ["a", "b"]},
        {"allowed_pattern": "[a-z]+"},
        {"custom_constraint": "ip_addr"},
    ]
    for form in forms:
        c = constr.from_dict(form)
        assert c.to_dict() == form
        assert dict(c) == form
        assert constr.from_dict(c.to_dict()) == c
    with pytest.raises(exception.InvalidSchemaError):
        constr.from_dict({"nope": 1})


def test_check_kinds_names_the_class_and_type() -> None:
    with pytest.raises(exception.InvalidSchemaError) as info:
        constr.check_kinds([constr.Length(1)], constr.NUMBER, "number")
    assert str(info.value) == "Length constraint invalid for number"
    constr.check_kinds([constr.Range(1)], constr.INTEGER, "Integer")


def test_validate_all_wraps_and_skips() -> None:
    cs = [constr.Length(max=1), constr.CustomConstraint("nope")]
    with pytest.raises(exception.StackValidationFailed) as info:
        constr.validate_all(cs, "ab")
    assert str(info.value) == "length (2) is out of range (min: None, max: 1)"
    constr.validate_all(cs, "a", skipped=(constr.CustomConstraint,))


def test_unknown_custom_constraint() -> None:
    assert _error(constr.CustomConstraint("nope"), "x") == (
        '"x" does not validate nope (constraint not found)'
    )


def test_descriptions_of_constraints() -> None:
    assert str(constr.Range(1, 3)) == "The value must be in the range 1 to 3."
    assert str(constr.Length(min=2, description="d")) == (
        "d\nThe length must be at least 2."
    )
    assert str(constr.AllowedPattern("x")) == "Value must match pattern: x"


numbers = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(-1e6, 1e6, allow_nan=False),
)


@given(value=numbers, low=numbers, high=numbers)
def test_range_agrees_with_comparison(value: Any, low: Any, high: Any) -> None:
    c = constr.Range(low, high)
    ok = low <= value <= high
    try:
        c.validate(str(value))
    except ValueError as exc:
        assert not ok
        assert str(exc) == f"{value} is out of range (min: {low}, max: {high})"
    else:
        assert ok


@given(
    text=st.text(max_size=20), low=st.integers(0, 10), span=st.integers(0, 10)
)
def test_length_agrees_with_len(text: str, low: int, span: int) -> None:
    c = constr.Length(low, low + span)
    try:
        c.validate(text)
    except ValueError:
        assert not low <= len(text) <= low + span
    else:
        assert low <= len(text) <= low + span


@given(value=st.integers(-1000, 1000), step=st.integers(1, 20), data=st.data())
def test_modulo_agrees_with_python(value: int, step: int, data: Any) -> None:
    offset = data.draw(st.integers(0, step - 1))
    c = constr.Modulo(step, offset)
    try:
        c.validate(value)
    except ValueError:
        assert value % step != offset
    else:
        assert value % step == offset


@given(text=st.text(alphabet="ab1", max_size=8))
def test_pattern_is_a_full_match(text: str) -> None:
    c = constr.AllowedPattern("a+b?")
    try:
        c.validate(text)
    except ValueError:
        assert re.fullmatch("a+b?", text) is None
    else:
        assert re.fullmatch("a+b?", text) is not None


@given(
    allowed=st.lists(st.text(max_size=3), max_size=4),
    value=st.lists(st.text(max_size=3), max_size=4),
)
def test_allowed_values_on_lists(allowed: list[str], value: list[str]) -> None:
    c = constr.AllowedValues(allowed)
    try:
        c.validate(value)
    except ValueError:
        assert not all(v in allowed for v in value)
    else:
        assert all(v in allowed for v in value)
