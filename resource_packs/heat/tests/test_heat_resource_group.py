"""OS::Heat::ResourceGroup: child template, removal, batches, attributes."""

from __future__ import annotations

import pytest
from keel_heat_pack_heat import rolling_update
from keel_heat_pack_heat.resource_group import ResourceGroup

from keel_heat_core import exception
from keel_heat_core.testing import driver as drv

DEF = {"type": "OS::Heat::RandomString", "properties": {"salt": "s-%index%"}}


def _group(resource_driver, **props):
    return resource_driver.resource(
        "group", ResourceGroup, {"resource_def": DEF, **props}
    )


def _child(engine_rpc, group):
    return engine_rpc.stacks[group.resource_id]["template"]


def test_create_members_with_index(resource_driver, engine_rpc):
    group = _group(resource_driver, count=3)
    resource_driver.create(group)
    tmpl = _child(engine_rpc, group)
    assert tmpl["heat_template_version"] == "2015-04-30"
    assert sorted(tmpl["resources"]) == ["0", "1", "2"]
    assert tmpl["resources"]["2"] == {
        "type": "OS::Heat::RandomString",
        "properties": {"salt": "s-2"},
    }
    assert tmpl["outputs"]["refs"]["value"][1] == {"get_resource": "1"}
    name, kwargs = engine_rpc.calls[0]
    assert name == "create_stack"
    assert kwargs["parent_resource_name"] == "group"
    assert kwargs["nested_depth"] == 1
    assert kwargs["stack_name"] == group.physical_resource_name()


def test_custom_index_var_and_zero_count(resource_driver, engine_rpc):
    group = resource_driver.resource(
        "group",
        ResourceGroup,
        {
            "count": 2,
            "index_var": "__n__",
            "resource_def": {
                "type": "OS::Heat::Value",
                "properties": {"value": ["x__n__", {"k": "__n__"}]},
            },
        },
    )
    resource_driver.create(group)
    props = _child(engine_rpc, group)["resources"]["1"]["properties"]
    assert props == {"value": ["x1", {"k": "1"}]}
    assert (
        resource_driver.update(group, {**group.t.raw_properties, "count": 0})
        == drv.UPDATED
    )
    assert _child(engine_rpc, group)["resources"] == {}


def test_resize_in_place(resource_driver, engine_rpc):
    group = _group(resource_driver, count=2)
    resource_driver.create(group)
    outcome = resource_driver.update(group, {"resource_def": DEF, "count": 4})
    assert outcome == drv.UPDATED
    assert sorted(_child(engine_rpc, group)["resources"]) == list("0123")
    assert engine_rpc.call_names().count("update_stack") == 1


def test_removal_policies_blacklist(resource_driver, engine_rpc):
    group = _group(resource_driver, count=3)
    resource_driver.create(group)
    resource_driver.update(
        group,
        {
            "resource_def": DEF,
            "count": 2,
            "removal_policies": [{"resource_list": ["1"]}],
        },
    )
    assert sorted(_child(engine_rpc, group)["resources"]) == ["0", "2"]
    assert group.data()["name_blacklist"] == "1"
    assert group.get_attribute("removed_rsrc_list") == ["1"]
    # Growing again never reuses a removed name.
    resource_driver.update(group, {"resource_def": DEF, "count": 3})
    assert sorted(_child(engine_rpc, group)["resources"]) == ["0", "2", "3"]


def test_removal_policies_update_mode_resets(resource_driver, engine_rpc):
    group = _group(resource_driver, count=2)
    resource_driver.create(group)
    resource_driver.update(
        group,
        {
            "resource_def": DEF,
            "count": 2,
            "removal_policies": [{"resource_list": ["0"]}],
        },
    )
    assert group.data()["name_blacklist"] == "0"
    resource_driver.update(
        group,
        {
            "resource_def": DEF,
            "count": 2,
            "removal_policies": [],
            "removal_policies_mode": "update",
        },
    )
    assert group.data().get("name_blacklist", "") == ""
    assert sorted(_child(engine_rpc, group)["resources"]) == ["0", "1"]


def test_removal_by_reference_id(resource_driver, engine_rpc):
    group = _group(resource_driver, count=3)
    resource_driver.create(group)
    engine_rpc.set_outputs(
        group.resource_id, {"refs_map": {"0": "a", "1": "b", "2": "c"}}
    )
    resource_driver.update(
        group,
        {
            "resource_def": DEF,
            "count": 2,
            "removal_policies": [{"resource_list": ["c"]}],
        },
    )
    assert sorted(_child(engine_rpc, group)["resources"]) == ["0", "1"]


