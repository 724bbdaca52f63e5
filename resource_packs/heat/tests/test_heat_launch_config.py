"""AWS::AutoScaling::LaunchConfiguration."""

from __future__ import annotations

import types

import pytest
from keel_heat_pack_heat.launch_config import LaunchConfiguration

from keel_heat_core import exception
from keel_heat_core.template import custom_constraints
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


def test_requires_image_and_flavor(resource_driver):
    lc = resource_driver.resource("lc", LaunchConfiguration, {"ImageId": "i"})
    with pytest.raises(exception.StackValidationFailed) as err:
        lc.validate()
    assert str(err.value) == (
        "If without InstanceId, ImageId and InstanceType are required."
    )


@pytest.mark.parametrize(
    ("mapping", "missing"),
    [
        ({"DeviceName": "vdb"}, "Ebs"),
        ({"DeviceName": "vdb", "Ebs": {}}, "SnapshotId"),
    ],
)
def test_block_device_mappings_need_snapshot(
    resource_driver, mapping, missing
):
    lc = resource_driver.resource(
        "lc",
        LaunchConfiguration,
        {
            "ImageId": "i",
            "InstanceType": "f",
            "BlockDeviceMappings": [mapping],
        },
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        lc.validate()
    assert str(err.value) == (
        f"{missing} is missing, this is required when specifying "
        "BlockDeviceMappings."
    )


def test_instance_id_fills_missing(resource_driver, heat_context):
    server = types.SimpleNamespace(
        image={"id": "img"},
        flavor={"id": "flv"},
        key_name="k",
        security_groups=[{"name": "default"}],
    )
    nova = FakeClientPlugin(heat_context)
    nova.get_server = lambda server_id: server
    heat_context.clients.register("nova", nova)
    lc = resource_driver.resource(
        "lc", LaunchConfiguration, {"InstanceId": "srv", "KeyName": "mine"}
    )
    resource_driver.create(lc)
    assert lc.properties["ImageId"] == "img"
    assert lc.properties["InstanceType"] == "flv"
    assert lc.properties["KeyName"] == "mine"
    assert lc.properties["SecurityGroups"] == ["default"]
    assert lc.get_reference_id() == lc.physical_resource_name()
