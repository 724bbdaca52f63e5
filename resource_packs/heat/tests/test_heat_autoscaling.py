"""OS::Heat::AutoScalingGroup and OS::Heat::ScalingPolicy."""

from __future__ import annotations

import datetime

import pytest
from keel_heat_pack_heat import scaling
from keel_heat_pack_heat.autoscaling_group import AutoScalingResourceGroup
from keel_heat_pack_heat.scaling_policy import AutoScalingPolicy

from keel_heat_core import exception
from keel_heat_core.testing import driver as drv

MEMBER = {"type": "OS::Heat::RandomString", "properties": {"length": 8}}


def _group(resource_driver, **props):
    base = {"resource": MEMBER, "min_size": 1, "max_size": 4}
    return resource_driver.resource(
        "asg", AutoScalingResourceGroup, {**base, **props}
    )


def _members(engine_rpc, group):
    return list(engine_rpc.stacks[group.resource_id]["template"]["resources"])


@pytest.mark.parametrize(
    ("current", "adj", "kind", "step", "expected"),
    [
        (2, 1, "change_in_capacity", None, 3),
        (2, -5, "change_in_capacity", None, 1),
        (2, 10, "exact_capacity", None, 4),
        (3, 10, "percent_change_in_capacity", None, 4),
        (3, -10, "percent_change_in_capacity", None, 2),
        (4, 50, "percent_change_in_capacity", None, 4),
        (2, 10, "percent_change_in_capacity", 2, 4),
        (2, 1, "ChangeInCapacity", None, 3),
    ],
)
def test_new_capacity(current, adj, kind, step, expected):
    assert (
        scaling.calculate_new_capacity(current, adj, kind, step, 1, 4)
        == expected
    )


def test_create_with_desired_capacity(resource_driver, engine_rpc):
    group = _group(resource_driver, desired_capacity=3)
    resource_driver.create(group)
    names = _members(engine_rpc, group)
    assert len(names) == 3
    assert all(len(n) == 12 for n in names)
    assert group.FnGetAtt("current_size") == 3
    meta = group.metadata_get(refresh=True)
    assert meta["scaling_in_progress"] is False
    assert list(meta["cooldown_end"].values()) == ["ExactCapacity : 3"]


def test_validation(resource_driver):
    with pytest.raises(exception.StackValidationFailed, match="MinSize"):
        _group(resource_driver, min_size=5).validate()
    with pytest.raises(exception.StackValidationFailed, match="Desired"):
        _group(resource_driver, desired_capacity=9).validate()


def test_adjust_and_cooldown(resource_driver, engine_rpc):
    group = _group(resource_driver, cooldown=60)
    resource_driver.create(group)
    first = _members(engine_rpc, group)
    group.metadata_set({})  # no cooldown left from creation
    assert group.adjust(2) is True
    assert len(_members(engine_rpc, group)) == 3
    assert _members(engine_rpc, group)[0] == first[0]
    # Within the cooldown nothing happens.
    with pytest.raises(exception.NoActionRequired):
        group.adjust(1)
    group.metadata_set({})
    # Shrinking removes the oldest member.
    group.adjust(-1)
    remaining = _members(engine_rpc, group)
    assert len(remaining) == 2
    assert first[0] not in remaining
    group.metadata_set({})
    with pytest.raises(exception.NoActionRequired):
        group.adjust(0)


def test_adjust_refused_unless_complete(resource_driver):
    group = _group(resource_driver)
    resource_driver.create(group)
    group.status = group.IN_PROGRESS
    with pytest.raises(exception.NoActionRequired):
        group.adjust(1)


def test_scaling_in_progress_blocks(resource_driver):
    group = _group(resource_driver)
    resource_driver.create(group)
    group.metadata_set({"scaling_in_progress": True})
    with pytest.raises(exception.NoActionRequired):
        group.adjust(1)
    group.handle_metadata_reset()
    assert group.metadata_get(refresh=True)["scaling_in_progress"] is False


def test_notifications(resource_driver):
    sent = []
    resource_driver.stack.send_notification = lambda event, payload: (
        sent.append((event, payload))
    )
    group = _group(resource_driver)
    resource_driver.create(group)
    group.metadata_set({})
    group.adjust(1)
    assert [e for e, _ in sent] == [
        "orchestration.autoscaling.start",
        "orchestration.autoscaling.end",
    ]
    assert sent[1][1]["capacity"] == 2


