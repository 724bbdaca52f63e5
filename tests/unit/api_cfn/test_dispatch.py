"""Routing, parameters, internal failures and the signal URLs."""

from __future__ import annotations

import json
from urllib.parse import quote

import oslo_messaging as messaging

from tests.unit.api_cfn.harness import PROJECT, CfnHarness

WAIT = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Resources": {
        "Handle": {"Type": "AWS::CloudFormation::WaitConditionHandle"}
    },
}


def test_unknown_or_missing_action(cfn: CfnHarness) -> None:
    for params in ({"Action": "liststacks"}, {}):
        resp = cfn.request(params)
        assert resp.status == "400 InvalidAction"
        assert resp.text == (
            "<ErrorResponse><Error><Type>Sender</Type>"
            "<Code>InvalidAction</Code><Message>The action or operation "
            "requested is invalid</Message></Error></ErrorResponse>"
        )


def test_post_form_parameters(cfn: CfnHarness) -> None:
    cfn.engine.add_stack(PROJECT, "foo")
    resp = cfn.request({"Action": "ListStacks"}, method="POST")
    assert resp.status_int == 200
    assert "<StackName>foo</StackName>" in resp.text


def test_rest_leftovers(cfn: CfnHarness) -> None:
    resp = cfn.request(
        {
            "StackName": "rest",
            "TemplateBody": '{"HeatTemplateFormatVersion": "2012-12-12"}',
        },
        method="POST",
        path="/v1/stacks",
    )
    assert resp.status_int == 200
    assert "<CreateStackResponse>" in resp.text
    for method, path in (
        ("GET", "/v1/stacks"),
        ("GET", "/v1/stacks/new"),
        ("PUT", "/v1/stacks/x"),
        ("DELETE", "/v1/stacks/x"),
    ):
        resp = cfn.request(method=method, path=path)
        assert resp.status == "400 InvalidAction", (method, path)


def test_versions_and_healthcheck(cfn: CfnHarness) -> None:
    resp = cfn.request(path="/")
    assert resp.status_int == 300
    assert resp.json["versions"][0]["links"][0]["href"] == (
        "http://localhost/v1/"
    )
    assert cfn.request(path="/healthcheck").text == "OK"
    assert cfn.request(path="/v1/nothing").status_int == 404


def test_engine_timeout_is_internal_failure(cfn: CfnHarness) -> None:
    cfn.engine.fail["list_stacks"] = messaging.MessagingTimeout("slow")
    resp = cfn.action("ListStacks")
    assert resp.status == "500 InternalFailure"
    assert "<Type>Server</Type>" in resp.text
    assert "slow" not in resp.text


def test_request_id_header(cfn: CfnHarness) -> None:
    resp = cfn.action("EstimateTemplateCost")
    assert resp.headers["x-openstack-request-id"].startswith("req-")


def _handle_path(cfn: CfnHarness, route: str) -> tuple[str, str]:
    st = cfn.engine.add_stack(PROJECT, "wait", WAIT)
    arn = (
        f"arn:openstack:heat::{PROJECT}:stacks/wait/{st['id']}"
        "/resources/Handle"
    )
    return st["id"], f"/v1/{route}/" + quote(arn, safe="/")


def test_waitcondition_signal(cfn: CfnHarness) -> None:
    stack_id, path = _handle_path(cfn, "waitcondition")
    body = {"Status": "SUCCESS", "Reason": "ok", "UniqueId": "1", "Data": "d"}
    resp = cfn.request(method="PUT", path=path, body=json.dumps(body).encode())
    assert resp.status_int == 200
    assert resp.headers["Content-Type"] == "application/xml; charset=UTF-8"
    assert resp.text == "<resource>Handle</resource>"
    (call,) = [kw for n, kw in cfn.engine.calls if n == "resource_signal"]
    assert call["stack_identity"] == {
        "tenant": PROJECT,
        "stack_name": "wait",
        "stack_id": stack_id,
        "path": "",
    }
    assert call["resource_name"] == "Handle"
    assert call["details"] == body
    assert call["sync_call"] is True
    resp = cfn.request(
        {"ContentType": "JSON"},
        method="PUT",
        path=path,
        body=json.dumps({**body, "UniqueId": "2"}).encode(),
    )
    assert resp.json == {
        "resource": "Handle",
        "metadata": {
            "1": {"status": "SUCCESS", "reason": "ok", "data": "d"},
            "2": {"status": "SUCCESS", "reason": "ok", "data": "d"},
        },
    }


def test_waitcondition_errors(cfn: CfnHarness) -> None:
    _, path = _handle_path(cfn, "waitcondition")
    resp = cfn.request(method="PUT", path=path)
    assert resp.status == "400 MissingParameter"
    resp = cfn.request(method="PUT", path=path, body=b"{not json")
    assert resp.status == "400 InvalidParameterValue"
    resp = cfn.request(method="PUT", path="/v1/waitcondition/nonsense")
    assert resp.status == "400 InvalidParameterValue"
    # Only PUT; signals are POSTed to their own route.
    assert cfn.request(method="POST", path=path).status_int == 404
    missing = path.replace("Handle", "Nope")
    resp = cfn.request(method="PUT", path=missing, body=b"{}")
    assert resp.status == "400 InvalidParameterValue"
    assert "The Resource (Nope) could not be found in Stack wait." in (
        resp.text
    )


def test_signal(cfn: CfnHarness) -> None:
    _, path = _handle_path(cfn, "signal")
    resp = cfn.request(method="POST", path=path)
    assert resp.status_int == 200
    assert resp.headers["Content-Type"] == "text/html; charset=UTF-8"
    assert resp.body == b""
    resp = cfn.request(
        {"ContentType": "JSON"},
        method="POST",
        path=path,
        body=b'{"UniqueId": "9", "Status": "SUCCESS"}',
    )
    assert resp.json is None
    calls = [kw for n, kw in cfn.engine.calls if n == "resource_signal"]
    assert calls[0]["details"] is None
    assert calls[0]["sync_call"] is False
    assert calls[1]["details"] == {"UniqueId": "9", "Status": "SUCCESS"}
    assert cfn.request(method="PUT", path=path).status_int == 404
