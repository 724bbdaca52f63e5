"""OS::Heat::InstanceGroup and AWS::AutoScaling::AutoScalingGroup."""

from __future__ import annotations

import types

import pytest
from keel_heat_pack_heat.aws_autoscaling_group import AutoScalingGroup
from keel_heat_pack_heat.instance_group import InstanceGroup, parse_isoduration
from keel_heat_pack_heat.launch_config import LaunchConfiguration

from keel_heat_core import exception
from keel_heat_core.template import custom_constraints
from keel_heat_core.testing import driver as drv
from keel_heat_core.testing.fakes import FakeClientPlugin


class AcceptAll(custom_constraints.BaseCustomConstraint):
    def validate(self, value, context):
        return True


@pytest.fixture(autouse=True)
def service_constraints():
    names = [
        "glance.image",
        "nova.flavor",
        "nova.keypair",
        "nova.server",
        "cinder.snapshot",
    ]
    custom_constraints.set_default_registry(
        custom_constraints.ConstraintRegistry(dict.fromkeys(names, AcceptAll))
    )
    yield
    custom_constraints.set_default_registry(None)


@pytest.fixture
def launch_config(resource_driver):
    lc = resource_driver.resource(
        "lc",
        LaunchConfiguration,
        {"ImageId": "img", "InstanceType": "m1.small"},
        metadata={"AWS::CloudFormation::Init": {}},
    )
    resource_driver.create(lc)
    return lc


def _members(engine_rpc, group):
    return engine_rpc.stacks[group.resource_id]["template"]["resources"]


def test_isoduration():
    assert parse_isoduration("PT1M30S") == 90
    assert parse_isoduration("PT0S") == 0
    assert parse_isoduration("P1DT1H") == 90000
    with pytest.raises(ValueError, match="PT#H#M#S"):
        parse_isoduration("90")


def test_instance_group(resource_driver, engine_rpc, launch_config):
    resource_driver.stack.attr_references["ig"] = ["InstanceList"]
    group = resource_driver.resource(
        "ig",
        InstanceGroup,
        {
            "AvailabilityZones": ["nova"],
            "Size": 2,
            "LaunchConfigurationName": launch_config.get_reference_id(),
        },
    )
    resource_driver.create(group)
    members = _members(engine_rpc, group)
    assert len(members) == 2
    member = next(iter(members.values()))
    assert member["type"] == "AWS::EC2::Instance"
    assert member["properties"]["ImageId"] == "img"
    # The reference of the group when its members were defined.
    assert member["properties"]["Tags"] == [
        {"Key": "metering.groupname", "Value": "ig"}
    ]
    assert member["metadata"] == {"AWS::CloudFormation::Init": {}}
    names = list(members)
    engine_rpc.set_outputs(
        group.resource_id,
        {"InstanceList": {names[0]: "10.0.0.1", names[1]: "10.0.0.2"}},
    )
    assert group.FnGetAtt("InstanceList") == "10.0.0.1,10.0.0.2"
    assert (
        resource_driver.update(group, {**group.t.raw_properties, "Size": 3})
        == drv.UPDATED
    )
    assert len(_members(engine_rpc, group)) == 3


def test_instance_group_needs_its_launch_config(resource_driver):
    group = resource_driver.resource(
        "ig",
        InstanceGroup,
        {
            "AvailabilityZones": [],
            "Size": 1,
            "LaunchConfigurationName": "missing",
        },
    )
    with pytest.raises(ValueError) as err:
        group.validate()
    assert str(err.value) == (
        "LaunchConfigurationName (missing) reference can not be found."
    )


def test_instance_group_pause_limit(resource_driver, launch_config):
    group = resource_driver.resource(
        "ig",
        InstanceGroup,
        {
            "AvailabilityZones": [],
            "Size": 1,
            "LaunchConfigurationName": launch_config.get_reference_id(),
        },
        update_policy={"RollingUpdate": {"PauseTime": "PT2H"}},
    )
    with pytest.raises(ValueError, match="Maximum PauseTime is 1 hour."):
        group.validate()


def test_aws_group_scaling(resource_driver, engine_rpc, launch_config):
    group = resource_driver.resource(
        "asg",
        AutoScalingGroup,
        {
            "AvailabilityZones": ["nova"],
            "MinSize": 1,
            "MaxSize": 3,
            "LaunchConfigurationName": launch_config.get_reference_id(),
        },
    )
    resource_driver.create(group)
    assert len(_members(engine_rpc, group)) == 1
    group.metadata_set({})
    group.adjust(5, "ChangeInCapacity")
    assert len(_members(engine_rpc, group)) == 3
    group.metadata_set({})
    with pytest.raises(exception.NoActionRequired):
        group.adjust(50, "PercentChangeInCapacity")  # already at MaxSize
    group.metadata_set({})
    group.adjust(-50, "PercentChangeInCapacity")
    assert len(_members(engine_rpc, group)) == 2
    assert group.get_reference_id() == group.physical_resource_name()


def test_aws_group_validation(resource_driver, launch_config):
    base = {"AvailabilityZones": [], "MinSize": 1, "MaxSize": 3}
    neither = resource_driver.resource("a", AutoScalingGroup, base)
    with pytest.raises(exception.StackValidationFailed) as err:
        neither.validate()
    assert str(err.value) == (
        "Either 'InstanceId' or 'LaunchConfigurationName' must be provided."
    )
    both = resource_driver.resource(
        "b",
        AutoScalingGroup,
        {
            **base,
            "InstanceId": "srv",
            "LaunchConfigurationName": launch_config.get_reference_id(),
        },
    )
    with pytest.raises(exception.ResourcePropertyConflict):
        both.validate()
    zones = resource_driver.resource(
        "c",
        AutoScalingGroup,
        {**base, "InstanceId": "srv", "VPCZoneIdentifier": ["a", "b"]},
    )
    with pytest.raises(exception.NotSupported):
        zones.validate()


def test_aws_group_from_instance(resource_driver, engine_rpc, heat_context):
    server = types.SimpleNamespace(
        image={"id": "img"},
        flavor={"id": "flv"},
        key_name="k",
        security_groups=[{"name": "default"}],
    )
    nova = FakeClientPlugin(heat_context)
    nova.get_server = lambda server_id: server
    heat_context.clients.register("nova", nova)
    group = resource_driver.resource(
        "asg",
        AutoScalingGroup,
        {
            "AvailabilityZones": [],
            "MinSize": 1,
            "MaxSize": 1,
            "InstanceId": "srv",
        },
    )
    resource_driver.create(group)
    member = next(iter(_members(engine_rpc, group).values()))
    assert member["properties"]["InstanceType"] == "flv"