def test_update_resource_rolls(resource_driver, engine_rpc):
    group = _group(resource_driver, desired_capacity=2)
    resource_driver.create(group)
    before = _members(engine_rpc, group)
    new_member = {
        "type": "OS::Heat::RandomString",
        "properties": {"length": 9},
    }
    outcome = resource_driver.update(
        group,
        {
            "resource": new_member,
            "min_size": 1,
            "max_size": 4,
            "desired_capacity": 2,
        },
    )
    assert outcome == drv.UPDATED
    resources = engine_rpc.stacks[group.resource_id]["template"]["resources"]
    assert list(resources) == before  # same members, updated in place
    assert all(r == new_member for r in resources.values())
    updates = [n for n in engine_rpc.call_names() if n == "update_stack"]
    assert len(updates) == 3  # two batches of one, then the resize


def test_outputs_attributes(resource_driver, engine_rpc):
    resource_driver.stack.attr_references["asg"] = [
        ("outputs", "value"),
        "refs",
    ]
    group = _group(resource_driver, desired_capacity=2)
    resource_driver.create(group)
    names = _members(engine_rpc, group)
    outputs = engine_rpc.stacks[group.resource_id]["template"]["outputs"]
    assert outputs["outputs, value"]["value"] == {
        n: {"get_attr": [n, "value"]} for n in names
    }
    engine_rpc.set_outputs(
        group.resource_id,
        {
            "outputs, value": {names[0]: "a", names[1]: "b"},
            "refs_map": {names[0]: "r0", names[1]: "r1"},
        },
    )
    assert group.FnGetAtt("outputs", "value") == {names[0]: "a", names[1]: "b"}
    assert group.FnGetAtt("outputs_list", "value") == ["a", "b"]
    assert group.FnGetAtt("refs") == ["r0", "r1"]
    # members are reached by index, their names are generated
    assert group.FnGetAtt("resource.1") == "r1"
    assert group.FnGetAtt("resource.0", "value") == "a"


def test_policy_signal_scales_group(
    resource_driver, engine_rpc, fake_keystone
):
    group = _group(resource_driver)
    resource_driver.create(group)
    group.metadata_set({})
    policy = resource_driver.resource(
        "up",
        AutoScalingPolicy,
        {
            "auto_scaling_group_id": group.get_reference_id(),
            "adjustment_type": "change_in_capacity",
            "scaling_adjustment": 2,
            "cooldown": 0,
        },
    )
    policy.created_time = datetime.datetime(2026, 1, 1)
    resource_driver.create(policy)
    assert policy.FnGetAtt("alarm_url").startswith(
        "http://heat.example.com:8000/v1/signal/"
    )
    assert policy.FnGetAtt("signal_url").endswith("/resources/up/signal")
    resource_driver.signal(policy, {"current": "alarm"})
    assert group.get_size() == 3
    # An "ok" state does nothing.
    assert resource_driver.signal(policy, {"current": "ok"}) is None
    assert group.get_size() == 3


def test_policy_min_adjustment_step_needs_percent(resource_driver):
    policy = resource_driver.resource(
        "p",
        AutoScalingPolicy,
        {
            "auto_scaling_group_id": "x",
            "adjustment_type": "exact_capacity",
            "scaling_adjustment": 1,
            "min_adjustment_step": 1,
        },
    )
    with pytest.raises(exception.ResourcePropertyValueDependency) as err:
        policy.validate()
    assert str(err.value) == (
        "min_adjustment_step property should only be specified for "
        "adjustment_type with value percent_change_in_capacity."
    )


def test_aws_policy(resource_driver, engine_rpc, fake_keystone):
    from keel_heat_pack_heat.scaling_policy import AWSScalingPolicy

    group = _group(resource_driver, desired_capacity=2)
    resource_driver.create(group)
    group.metadata_set({})
    policy = resource_driver.resource(
        "down",
        AWSScalingPolicy,
        {
            "AutoScalingGroupName": group.get_reference_id(),
            "AdjustmentType": "ExactCapacity",
            "ScalingAdjustment": 1,
        },
    )
    policy.created_time = datetime.datetime(2026, 1, 1)
    resource_driver.create(policy)
    assert policy.get_reference_id().startswith(
        "http://heat.example.com:8000/v1/signal/"
    )
    resource_driver.signal(policy)
    assert group.get_size() == 1
    with pytest.raises(exception.ResourcePropertyValueDependency):
        resource_driver.resource(
            "p",
            AWSScalingPolicy,
            {
                "AutoScalingGroupName": "g",
                "AdjustmentType": "ExactCapacity",
                "ScalingAdjustment": 1,
                "MinAdjustmentStep": 1,
            },
        ).validate()
