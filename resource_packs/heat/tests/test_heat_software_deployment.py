"""Software deployments: derived configs, signals, status flow, groups."""

from __future__ import annotations

import pytest
from keel_heat_pack_heat.software_config import (
    SoftwareConfig,
    StructuredConfig,
)
from keel_heat_pack_heat.software_deployment import SoftwareDeployment
from keel_heat_pack_heat.software_deployment_group import (
    SoftwareDeploymentGroup,
)
from keel_heat_pack_heat.structured_deployment import StructuredDeployment

from keel_heat_core import exception
from keel_heat_core.testing import driver as drv


@pytest.fixture
def config(resource_driver, fake_keystone):
    res = resource_driver.resource(
        "config",
        SoftwareConfig,
        {
            "group": "script",
            "config": "echo $foo",
            "inputs": [{"name": "foo"}, {"name": "bar", "default": "b"}],
            "outputs": [
                {"name": "result"},
                {"name": "err", "error_output": True},
            ],
        },
    )
    resource_driver.create(res)
    return res


def _deployment(resource_driver, config, **props):
    base = {
        "config": config.resource_id,
        "server": "server-1",
        "input_values": {"foo": "f", "extra": 1},
    }
    return resource_driver.resource(
        "deploy", SoftwareDeployment, {**base, **props}
    )


def _derived(engine_rpc, deployment):
    sd = engine_rpc.deployments[deployment.resource_id]
    return engine_rpc.configs[sd["config_id"]]


def test_derived_config_inputs(resource_driver, engine_rpc, config):
    dep = _deployment(resource_driver, config, signal_transport="HEAT_SIGNAL")
    handle = dep.handle_create()
    assert handle["status"] == "IN_PROGRESS"
    derived = _derived(engine_rpc, dep)
    inputs = {i["name"]: i.get("value") for i in derived["inputs"]}
    assert inputs["foo"] == "f"
    assert inputs["bar"] == "b"
    assert inputs["extra"] == 1
    assert inputs["deploy_server_id"] == "server-1"
    assert inputs["deploy_action"] == "CREATE"
    assert inputs["deploy_stack_id"] == f"test_stack/{dep.stack.id}"
    assert inputs["deploy_resource_name"] == "deploy"
    assert inputs["deploy_signal_transport"] == "HEAT_SIGNAL"
    assert inputs["deploy_user_id"] == dep.data()["user_id"]
    assert inputs["deploy_password"] == dep.password
    assert derived["group"] == "script"
    assert derived["config"] == "echo $foo"
    assert derived["name"] == config.physical_resource_name()


def test_cfn_signal_inputs(resource_driver, engine_rpc, config):
    dep = _deployment(resource_driver, config)
    dep.id = 99
    dep.created_time = __import__("datetime").datetime(2026, 1, 1)
    dep.handle_create()
    inputs = {
        i["name"]: i.get("value") for i in _derived(engine_rpc, dep)["inputs"]
    }
    assert inputs["deploy_signal_verb"] == "POST"
    assert inputs["deploy_signal_id"].startswith(
        "http://heat.example.com:8000/v1/signal/arn%3Aopenstack%3Aheat"
    )


def test_signal_completes(resource_driver, engine_rpc, config):
    dep = _deployment(resource_driver, config, signal_transport="HEAT_SIGNAL")
    dep.action = "CREATE"
    handle = dep.handle_create()
    assert dep.check_create_complete(handle) is False
    reason = resource_driver.signal(
        dep, {"deploy_stdout": "out", "deploy_status_code": 0, "result": "42"}
    )
    assert reason == f"deployment {dep.resource_id} succeeded"
    assert dep.check_create_complete(handle) is True
    assert dep.get_attribute("result") == "42"
    assert dep.get_attribute("deploy_stdout") == "out"
    with pytest.raises(exception.InvalidTemplateAttribute):
        dep.get_attribute("nonsense")


def test_non_zero_status_fails(resource_driver, engine_rpc, config):
    dep = _deployment(resource_driver, config, signal_transport="HEAT_SIGNAL")
    handle = dep.handle_create()
    resource_driver.signal(dep, {"deploy_status_code": 3})
    with pytest.raises(exception.Error) as err:
        dep.check_create_complete(handle)
    assert str(err.value) == (
        "Deployment to server failed: deploy_status_code : Deployment "
        "exited with non-zero status code: 3"
    )


def test_error_output_fails(resource_driver, engine_rpc, config):
    dep = _deployment(resource_driver, config, signal_transport="HEAT_SIGNAL")
    handle = dep.handle_create()
    resource_driver.signal(dep, {"err": "disk full"})
    with pytest.raises(exception.Error, match="err : disk full"):
        dep.check_create_complete(handle)


def test_no_signal_completes_at_once(resource_driver, engine_rpc, config):
    dep = _deployment(resource_driver, config, signal_transport="NO_SIGNAL")
    resource_driver.create(dep)
    sd = engine_rpc.deployments[dep.resource_id]
    assert sd["status"] == "COMPLETE"
    assert sd["status_reason"] == "Not waiting for outputs signal"


