"""AWS::CloudFormation::Stack: child stack from a URL, outputs, updates."""

from __future__ import annotations

import pytest
from keel_heat_pack_heat.cfn_stack import NestedStack

from keel_heat_core import exception
from keel_heat_core.testing import driver as drv

CHILD = (
    '{"HeatTemplateFormatVersion": "2012-12-12", '
    '"Parameters": {"p": {"Type": "String"}}, "Resources": {}}'
)
URL = "https://example.com/child.template"


@pytest.fixture
def nested(resource_driver):
    resource_driver.stack.urls[URL] = CHILD
    return resource_driver.resource(
        "nested",
        NestedStack,
        {"TemplateURL": URL, "Parameters": {"p": "v"}, "TimeoutInMinutes": 7},
    )


def test_create_child_stack(resource_driver, engine_rpc, nested):
    resource_driver.create(nested)
    name, call = engine_rpc.calls[0]
    assert name == "create_stack"
    assert call["template"]["HeatTemplateFormatVersion"] == "2012-12-12"
    assert call["params"] == {"parameters": {"p": "v"}}
    assert call["args"]["timeout_mins"] == 7
    assert call["args"]["disable_rollback"] is True
    assert nested.get_reference_id().startswith("arn:openstack:heat::")
    assert nested.get_reference_id().endswith(nested.resource_id)


def test_outputs_as_attributes(resource_driver, engine_rpc, nested):
    resource_driver.create(nested)
    engine_rpc.set_outputs(
        nested.resource_id, {"o": {"a": [1, 2]}, "bad": ValueError("no")}
    )
    assert nested.FnGetAtt("Outputs.o") == {"a": [1, 2]}
    assert nested.FnGetAtt("Outputs.o", "a", 0) == 1
    with pytest.raises(exception.InvalidTemplateAttribute):
        nested.FnGetAtt("o")
    with pytest.raises(exception.InvalidTemplateAttribute):
        nested.FnGetAtt("Outputs.missing")
    with pytest.raises(exception.TemplateOutputError):
        nested.FnGetAtt("Outputs.bad")


def test_update_refetches_template(resource_driver, engine_rpc, nested):
    resource_driver.create(nested)
    outcome = resource_driver.update(
        nested, {"TemplateURL": URL, "Parameters": {"p": "w"}}
    )
    assert outcome == drv.UPDATED
    name, call = engine_rpc.calls[-1]
    assert name == "update_stack"
    assert call["params"] == {"parameters": {"p": "w"}}
    assert call["stack_identity"]["stack_id"] == nested.resource_id


def test_unreachable_url(resource_driver):
    res = resource_driver.resource(
        "n", NestedStack, {"TemplateURL": "https://nowhere/x"}
    )
    with pytest.raises(exception.ResourceFailure) as err:
        resource_driver.create(res)
    assert "Could not fetch remote template 'https://nowhere/x'" in str(
        err.value
    )


def test_child_failure_and_delete(resource_driver, engine_rpc, nested):
    resource_driver.create(nested)
    resource_driver.delete(nested)
    assert nested.resource_id not in engine_rpc.stacks
    assert engine_rpc.deleted[nested.resource_id]["action"] == "DELETE"
    engine_rpc.action_failure = "Resource CREATE failed: x"
    other = resource_driver.resource("o", NestedStack, {"TemplateURL": URL})
    with pytest.raises(exception.ResourceFailure):
        resource_driver.create(other)


def test_recursion_limit(resource_driver, nested):
    resource_driver.stack.nested_depth = 5
    with pytest.raises(exception.ResourceFailure) as err:
        resource_driver.create(nested)
    assert "Recursion depth exceeds 5." in str(err.value)
