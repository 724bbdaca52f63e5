"""The stack actions: XML and JSON shapes, engine calls and errors."""

from __future__ import annotations

import json
from typing import Any

from keel_heat_core import exception
from tests.unit.api_cfn.harness import PROJECT, CfnHarness

TEMPLATE = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Description": "A test",
    "Parameters": {"Size": {"Type": "String", "Default": "m1"}},
    "Resources": {"R": {"Type": "OS::Heat::None", "Metadata": {"k": "v"}}},
}


def _arn(st: dict[str, Any]) -> str:
    return f"arn:openstack:heat::{PROJECT}:stacks/{st['name']}/{st['id']}"


def _last_call(cfn: CfnHarness, method: str) -> dict[str, Any]:
    calls = [kw for name, kw in cfn.engine.calls if name == method]
    return calls[-1]


def test_list_stacks_xml_is_heats(cfn: CfnHarness) -> None:
    st = cfn.engine.add_stack(PROJECT, "foo")
    cfn.engine.add_stack("other-project", "bar")
    resp = cfn.action("ListStacks")
    assert resp.status_int == 200
    assert resp.headers["Content-Type"] == "application/xml; charset=UTF-8"
    assert resp.text == (
        "<ListStacksResponse><ListStacksResult><StackSummaries><member>"
        "<CreationTime>2026-01-02T03:04:05Z</CreationTime>"
        "<LastUpdatedTime>None</LastUpdatedTime>"
        f"<StackId>{_arn(st)}</StackId><StackName>foo</StackName>"
        "<StackStatusReason>Stack CREATE completed successfully"
        "</StackStatusReason><StackStatus>CREATE_COMPLETE</StackStatus>"
        "<DeletionTime>None</DeletionTime></member></StackSummaries>"
        "</ListStacksResult></ListStacksResponse>"
    )


def test_list_stacks_json(cfn: CfnHarness) -> None:
    st = cfn.engine.add_stack(PROJECT, "foo")
    resp = cfn.action("ListStacks", ContentType="JSON")
    assert resp.headers["Content-Type"] == "application/json"
    summary = resp.json["ListStacksResponse"]["ListStacksResult"][
        "StackSummaries"
    ][0]
    assert list(summary) == [
        "CreationTime",
        "LastUpdatedTime",
        "StackId",
        "StackName",
        "StackStatusReason",
        "StackStatus",
        "DeletionTime",
    ]
    assert summary["StackId"] == _arn(st)
    assert summary["LastUpdatedTime"] is None


def test_describe_stacks_one_by_name_arn_or_id(cfn: CfnHarness) -> None:
    st = cfn.engine.add_stack(PROJECT, "foo", TEMPLATE, {"Size": "m2"})
    st["outputs"] = [
        {
            "output_key": "Out",
            "description": "d",
            "output_value": {"a:b": {"c:d": 1}, "e": [1]},
        },
        {"output_key": "Bad", "output_value": None, "output_error": "x"},
    ]
    for name in ("foo", _arn(st), st["id"]):
        resp = cfn.action("DescribeStacks", StackName=name, ContentType="JSON")
        stacks = resp.json["DescribeStacksResponse"]["DescribeStacksResult"]
        assert len(stacks["Stacks"]) == 1
    stack = stacks["Stacks"][0]
    assert list(stack) == [
        "Capabilities",
        "CreationTime",
        "Description",
        "DisableRollback",
        "NotificationARNs",
        "Parameters",
        "StackId",
        "StackName",
        "StackStatusReason",
        "TimeoutInMinutes",
        "StackStatus",
        "Outputs",
    ]
    assert {"ParameterKey": "Size", "ParameterValue": "m2"} in stack[
        "Parameters"
    ]
    assert stack["Outputs"] == [
        {
            "Description": "d",
            "OutputKey": "Out",
            "OutputValue": {"a.b": {"c.d": 1}, "e": [1]},
        },
        {"OutputKey": "Bad", "OutputValue": None},
    ]
    # An ARN is not looked up in the engine.
    idents = [n for n, _ in cfn.engine.calls if n == "identify_stack"]
    assert len(idents) == 2


def test_describe_stacks_all_and_updated_time(cfn: CfnHarness) -> None:
    cfn.engine.add_stack(PROJECT, "a")
    cfn.engine.add_stack(PROJECT, "b")["updated"] = "2026-02-02T00:00:00Z"
    resp = cfn.action("DescribeStacks")
    assert resp.status_int == 200
    assert resp.text.count("<member><Capabilities/>") == 2
    assert resp.text.count("<LastUpdatedTime>") == 1
    assert _last_call(cfn, "show_stack")["stack_identity"] is None