def test_update_replaces_derived_config(resource_driver, engine_rpc, config):
    dep = _deployment(resource_driver, config, signal_transport="NO_SIGNAL")
    resource_driver.create(dep)
    first = engine_rpc.deployments[dep.resource_id]["config_id"]
    outcome = resource_driver.update(
        dep,
        {
            "config": config.resource_id,
            "server": "server-1",
            "input_values": {"foo": "g"},
            "signal_transport": "NO_SIGNAL",
        },
    )
    assert outcome == drv.UPDATED
    second = engine_rpc.deployments[dep.resource_id]["config_id"]
    assert first != second
    assert first not in engine_rpc.configs
    inputs = {
        i["name"]: i.get("value") for i in engine_rpc.configs[second]["inputs"]
    }
    assert inputs["deploy_action"] == "UPDATE"
    assert inputs["foo"] == "g"


def test_replace_on_change_input(resource_driver, engine_rpc):
    cfg = resource_driver.resource(
        "c",
        SoftwareConfig,
        {"inputs": [{"name": "v", "replace_on_change": True}]},
    )
    resource_driver.create(cfg)
    dep = resource_driver.resource(
        "d",
        SoftwareDeployment,
        {
            "config": cfg.resource_id,
            "server": "s",
            "input_values": {"v": 1},
            "signal_transport": "NO_SIGNAL",
        },
    )
    resource_driver.create(dep)
    outcome = resource_driver.update(
        dep,
        {
            "config": cfg.resource_id,
            "server": "s",
            "input_values": {"v": 2},
            "signal_transport": "NO_SIGNAL",
        },
    )
    assert outcome == drv.REPLACE


def test_delete_cleans_up(resource_driver, engine_rpc, config, fake_keystone):
    dep = _deployment(resource_driver, config, signal_transport="HEAT_SIGNAL")
    handle = dep.handle_create()
    resource_driver.signal(dep, {})
    assert dep.check_create_complete(handle)
    dep.action = "DELETE"
    data = dep.handle_delete()
    assert data is None  # DELETE is not among the actions
    assert dep.check_delete_complete(data) is True
    assert engine_rpc.deployments == {}
    assert set(engine_rpc.configs) == {config.resource_id}
    assert fake_keystone.users == {}


def test_structured_deployment_substitutes(resource_driver, engine_rpc):
    cfg = resource_driver.resource(
        "c",
        StructuredConfig,
        {
            "config": {
                "a": {"get_input": "foo"},
                "b": [{"get_input": "nope"}],
                "c": {"get_input": "foo", "x": 1},
            }
        },
    )
    resource_driver.create(cfg)
    dep = resource_driver.resource(
        "d",
        StructuredDeployment,
        {
            "config": cfg.resource_id,
            "server": "s",
            "input_values": {"foo": "F"},
            "signal_transport": "NO_SIGNAL",
        },
    )
    resource_driver.create(dep)
    derived = _derived(engine_rpc, dep)["config"]
    assert derived == {
        "a": "F",
        "b": [None],
        "c": {"get_input": "foo", "x": 1},
    }
    strict = resource_driver.resource(
        "e",
        StructuredDeployment,
        {
            "config": cfg.resource_id,
            "server": "s",
            "input_values_validate": "STRICT",
            "signal_transport": "NO_SIGNAL",
        },
    )
    with pytest.raises(exception.ResourceFailure) as err:
        resource_driver.create(strict)
    assert "The Parameter (foo) was not provided." in str(err.value)


def test_deployment_group(resource_driver, engine_rpc, config):
    resource_driver.stack.attr_references["group"] = ["deploy_stdouts"]
    group = resource_driver.resource(
        "group",
        SoftwareDeploymentGroup,
        {
            "config": config.resource_id,
            "servers": {"a": "server-a", "b": "server-b"},
            "signal_transport": "NO_SIGNAL",
        },
    )
    resource_driver.create(group)
    members = engine_rpc.stacks[group.resource_id]["template"]["resources"]
    assert sorted(members) == ["a", "b"]
    assert members["a"]["type"] == "OS::Heat::SoftwareDeployment"
    assert members["b"]["properties"]["server"] == "server-b"
    assert "servers" not in members["b"]["properties"]
    outputs = engine_rpc.stacks[group.resource_id]["template"]["outputs"]
    assert outputs["attributes, deploy_stdout"]["value"] == {
        "a": {"get_attr": ["a", "deploy_stdout"]},
        "b": {"get_attr": ["b", "deploy_stdout"]},
    }
    engine_rpc.set_outputs(
        group.resource_id, {"attributes, deploy_stdout": {"a": "A", "b": "B"}}
    )
    assert group.FnGetAtt("deploy_stdouts") == {"a": "A", "b": "B"}
