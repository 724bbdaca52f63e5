"""Lifecycle of OS::Heat::None, TestResource, RandomString and Value."""

from __future__ import annotations

import string

import pytest
from keel_heat_pack_heat.none_resource import NoneResource
from keel_heat_pack_heat.random_string import RandomString
from keel_heat_pack_heat.test_resource import TestResource
from keel_heat_pack_heat.value import Value

from keel_heat_core import exception
from keel_heat_core.testing import driver as drv


def test_none_accepts_any_property_and_never_updates(resource_driver):
    res = resource_driver.resource("n", NoneResource, {"anything": [1, 2]})
    resource_driver.create(res)
    assert res.state == ("CREATE", "COMPLETE")
    assert res.resource_id
    assert res.data()["is_placeholder"] == "True"
    assert res.get_attribute("whatever") is None
    assert resource_driver.update(res, {"anything": 3}) == drv.NO_CHANGE


def test_test_resource_stores_value(resource_driver):
    res = resource_driver.resource("t", TestResource, {"value": "hello"})
    resource_driver.create(res)
    assert res.get_attribute("output") == "hello"
    assert res.resource_id == res.physical_resource_name()
    assert res.resource_id.startswith("test_stack-t-")


def test_test_resource_update_in_place(resource_driver):
    res = resource_driver.resource("t", TestResource, {"value": "a"})
    resource_driver.create(res)
    assert resource_driver.update(res, {"value": "b"}) == drv.UPDATED
    assert res.get_attribute("output") == "b"


def test_test_resource_update_replace_options(resource_driver):
    res = resource_driver.resource("t", TestResource, {"value": "a"})
    resource_driver.create(res)
    outcome = resource_driver.update(
        res, {"value": "a", "update_replace": True}
    )
    assert outcome == drv.REPLACE
    res2 = resource_driver.resource(
        "u", TestResource, {"update_replace_value": "1"}
    )
    resource_driver.create(res2)
    outcome = resource_driver.update(res2, {"update_replace_value": "2"})
    assert outcome == drv.REPLACE


def test_test_resource_fail(resource_driver):
    res = resource_driver.resource("t", TestResource, {"fail": True})
    with pytest.raises(exception.ResourceFailure) as err:
        resource_driver.create(res)
    assert str(err.value) == "ValueError: resources.t: Test Resource failed t"
    assert res.state == ("CREATE", "FAILED")
    # A failed test resource is still deleted without error.
    resource_driver.delete(res)


def test_test_resource_waits(resource_driver):
    res = resource_driver.resource(
        "t", TestResource, {"action_wait_secs": {"create": 30}}
    )
    resource_driver.max_polls = 3
    with pytest.raises(drv.PollLimitExceeded):
        resource_driver.create(res)


def test_random_string_default(resource_driver):
    res = resource_driver.resource("r", RandomString)
    resource_driver.create(res)
    value = res.get_attribute("value")
    assert len(value) == 32
    assert set(value) <= set(string.ascii_letters + string.digits)
    assert res.get_reference_id() == value
    assert "value" in res.store.redacted


def test_random_string_classes_and_sequences(resource_driver):
    res = resource_driver.resource(
        "r",
        RandomString,
        {
            "length": 10,
            "character_classes": [{"class": "digits", "min": 4}],
            "character_sequences": [{"sequence": "!@", "min": 3}],
        },
    )
    resource_driver.create(res)
    value = res.get_attribute("value")
    assert len(value) == 10
    assert sum(c.isdigit() for c in value) >= 4
    assert sum(c in "!@" for c in value) >= 3
    assert set(value) <= set(string.digits + "!@")


def test_random_string_deprecated_sequence(resource_driver):
    res = resource_driver.resource(
        "r", RandomString, {"sequence": "octdigits", "length": 12}
    )
    resource_driver.create(res)
    assert set(res.get_attribute("value")) <= set(string.octdigits)


