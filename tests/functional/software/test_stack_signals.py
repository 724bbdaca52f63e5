"""Signals into real stacks: deployments, wait conditions, health marks.

Stacks are created through the engine API of the in-process cloud; the
``keystone`` and ``heat`` client plugins are the testing kit's fakes (no
Keystone here), with the ``heat`` plugin pointing at the cloud's own
native API, so the signal URLs the handles hand out are real.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.context import RequestContext
from tests.functional.software.harness import PROJECTS, Cloud, wait_for

PROJECT = PROJECTS[0]
CTX = RequestContext(
    user_id="user-1", project_id=PROJECT, username="demo", roles=["member"]
)


def _create(cloud: Cloud, name: str, template: dict[str, Any]) -> str:
    ident = cloud.endpoint().create_stack(
        CTX, name, template, {}, {}, {"timeout_mins": 5}
    )
    return str(ident["stack_id"])


def _stack(cloud: Cloud, stack_id: str) -> dict[str, Any]:
    shown = cloud.endpoint().show_stack(CTX, {"stack_id": stack_id})
    return dict(shown[0])


def _state(cloud: Cloud, stack_id: str) -> str:
    stack = _stack(cloud, stack_id)
    return f"{stack['stack_action']}_{stack['stack_status']}"


def _resource(cloud: Cloud, stack_id: str, name: str) -> dict[str, Any]:
    found = cloud.endpoint().describe_stack_resource(
        CTX, {"stack_id": stack_id}, name
    )
    return dict(found)


def _events(cloud: Cloud, stack_id: str, name: str) -> list[tuple[str, ...]]:
    events = cloud.endpoint().list_events(CTX, {"stack_id": stack_id})
    return [
        (
            e["resource_action"],
            e["resource_status"],
            e["resource_status_reason"],
        )
        for e in events
        if e["resource_name"] == name
    ]


def _wait_resource(cloud: Cloud, stack_id: str, name: str, state: str) -> None:
    def reached() -> bool:
        found = _resource(cloud, stack_id, name)
        return (
            f"{found['resource_action']}_{found['resource_status']}" == state
        )

    wait_for(reached, what=f"{name} to be {state}")


def _wait_state_or_delete(cloud: Cloud, stack_id: str) -> None:
    """Do not leave a stack waiting for signals (the engine's stop
    would wait for it)."""
    if _state(cloud, stack_id) == "CREATE_IN_PROGRESS":
        time.sleep(2)
    if _state(cloud, stack_id) == "CREATE_IN_PROGRESS":
        cloud.endpoint().delete_stack(CTX, {"stack_id": stack_id})


def _wait_state(cloud: Cloud, stack_id: str, state: str) -> None:
    wait_for(
        lambda: _state(cloud, stack_id) != "CREATE_IN_PROGRESS",
        what=f"stack {stack_id} to finish",
    )
    stack = _stack(cloud, stack_id)
    assert _state(cloud, stack_id) == state, stack["stack_status_reason"]


DEPLOYMENT = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "server": {"type": "OS::Heat::None"},
        "config": {
            "type": "OS::Heat::SoftwareConfig",
            "properties": {
                "group": "script",
                "config": "echo hi",
                "outputs": [{"name": "result"}],
            },
        },
        "deployment": {
            "type": "OS::Heat::SoftwareDeployment",
            "properties": {
                "config": {"get_resource": "config"},
                "server": {"get_resource": "server"},
                "signal_transport": "HEAT_SIGNAL",
                "input_values": {"foo": "bar"},
            },
        },
    },
    "outputs": {
        "result": {"value": {"get_attr": ["deployment", "result"]}},
        "stdout": {"value": {"get_attr": ["deployment", "deploy_stdout"]}},
    },
}


def test_deployment_completes_when_signalled(cloud: Cloud, fakes: Any):
    stack_id = _create(cloud, "deploy", DEPLOYMENT)
    endpoint = cloud.endpoint()

    def deployment() -> Any:
        found = endpoint.list_software_deployments(CTX, None)
        mine = [d for d in found if d["status"] == "IN_PROGRESS"]
        return mine[0] if mine else None

    sd = wait_for(deployment, what="the deployment to be IN_PROGRESS")
    assert _state(cloud, stack_id) == "CREATE_IN_PROGRESS"
    # the server resource now carries the derived config for the agent
    server = _resource(cloud, stack_id, "server")
    assert sd["server_id"] == server["physical_resource_id"]
    status, body = cloud.request(
        "GET", f"/stacks/deploy/{stack_id}/resources/server/metadata"
    )
    assert status == 200
    [derived] = body["metadata"]["deployments"]
    assert derived["id"] == sd["config_id"]
    inputs = {i["name"]: i.get("value") for i in derived["inputs"]}
    assert inputs["foo"] == "bar"
    assert inputs["deploy_signal_transport"] == "HEAT_SIGNAL"
    assert inputs["deploy_resource_name"] == "deployment"
    # the agent signals its outputs
    outcome = endpoint.signal_software_deployment(
        CTX,
        deployment_id=sd["id"],
        details={"result": "42", "deploy_stdout": "hello"},
        updated_at=None,
    )
    assert outcome == f"deployment {sd['id']} succeeded"
    _wait_state(cloud, stack_id, "CREATE_COMPLETE")
    outputs = {
        o["output_key"]: endpoint.show_output(
            CTX, {"stack_id": stack_id}, o["output_key"]
        )["output_value"]
        for o in endpoint.list_outputs(CTX, {"stack_id": stack_id})
    }
    assert outputs == {"result": "42", "stdout": "hello"}
    # deleting the stack removes the deployment and its derived config
    endpoint.delete_stack(CTX, {"stack_id": stack_id})

    def gone() -> bool:
        try:
            return _state(cloud, stack_id) == "DELETE_COMPLETE"
        except exception.EntityNotFound:
            return True

    wait_for(gone, what="the stack to be deleted")
    with pytest.raises(exception.NotFound):
        endpoint.show_software_deployment(CTX, sd["id"])
    with pytest.raises(exception.NotFound):
        endpoint.show_software_config(CTX, sd["config_id"])


def test_deployment_signalled_through_the_native_api(cloud: Cloud, fakes: Any):
    stack_id = _create(cloud, "deploy2", DEPLOYMENT)
    _wait_resource(cloud, stack_id, "deployment", "CREATE_IN_PROGRESS")
    wait_for(
        lambda: _resource(cloud, stack_id, "deployment")[
            "physical_resource_id"
        ],
        what="the deployment id",
    )
    status, body = cloud.request(
        "POST",
        f"/stacks/deploy2/{stack_id}/resources/deployment/signal",
        {"deploy_status_code": 3, "deploy_stderr": "oops"},
    )
    assert status == 200, body
    _wait_state(cloud, stack_id, "CREATE_FAILED")
    reason = _resource(cloud, stack_id, "deployment")["resource_status_reason"]
    assert reason == (
        "Error: resources.deployment: Deployment to server failed: "
        "deploy_status_code : Deployment exited with non-zero status code: 3"
    )
    dep_id = _resource(cloud, stack_id, "deployment")["physical_resource_id"]
    signals = [
        e for e in _events(cloud, stack_id, "deployment") if e[0] == "SIGNAL"
    ]
    assert signals == [
        ("SIGNAL", "IN_PROGRESS", f"Signal: deployment {dep_id} failed (3)")
    ]


WAIT = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
        "wait": {
            "type": "OS::Heat::WaitCondition",
            "properties": {
                "handle": {"get_resource": "handle"},
                "count": 2,
                "timeout": 120,
            },
        },
    },
    "outputs": {
        "curl": {"value": {"get_attr": ["handle", "curl_cli"]}},
        "endpoint": {"value": {"get_attr": ["handle", "endpoint"]}},
        "data": {"value": {"get_attr": ["wait", "data"]}},
    },
}


def _outputs(cloud: Cloud, stack_id: str) -> dict[str, Any]:
    """Each listed output's value, as ``stack output show`` reads it (the
    list itself carries keys and descriptions only, as in Heat)."""
    endpoint = cloud.endpoint()
    ident = {"stack_id": stack_id}
    return {
        o["output_key"]: endpoint.show_output(CTX, ident, o["output_key"])[
            "output_value"
        ]
        for o in endpoint.list_outputs(CTX, ident)
    }


def test_wait_condition_completes_on_native_signals(cloud: Cloud, fakes: Any):
    stack_id = _create(cloud, "waiter", WAIT)
    _wait_resource(cloud, stack_id, "handle", "CREATE_COMPLETE")
    out = _outputs(cloud, stack_id)
    endpoint_url = out["endpoint"]
    # Heat's endpoint names the stack-user project, not the stack's
    user_project = _stack_user_project(cloud, stack_id)
    assert endpoint_url == (
        f"{cloud.servers[PROJECT].url}/v1/{user_project}/stacks/waiter/"
        f"{stack_id}/resources/handle/signal"
    )
    assert "X-Auth-Token: token-" in out["curl"]
    assert out["curl"].endswith(endpoint_url)
    # the noauth API serves one project: post to the handle's path there
    path = f"/stacks/waiter/{stack_id}/resources/handle/signal"
    status, _ = cloud.request("POST", path, {"data": "first", "id": "a"})
    assert status == 200
    assert _state(cloud, stack_id) == "CREATE_IN_PROGRESS"
    status, _ = cloud.request("POST", path, {"data": "second"})
    assert status == 200
    _wait_state(cloud, stack_id, "CREATE_COMPLETE")
    assert json.loads(_outputs(cloud, stack_id)["data"]) == {
        "a": "first",
        "2": "second",
    }
    reasons = [
        e[2] for e in _events(cloud, stack_id, "handle") if e[0] == "SIGNAL"
    ]
    assert sorted(reasons) == [
        "Signal: status:SUCCESS reason:Signal 1 received",
        "Signal: status:SUCCESS reason:Signal 2 received",
    ]


def _stack_user_project(cloud: Cloud, stack_id: str) -> str:
    return str(_stack(cloud, stack_id)["stack_user_project_id"])


def test_wait_condition_fails_on_a_failure_signal(cloud: Cloud, fakes: Any):
    stack_id = _create(cloud, "waitfail", WAIT)
    _wait_resource(cloud, stack_id, "handle", "CREATE_COMPLETE")
    path = f"/stacks/waitfail/{stack_id}/resources/handle/signal"
    status, _ = cloud.request(
        "POST", path, {"status": "FAILURE", "reason": "broken"}
    )
    assert status == 200
    _wait_state(cloud, stack_id, "CREATE_FAILED")
    stack_reason = _stack(cloud, stack_id)["stack_status_reason"]
    reason = _resource(cloud, stack_id, "wait")["resource_status_reason"]
    assert reason == "WaitConditionFailure: resources.wait: broken", (
        stack_reason,
        _events(cloud, stack_id, "wait"),
    )


CFN_WAIT = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Resources": {
        "handle": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
        "wait": {
            "Type": "AWS::CloudFormation::WaitCondition",
            "Properties": {"Handle": {"Ref": "handle"}, "Timeout": 120},
        },
    },
    "Outputs": {
        "url": {"Value": {"Ref": "handle"}},
        "data": {"Value": {"Fn::GetAtt": ["wait", "Data"]}},
    },
}


def test_cfn_wait_condition_takes_synchronous_signals(
    cloud: Cloud, fakes: Any
):
    stack_id = _create(cloud, "cfnwait", CFN_WAIT)
    _wait_resource(cloud, stack_id, "handle", "CREATE_COMPLETE")
    url = _outputs(cloud, stack_id)["url"]
    assert url.startswith("http://heat.example.com:8000/v1/waitcondition/")
    assert "Signature=" in url
    endpoint = cloud.endpoint()
    # what heat-api-cfn's PUT /waitcondition/<arn> does
    with pytest.raises(exception.ResourceFailure) as err:
        endpoint.resource_signal(
            CTX, {"stack_id": stack_id}, "handle", {"Status": "x"}, True
        )
    assert "Metadata format invalid" in str(err.value)
    try:
        metadata = endpoint.resource_signal(
            CTX,
            {"stack_id": stack_id},
            "handle",
            {
                "Status": "SUCCESS",
                "Reason": "ok",
                "UniqueId": "7",
                "Data": "hi",
            },
            True,
        )
    finally:
        _wait_state_or_delete(cloud, stack_id)
    assert metadata == {
        "7": {"Status": "SUCCESS", "Reason": "ok", "Data": "hi"}
    }
    _wait_state(cloud, stack_id, "CREATE_COMPLETE")
    assert json.loads(_outputs(cloud, stack_id)["data"]) == {"7": "hi"}


def test_deployment_update_waits_for_a_new_signal(cloud: Cloud, fakes: Any):
    stack_id = _create(cloud, "redeploy", DEPLOYMENT)
    endpoint = cloud.endpoint()
    _wait_resource(cloud, stack_id, "deployment", "CREATE_IN_PROGRESS")
    dep_id = wait_for(
        lambda: _resource(cloud, stack_id, "deployment")[
            "physical_resource_id"
        ],
        what="the deployment id",
    )
    wait_for(
        lambda: (
            endpoint.show_software_deployment(CTX, dep_id)["status"]
            == "IN_PROGRESS"
        ),
        what="the deployment row",
    )
    first = endpoint.show_software_deployment(CTX, dep_id)["config_id"]
    endpoint.signal_software_deployment(
        CTX, deployment_id=dep_id, details={"result": "1"}, updated_at=None
    )
    _wait_state(cloud, stack_id, "CREATE_COMPLETE")
    template = json.loads(json.dumps(DEPLOYMENT))
    template["resources"]["deployment"]["properties"]["input_values"] = {
        "foo": "baz"
    }
    endpoint.update_stack(CTX, {"stack_id": stack_id}, template, {}, {}, {})
    wait_for(
        lambda: (
            endpoint.show_software_deployment(CTX, dep_id)["action"]
            == "UPDATE"
        ),
        what="the deployment to be updated",
    )
    sd = endpoint.show_software_deployment(CTX, dep_id)
    assert sd["status"] == "IN_PROGRESS"
    assert sd["config_id"] != first

    def old_config_gone() -> bool:
        try:
            endpoint.show_software_config(CTX, first)
        except exception.NotFound:
            return True
        return False

    # the previous derived config goes right after the deployment update
    wait_for(old_config_gone, what="the previous derived config to go")
    server = _resource(cloud, stack_id, "server")["physical_resource_id"]
    [derived] = endpoint.metadata_software_deployments(CTX, server)
    inputs = {i["name"]: i.get("value") for i in derived["inputs"]}
    assert (inputs["foo"], inputs["deploy_action"]) == ("baz", "UPDATE")
    endpoint.signal_software_deployment(
        CTX, deployment_id=dep_id, details={"result": "2"}, updated_at=None
    )
    wait_for(
        lambda: _state(cloud, stack_id) != "UPDATE_IN_PROGRESS",
        what="the update",
    )
    assert _state(cloud, stack_id) == "UPDATE_COMPLETE"
    assert _outputs(cloud, stack_id)["result"] == "2"
