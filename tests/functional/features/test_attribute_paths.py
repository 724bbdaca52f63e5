"""Attribute paths through the native API: a ``get_attr`` whose key is
itself a function, and ``resource.<n>.<attr>`` of a ResourceChain and of
an AutoScalingGroup (Heat's ``test_nested_get_attr``,
``test_resource_chain``, ``test_heat_autoscaling`` path cases)."""

from __future__ import annotations

from typing import Any

from tests.functional.features.client import Stacks
from tests.functional.software.harness import Cloud


def _value(value: Any, depends_on: list[str] | None = None) -> dict:
    res: dict[str, Any] = {
        "type": "OS::Heat::Value",
        "properties": {"value": value},
    }
    if depends_on:
        res["depends_on"] = depends_on
    return res


def _keyed(key_resource: str) -> dict:
    """The value of ``dict_resource`` at the key ``key_resource`` holds."""
    return {
        "get_attr": [
            "dict_resource",
            "value",
            {"get_attr": [key_resource, "value"]},
        ]
    }


DICT = {"blarg": "wibble", "foo": "bar", "baz": "quux", "fred": "barney"}

COMPUTED_KEY = {
    "heat_template_version": "ocata",
    "resources": {
        "dict_resource": _value(DICT, ["key1", "key2", "indirect_key3"]),
        "key1": _value("blarg"),
        "key2": _value("foo"),
        "key3": _value("fred"),
        "value1": _value(_keyed("key1")),
        "indirect_key3": {**_value("ignored"), "depends_on": "key3"},
    },
    "outputs": {
        "value1": {"value": {"get_attr": ["value1", "value"]}},
        "value2": {"value": _keyed("key2")},
        "value3": {"value": _keyed("key3")},
    },
}


def _computed_key_update() -> dict:
    resources = dict(COMPUTED_KEY["resources"])  # type: ignore[call-overload]
    resources["dict_resource"] = _value(
        DICT, ["key1", "key2", "indirect_key3", "key4"]
    )
    resources["key1"] = _value("foo")
    resources["key2"] = _value("fred")
    resources["key3"] = _value("blarg")
    resources["key4"] = _value("baz")
    resources["value4"] = _value(_keyed("key4"))
    outputs = dict(COMPUTED_KEY["outputs"])  # type: ignore[call-overload]
    outputs["value4"] = {"value": {"get_attr": ["value4", "value"]}}
    return {**COMPUTED_KEY, "resources": resources, "outputs": outputs}


def _output(cloud: Cloud, ident: str, key: str) -> Any:
    status, body = cloud.request("GET", f"/stacks/{ident}/outputs/{key}")
    assert status == 200, body
    output = body["output"]
    assert "output_error" not in output, output
    return output["output_value"]


def test_get_attr_with_a_computed_key_in_a_property(cloud: Cloud):
    stacks = Stacks(cloud)
    ident = stacks.create(COMPUTED_KEY, prefix="keyed")
    stacks.wait_status(ident, "CREATE_COMPLETE")
    assert _output(cloud, ident, "value1") == "wibble"
    assert _output(cloud, ident, "value2") == "bar"
    assert _output(cloud, ident, "value3") == "barney"

    stacks.update(ident, _computed_key_update())
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    assert _output(cloud, ident, "value1") == "bar"
    assert _output(cloud, ident, "value2") == "barney"
    assert _output(cloud, ident, "value3") == "wibble"
    assert _output(cloud, ident, "value4") == "quux"


CHAIN = {
    "heat_template_version": "2016-04-08",
    "resources": {
        "my-chain": {
            "type": "OS::Heat::ResourceChain",
            "properties": {
                "resources": ["OS::Heat::RandomString"] * 2,
                "resource_properties": {"length": 8},
            },
        }
    },
    "outputs": {
        "resource-ids": {"value": {"get_attr": ["my-chain", "refs"]}},
        "resource-0-value": {
            "value": {"get_attr": ["my-chain", "resource.0", "value"]}
        },
        "all-resource-attrs": {
            "value": {"get_attr": ["my-chain", "attributes", "value"]}
        },
    },
}


def test_resource_chain_member_attribute_by_index(cloud: Cloud):
    stacks = Stacks(cloud)
    ident = stacks.create(CHAIN, prefix="chain")
    stacks.wait_status(ident, "CREATE_COMPLETE")
    first = _output(cloud, ident, "resource-0-value")
    assert isinstance(first, str) and len(first) == 8
    every = _output(cloud, ident, "all-resource-attrs")
    assert set(every) == {"0", "1"}
    assert every["0"] == first
    assert len(_output(cloud, ident, "resource-ids")) == 2


RANDOMSTR = """
heat_template_version: 2013-05-23
resources:
  random_str:
    type: OS::Heat::RandomString
outputs:
  random_str:
    value: {get_attr: [random_str, value]}
"""


def _asg(member: str) -> dict:
    """A group of three ``member`` resources; outputs read each by index
    and all of them as a list."""
    attr = "random_str" if member.endswith(".yaml") else "value"
    outputs = {
        f"value_{i}": {
            "value": {"get_attr": ["random_group", f"resource.{i}.{attr}"]}
        }
        for i in range(3)
    }
    outputs["all_values"] = {
        "value": {"get_attr": ["random_group", "outputs_list", attr]}
    }
    return {
        "heat_template_version": "2014-10-16",
        "resources": {
            "random_group": {
                "type": "OS::Heat::AutoScalingGroup",
                "properties": {
                    "desired_capacity": 3,
                    "max_size": 5,
                    "min_size": 2,
                    "resource": {"type": member},
                },
            }
        },
        "outputs": outputs,
    }


def _assert_members_by_index(cloud: Cloud, ident: str) -> None:
    every = _output(cloud, ident, "all_values")
    assert len(every) == 3
    assert [_output(cloud, ident, f"value_{i}") for i in range(3)] == every


def test_autoscaling_group_member_attribute_by_index(cloud: Cloud):
    stacks = Stacks(cloud)
    ident = stacks.create(_asg("OS::Heat::RandomString"), prefix="asg")
    stacks.wait_status(ident, "CREATE_COMPLETE")
    _assert_members_by_index(cloud, ident)


def test_autoscaling_group_of_templates_member_output_by_index(cloud: Cloud):
    stacks = Stacks(cloud)
    ident = stacks.create(
        _asg("randomstr.yaml"),
        files={"randomstr.yaml": RANDOMSTR},
        prefix="asg",
    )
    stacks.wait_status(ident, "CREATE_COMPLETE")
    _assert_members_by_index(cloud, ident)