def test_random_string_minimums_longer_than_length(resource_driver):
    res = resource_driver.resource(
        "r",
        RandomString,
        {"length": 3, "character_classes": [{"class": "digits", "min": 4}]},
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        res.validate()
    assert "Length property cannot be smaller than combined" in str(err.value)


def test_random_string_salt_change_replaces(resource_driver):
    res = resource_driver.resource("r", RandomString, {"salt": "1"})
    resource_driver.create(res)
    assert resource_driver.update(res, {"salt": "2"}) == drv.REPLACE
    assert resource_driver.update(res, {"salt": "1"}) == drv.NO_CHANGE


def test_random_string_bad_class(resource_driver):
    res = resource_driver.resource(
        "r", RandomString, {"character_classes": [{"class": "emoji"}]}
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        res.validate()
    assert str(err.value) == (
        "Property error: resources.r.properties.character_classes[0].class: "
        '"emoji" is not an allowed value ["lettersdigits", "letters", '
        '"lowercase", "uppercase", "digits", "hexdigits", "octdigits"]'
    )


def test_value_exposes_value_and_updates_in_place(resource_driver):
    res = resource_driver.resource("v", Value, {"value": {"a": [1, 2]}})
    resource_driver.create(res)
    assert res.get_attribute("value") == {"a": [1, 2]}
    assert res.get_attribute("value", "a", 1) == 2
    assert resource_driver.update(res, {"value": "x"}) == drv.UPDATED
    res.attributes.reset_resolved_values()
    assert res.get_attribute("value") == "x"


@pytest.mark.parametrize(
    ("value_type", "value"),
    [
        ("number", "4"),
        ("string", 4),
        ("boolean", "true"),
        ("json", {"a": 1}),
        ("comma_delimited_list", ["a", "b"]),
    ],
)
def test_value_type_keeps_the_given_value(resource_driver, value_type, value):
    # Heat 27 checks the value against the type but shows it as given
    # (vector fn/get_attr/value_type_number: "42" stays "42").
    res = resource_driver.resource(
        "v", Value, {"value": value, "type": value_type}
    )
    resource_driver.create(res)
    assert res.FnGetAtt("value") == value


@pytest.mark.parametrize(
    ("value_type", "value", "message"),
    [
        ("number", "abc", "could not convert string to float: 'abc'"),
        ("json", "x", '"x" is not a map'),
        ("comma_delimited_list", "a,b", "\"'a,b'\" is not a list"),
        ("boolean", "maybe", '"maybe" is not a valid boolean'),
    ],
)
def test_value_type_checked(resource_driver, value_type, value, message):
    res = resource_driver.resource(
        "v", Value, {"value": value, "type": value_type}
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        res.validate()
    assert str(err.value) == (
        f"Property error: resources.v.properties.value: {message}"
    )


def test_value_requires_value(resource_driver):
    res = resource_driver.resource("v", Value, {})
    with pytest.raises(exception.StackValidationFailed) as err:
        res.validate()
    assert str(err.value) == (
        "Property error: resources.v.properties: Property value not assigned"
    )


@pytest.mark.parametrize(
    ("properties", "local"),
    [
        ({}, {"CREATE": True, "UPDATE": True, "DELETE": True}),
        (
            {"wait_secs": 1},
            {"CREATE": False, "UPDATE": False, "DELETE": False},
        ),
        (
            {"action_wait_secs": {"update": 2}},
            {"CREATE": True, "UPDATE": False, "DELETE": True},
        ),
        (
            {"client_name": "nova", "entity_name": "servers"},
            {"CREATE": False, "UPDATE": False, "DELETE": False},
        ),
    ],
)
def test_test_resource_is_local_without_waits_or_a_client(
    resource_driver, properties, local
):
    res = resource_driver.resource("t", TestResource, properties)
    assert {a: res.action_is_local(a) for a in local} == local
    assert not res.action_is_local("SUSPEND")


def test_internal_types_are_local(resource_driver):
    for cls, props in (
        (NoneResource, {}),
        (RandomString, {}),
        (Value, {"value": "v"}),
    ):
        res = resource_driver.resource("r", cls, props)
        assert res.action_is_local("CREATE"), cls