def test_create_stack(cfn: CfnHarness) -> None:
    resp = cfn.action(
        "CreateStack",
        StackName="new",
        TemplateBody=json.dumps(TEMPLATE),
        TimeoutInMinutes="5",
        OnFailure="DO_NOTHING",
        **{
            "Parameters.member.2.ParameterKey": "B",
            "Parameters.member.2.ParameterValue": "2",
            "Parameters.member.1.ParameterKey": "Size",
            "Parameters.member.1.ParameterValue": "m3",
            "Parameters.member.3.ParameterKey": "Lonely",
        },
    )
    assert resp.status_int == 200
    call = _last_call(cfn, "create_stack")
    assert call["stack_name"] == "new"
    assert call["template"] == TEMPLATE
    assert call["params"] == {"Size": "m3", "B": "2"}
    assert call["files"] == {}
    assert call["args"] == {"timeout_mins": "5", "disable_rollback": "true"}
    (st,) = cfn.engine.stacks.values()
    assert resp.text == (
        "<CreateStackResponse><CreateStackResult>"
        f"<StackId>{_arn(st)}</StackId>"
        "</CreateStackResult></CreateStackResponse>"
    )


def test_create_stack_yaml_and_on_failure(cfn: CfnHarness) -> None:
    body = "heat_template_version: 2013-05-23\nresources: {}\n"
    resp = cfn.action(
        "CreateStack", StackName="y", TemplateBody=body, OnFailure="DELETE"
    )
    assert resp.status_int == 200
    call = _last_call(cfn, "create_stack")
    assert call["template"]["heat_template_version"] == "2013-05-23"
    assert call["args"] == {"disable_rollback": "false"}


def test_create_stack_template_errors(cfn: CfnHarness) -> None:
    resp = cfn.action("CreateStack", StackName="x")
    assert resp.status == "400 MissingParameter"
    assert (
        "<Message>A mandatory input parameter is missing:TemplateBody or "
        "TemplateUrl were not given.</Message>" in resp.text
    )
    for bad in ("[1, 2]", "{bad json", "Resources: {}", "- a"):
        resp = cfn.action("CreateStack", StackName="x", TemplateBody=bad)
        assert resp.status == "400 InvalidParameterValue", bad
        assert (
            "A bad or out-of-range value was supplied:The Template must be "
            "a JSON or YAML document." in resp.text
        )
    resp = cfn.action(
        "CreateStack",
        StackName="x",
        TemplateBody="{}",
        DisableRollback="true",
        OnFailure="ROLLBACK",
    )
    assert resp.status == "400 InvalidParameterCombination"
    assert "DisableRollback and OnFailure may not be used together" in (
        resp.text
    )
    assert "create_stack" not in [n for n, _ in cfn.engine.calls]


def test_oversized_template_is_a_400(cfn: CfnHarness) -> None:
    cfn.conf.set_override("max_template_size", 50)
    body = json.dumps(TEMPLATE)
    resp = cfn.action("CreateStack", StackName="x", TemplateBody=body)
    assert resp.status == "400 RequestLimitExceeded"
    assert (
        f"Template size ({len(body)} bytes) exceeds maximum allowed size "
        "(50 bytes)." in resp.text
    )


def test_create_existing_stack_is_already_exists(cfn: CfnHarness) -> None:
    cfn.engine.add_stack(PROJECT, "dup")
    resp = cfn.action(
        "CreateStack", StackName="dup", TemplateBody=json.dumps(TEMPLATE)
    )
    assert resp.status == "400 AlreadyExists"
    assert (
        "<Message>Resource with the name requested already exists:"
        "The Stack (dup) already exists.</Message>" in resp.text
    )


def test_update_stack(cfn: CfnHarness) -> None:
    st = cfn.engine.add_stack(PROJECT, "foo")
    resp = cfn.action(
        "UpdateStack",
        StackName="foo",
        TemplateBody=json.dumps(TEMPLATE),
        DisableRollback="false",
        ContentType="JSON",
    )
    assert resp.json == {
        "UpdateStackResponse": {"UpdateStackResult": {"StackId": _arn(st)}}
    }
    call = _last_call(cfn, "update_stack")
    assert call["stack_identity"]["stack_id"] == st["id"]
    assert call["args"] == {"disable_rollback": "false"}


def test_update_missing_stack_json_error_has_real_status(
    cfn: CfnHarness,
) -> None:
    resp = cfn.action(
        "UpdateStack",
        StackName="nope",
        TemplateBody=json.dumps(TEMPLATE),
        ContentType="JSON",
    )
    assert resp.status == "400 InvalidParameterValue"
    assert resp.json == {
        "ErrorResponse": {
            "Error": {
                "Type": "Sender",
                "Code": "InvalidParameterValue",
                "Message": "A bad or out-of-range value was supplied:"
                "The Stack (nope) could not be found.",
            }
        }
    }


def test_delete_stack(cfn: CfnHarness) -> None:
    st = cfn.engine.add_stack(PROJECT, "foo")
    resp = cfn.action("DeleteStack", StackName=_arn(st))
    assert resp.status_int == 200
    assert resp.text == (
        "<DeleteStackResponse><DeleteStackResult></DeleteStackResult>"
        "</DeleteStackResponse>"
    )
    assert not cfn.engine.stacks
    resp = cfn.action("DeleteStack", StackName="foo", ContentType="JSON")
    assert resp.status_int == 400