def test_rolling_update_in_batches(resource_driver, engine_rpc):
    group = resource_driver.resource(
        "group",
        ResourceGroup,
        {"resource_def": DEF, "count": 4},
        update_policy={
            "rolling_update": {"max_batch_size": 2, "min_in_service": 1}
        },
    )
    resource_driver.create(group)
    new_def = {
        "type": "OS::Heat::RandomString",
        "properties": {"salt": "new-%index%"},
    }
    resource_driver.update(
        group,
        {"resource_def": new_def, "count": 4},
        update_policy={
            "rolling_update": {"max_batch_size": 2, "min_in_service": 1}
        },
    )
    updates = [k for n, k in engine_rpc.calls if n == "update_stack"]
    assert len(updates) == 2
    first = updates[0]["template"]["resources"]
    # The highest indexes are replaced first.
    assert first["3"]["properties"]["salt"] == "new-3"
    assert first["2"]["properties"]["salt"] == "new-2"
    assert first["0"]["properties"]["salt"] == "s-0"
    # members in batch order, outputs in index order (as Heat)
    assert list(first)[:2] == ["3", "2"]
    assert first_refs(updates[0]) == [{"get_resource": n} for n in "0123"]
    last = updates[-1]["template"]["resources"]
    assert {r["properties"]["salt"] for r in last.values()} == {
        "new-0",
        "new-1",
        "new-2",
        "new-3",
    }


def first_refs(call):
    return call["template"]["outputs"]["refs"]["value"]


def test_batch_create(resource_driver, engine_rpc):
    group = resource_driver.resource(
        "group",
        ResourceGroup,
        {"resource_def": DEF, "count": 3},
        update_policy={"batch_create": {"max_batch_size": 2}},
    )
    resource_driver.create(group)
    names = engine_rpc.call_names(reads=False)
    assert names == ["create_stack", "update_stack"]
    first = engine_rpc.calls[0][1]["template"]["resources"]
    assert sorted(first) == ["0", "1"]
    assert sorted(_child(engine_rpc, group)["resources"]) == ["0", "1", "2"]


def test_pause_time_limit(resource_driver):
    group = resource_driver.resource(
        "group",
        ResourceGroup,
        {"resource_def": DEF},
        update_policy={"rolling_update": {"pause_time": 4000}},
    )
    with pytest.raises(ValueError, match="1hr"):
        group.validate()


def test_attributes_come_from_child_outputs(resource_driver, engine_rpc):
    resource_driver.stack.attr_references["group"] = [
        "value",
        ("attributes", "value"),
        "resource.1.value",
    ]
    group = _group(resource_driver, count=2)
    resource_driver.create(group)
    outputs = _child(engine_rpc, group)["outputs"]
    assert outputs["value"]["value"] == [
        {"get_attr": ["0", "value"]},
        {"get_attr": ["1", "value"]},
    ]
    assert outputs["attributes, value"]["value"] == {
        "0": {"get_attr": ["0", "value"]},
        "1": {"get_attr": ["1", "value"]},
    }
    assert outputs["resource.1.value"]["value"] == {"get_attr": ["1", "value"]}
    engine_rpc.set_outputs(
        group.resource_id,
        {
            "refs": ["r0", "r1"],
            "refs_map": {"0": "r0", "1": "r1"},
            "value": ["v0", "v1"],
        },
    )
    assert group.FnGetAtt("refs") == ["r0", "r1"]
    assert group.FnGetAtt("refs", 1) == "r1"
    assert group.FnGetAtt("resource.0") == "r0"
    assert group.FnGetAtt("value") == ["v0", "v1"]
    with pytest.raises(exception.NotFound):
        group.FnGetAtt("resource.7")
    with pytest.raises(exception.InvalidTemplateAttribute):
        group.FnGetAtt("attributes")


def test_child_failure_fails_group(resource_driver, engine_rpc):
    engine_rpc.action_failure = "Resource CREATE failed: boom"
    group = _group(resource_driver, count=1)
    with pytest.raises(exception.ResourceFailure):
        resource_driver.create(group)
    assert group.status == "FAILED"


def test_delete_and_suspend(resource_driver, engine_rpc):
    group = _group(resource_driver, count=1)
    resource_driver.create(group)
    resource_driver.suspend(group)
    resource_driver.resume(group)
    resource_driver.delete(group)
    assert engine_rpc.call_names(reads=False)[-3:] == [
        "stack_suspend",
        "stack_resume",
        "delete_stack",
    ]


@pytest.mark.parametrize(
    ("targ", "curr", "size", "min_in", "expected"),
    [
        (4, 4, 2, 1, [(4, 2), (4, 2)]),
        (4, 4, 1, 4, [(5, 1)] * 5 + [(4, 0)]),
        (3, 0, 2, 0, [(2, 2), (3, 1)]),
    ],
)
def test_batches(targ, curr, size, min_in, expected):
    assert list(rolling_update.batches(targ, curr, size, min_in)) == expected


def test_nested_validation(resource_driver):
    seen = []

    def validate_child_stack(name, template, params, files):
        seen.append((name, template))
        raise ValueError("bad member")

    resource_driver.stack.validate_child_stack = validate_child_stack
    group = _group(resource_driver, count=2)
    with pytest.raises(exception.StackValidationFailed) as err:
        group.validate()
    # Heat's path: the group's child stack, then the child's own error
    assert (
        str(err.value)
        == "ValueError: resources.group<nested_stack>: bad member"
    )
    name, template = seen[0]
    assert name == "test_stack-group"
    assert list(template["resources"]) == ["0"]
    empty = _group(resource_driver, count=0)
    empty.validate()  # a zero count is not checked
