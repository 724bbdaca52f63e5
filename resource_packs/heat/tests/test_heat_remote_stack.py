"""OS::Heat::Stack."""

from __future__ import annotations

import pytest
from keel_heat_pack_heat.remote_stack import RemoteStack

from keel_heat_core import exception
from keel_heat_core.testing import driver as drv

TEMPLATE = '{"heat_template_version": "2016-10-14", "resources": {}}'


@pytest.fixture
def heat(heat_context, fake_keystone):
    return heat_context.clients.client("heat")


def test_lifecycle(resource_driver, heat):
    res = resource_driver.resource(
        "remote",
        RemoteStack,
        {"template": TEMPLATE, "parameters": {"p": 1}, "timeout": 5},
    )
    resource_driver.create(res)
    stack = heat.stacks.stacks[res.resource_id]
    assert stack.args["stack_name"] == res.physical_resource_name()
    assert stack.args["template"]["heat_template_version"] == "2016-10-14"
    assert stack.args["parameters"] == {"p": 1}
    assert stack.args["timeout_mins"] == 5
    assert heat.stacks.validated
    stack.outputs = [{"output_key": "o", "output_value": 7}]
    assert res.FnGetAtt("outputs") == {"o": 7}
    assert res.FnGetAtt("stack_name") == res.physical_resource_name()
    assert res.get_reference_id() == res.resource_id
    # Any stack update updates the remote stack.
    assert resource_driver.update(res, dict(res.t.raw_properties)) == (
        drv.UPDATED
    )
    assert stack.action == "UPDATE"
    resource_driver.suspend(res)
    resource_driver.resume(res)
    resource_driver.delete(res)
    assert stack.action == "DELETE"


def test_remote_failure(resource_driver, heat):
    res = resource_driver.resource(
        "remote", RemoteStack, {"template": TEMPLATE}
    )
    res.id = 1
    res.action = "CREATE"
    res.handle_create()
    stack = heat.stacks.stacks[res.resource_id]
    stack.status, stack.stack_status = "FAILED", "CREATE_FAILED"
    stack.stack_status_reason = "boom"
    with pytest.raises(exception.ResourceInError) as err:
        res.check_create_complete()
    assert str(err.value) == 'Went to status CREATE_FAILED due to "boom"'


def test_other_region_needs_the_facade(resource_driver, heat):
    res = resource_driver.resource(
        "remote",
        RemoteStack,
        {"template": TEMPLATE, "context": {"region_name": "RegionTwo"}},
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        res.validate()
    assert str(err.value).startswith(
        'Cannot establish connection to Heat endpoint at region "RegionTwo"'
    )
    resource_driver.stack.clients_for_region = lambda region: (
        resource_driver.stack.clients
    )
    res.validate()