def test_missing_stack_name_is_missing_parameter(cfn: CfnHarness) -> None:
    for action in (
        "DeleteStack",
        "CancelUpdateStack",
        "GetTemplate",
        "DescribeStackResource",
        "ListStackResources",
    ):
        resp = cfn.action(action)
        assert resp.status == "400 MissingParameter", action
        assert (
            "<Message>A mandatory input parameter is missing:StackName"
            in resp.text
        )


def test_cancel_update_stack(cfn: CfnHarness) -> None:
    st = cfn.engine.add_stack(PROJECT, "foo")
    # the engine cancels an update in progress only
    st["action"], st["status"] = "UPDATE", "IN_PROGRESS"
    resp = cfn.action("CancelUpdateStack", StackName="foo")
    assert resp.text == (
        "<CancelUpdateStackResponse><CancelUpdateStackResult/>"
        "</CancelUpdateStackResponse>"
    )
    call = _last_call(cfn, "stack_cancel_update")
    assert call["cancel_with_rollback"] is True
    assert call["stack_identity"]["stack_id"] == st["id"]
    cfn.engine.fail["stack_cancel_update"] = exception.ActionInProgress(
        stack_name="foo", action="UPDATE"
    )
    resp = cfn.action("CancelUpdateStack", StackName="foo")
    assert resp.status == "400 InvalidAction"
    assert (
        "Cannot perform action on stack while other actions are in progress"
        in resp.text
    )


def test_get_template(cfn: CfnHarness) -> None:
    cfn.engine.add_stack(PROJECT, "foo", TEMPLATE)
    resp = cfn.action("GetTemplate", StackName="foo")
    prefix = "<GetTemplateResponse><GetTemplateResult><TemplateBody>"
    assert resp.text.startswith(prefix)
    text = resp.text[len(prefix) :].split("</TemplateBody>")[0]
    assert json.loads(text) == TEMPLATE
    resp = cfn.action("GetTemplate", StackName="foo", ContentType="JSON")
    assert resp.json["GetTemplateResponse"]["GetTemplateResult"] == {
        "TemplateBody": TEMPLATE
    }


def test_estimate_template_cost(cfn: CfnHarness) -> None:
    resp = cfn.action("EstimateTemplateCost")
    assert resp.text == (
        "<EstimateTemplateCostResponse><EstimateTemplateCostResult>"
        "<Url>http://en.wikipedia.org/wiki/Gratis</Url>"
        "</EstimateTemplateCostResult></EstimateTemplateCostResponse>"
    )
    assert not cfn.engine.calls


def test_validate_template(cfn: CfnHarness) -> None:
    resp = cfn.action(
        "ValidateTemplate",
        TemplateBody=json.dumps(TEMPLATE),
        ContentType="JSON",
    )
    result = resp.json["ValidateTemplateResponse"]["ValidateTemplateResult"]
    assert result["Description"] == "A test"
    assert result["Parameters"] == [
        {
            "ParameterKey": "Size",
            "DefaultValue": "m1",
            "Description": "",
            "NoEcho": "false",
        }
    ]
    assert "Environment" in result


def test_validate_template_error_is_the_result(cfn: CfnHarness) -> None:
    body = json.dumps({"HeatTemplateFormatVersion": "2012-12-12"})
    resp = cfn.action("ValidateTemplate", TemplateBody=body)
    assert resp.status_int == 200
    assert resp.text == (
        "<ValidateTemplateResponse><ValidateTemplateResult>"
        "Template has no Resources section"
        "</ValidateTemplateResult></ValidateTemplateResponse>"
    )


def test_template_url_fetch_failure(cfn: CfnHarness) -> None:
    def refuse(url: str) -> bytes:
        raise OSError(f"Failed to retrieve template from {url}")

    cfn.app_fetch(refuse)
    resp = cfn.action("ValidateTemplate", TemplateUrl="http://x/t.yaml")
    assert resp.status == "400 InvalidParameterValue"
    assert (
        "A bad or out-of-range value was supplied:Failed to fetch template: "
        "Failed to retrieve template from http://x/t.yaml" in resp.text
    )


def test_template_url_fetched(cfn: CfnHarness) -> None:
    cfn.app_fetch(lambda url: json.dumps(TEMPLATE).encode())
    resp = cfn.action("ValidateTemplate", TemplateUrl="http://x/t.yaml")
    assert resp.status_int == 200
    assert _last_call(cfn, "validate_template")["template"] == TEMPLATE
    # TemplateBody wins.
    resp = cfn.action(
        "ValidateTemplate",
        TemplateUrl="http://x/t.yaml",
        TemplateBody='{"AWSTemplateFormatVersion": "2010-09-09"}',
    )
    assert _last_call(cfn, "validate_template")["template"] == {
        "AWSTemplateFormatVersion": "2010-09-09"
    }
