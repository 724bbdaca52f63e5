"""Event and resource actions: XML and JSON shapes, engine calls, errors."""

from __future__ import annotations

from typing import Any

from keel_heat_core import exception
from tests.unit.api_cfn.harness import PROJECT, CfnHarness

TEMPLATE = {
    "HeatTemplateFormatVersion": "2012-12-12",
    "Resources": {
        "A": {"Type": "OS::Heat::None", "Metadata": {"x:y": [1, "two"]}},
        "B": {"Type": "AWS::EC2::Instance"},
    },
}


def _stack(cfn: CfnHarness) -> dict[str, Any]:
    return cfn.engine.add_stack(PROJECT, "foo", TEMPLATE)


def _arn(st: dict[str, Any]) -> str:
    return f"arn:openstack:heat::{PROJECT}:stacks/foo/{st['id']}"


def _result(resp: Any, action: str) -> Any:
    return resp.json[f"{action}Response"][f"{action}Result"]


def test_describe_stack_events_lists_events(cfn: CfnHarness) -> None:
    # Heat answers 500 here whenever an event exists (docs/compat.md, CFN API).
    st = _stack(cfn)
    resp = cfn.action("DescribeStackEvents", StackName="foo")
    assert resp.status_int == 200
    assert resp.text.startswith(
        "<DescribeStackEventsResponse><DescribeStackEventsResult>"
        "<StackEvents><member><EventId>"
    )
    resp = cfn.action(
        "DescribeStackEvents", StackName="foo", ContentType="JSON"
    )
    events = _result(resp, "DescribeStackEvents")["StackEvents"]
    assert len(events) == 4
    first = events[0]
    assert list(first) == [
        "EventId",
        "LogicalResourceId",
        "PhysicalResourceId",
        "ResourceStatusReason",
        "ResourceType",
        "StackId",
        "StackName",
        "Timestamp",
        "ResourceStatus",
    ]
    # the engine lists events newest first
    engine_event = st["events"][-1]
    assert (
        first["EventId"]
        == engine_event["event_identity"]["path"].split("/")[-1]
    )
    assert first["StackId"] == _arn(st)
    assert first["ResourceStatus"] == "CREATE_COMPLETE"
    assert first["LogicalResourceId"] == "B"


def test_describe_stack_events_with_properties(cfn: CfnHarness) -> None:
    st = _stack(cfn)
    for event in st["events"]:
        event["resource_properties"] = {"size": 1}
    resp = cfn.action(
        "DescribeStackEvents", StackName="foo", ContentType="JSON"
    )
    event = _result(resp, "DescribeStackEvents")["StackEvents"][0]
    assert event["ResourceProperties"] == '{"size": 1}'
    assert list(event).index("ResourceProperties") == 3


def test_describe_stack_events_of_all_stacks(cfn: CfnHarness) -> None:
    _stack(cfn)
    resp = cfn.action("DescribeStackEvents")
    assert resp.status_int == 200
    assert resp.text.count("<member>") == 4
    calls = [kw for n, kw in cfn.engine.calls if n == "list_events"]
    assert calls[-1]["stack_identity"] is None


def test_describe_stack_resource(cfn: CfnHarness) -> None:
    st = _stack(cfn)
    resp = cfn.action(
        "DescribeStackResource", StackName="foo", LogicalResourceId="A"
    )
    res = st["resources"]["A"]
    assert resp.text == (
        "<DescribeStackResourceResponse><DescribeStackResourceResult>"
        "<StackResourceDetail><Description></Description>"
        "<LastUpdatedTimestamp>2026-01-02T03:04:05Z</LastUpdatedTimestamp>"
        "<LogicalResourceId>A</LogicalResourceId>"
        '<Metadata>{"x:y": [1, "two"]}</Metadata>'
        f"<PhysicalResourceId>{res['physical_id']}</PhysicalResourceId>"
        "<ResourceStatusReason>state changed</ResourceStatusReason>"
        "<ResourceType>OS::Heat::None</ResourceType>"
        f"<StackId>{_arn(st)}</StackId><StackName>foo</StackName>"
        "<ResourceStatus>CREATE_COMPLETE</ResourceStatus>"
        "</StackResourceDetail></DescribeStackResourceResult>"
        "</DescribeStackResourceResponse>"
    )
    resp = cfn.action(
        "DescribeStackResource",
        StackName=_arn(st),
        LogicalResourceId="A",
        ContentType="JSON",
    )
    detail = _result(resp, "DescribeStackResource")["StackResourceDetail"]
    assert detail["Metadata"] == {"x:y": [1, "two"]}


def test_describe_missing_resource(cfn: CfnHarness) -> None:
    _stack(cfn)
    resp = cfn.action(
        "DescribeStackResource", StackName="foo", LogicalResourceId="Z"
    )
    assert resp.status == "400 InvalidParameterValue"
    assert (
        "<Message>A bad or out-of-range value was supplied:The Resource (Z) "
        "could not be found in Stack foo.</Message>" in resp.text
    )


def test_describe_stack_resources(cfn: CfnHarness) -> None:
    st = _stack(cfn)
    resp = cfn.action(
        "DescribeStackResources", StackName="foo", ContentType="JSON"
    )
    resources = _result(resp, "DescribeStackResources")["StackResources"]
    assert [r["LogicalResourceId"] for r in resources] == ["A", "B"]
    assert list(resources[0]) == [
        "Description",
        "LogicalResourceId",
        "PhysicalResourceId",
        "ResourceStatusReason",
        "ResourceType",
        "StackId",
        "StackName",
        "Timestamp",
        "ResourceStatus",
    ]
    physical = st["resources"]["B"]["physical_id"]
    resp = cfn.action(
        "DescribeStackResources",
        PhysicalResourceId=physical,
        LogicalResourceId="B",
        ContentType="JSON",
    )
    resources = _result(resp, "DescribeStackResources")["StackResources"]
    assert [r["LogicalResourceId"] for r in resources] == ["B"]
    assert resources[0]["StackId"] == _arn(st)


def test_describe_stack_resources_refuses_both(cfn: CfnHarness) -> None:
    resp = cfn.action(
        "DescribeStackResources", StackName="foo", PhysicalResourceId="x"
    )
    assert resp.status == "400 InvalidParameterCombination"
    assert (
        "<Message>Incompatible parameters were used together:Use "
        "`StackName` or `PhysicalResourceId` but not both</Message>"
        in resp.text
    )


def test_describe_stack_resources_ambiguous(cfn: CfnHarness) -> None:
    cfn.engine.fail["find_physical_resource"] = (
        exception.PhysicalResourceIDAmbiguity(phys_id="p")
    )
    resp = cfn.action("DescribeStackResources", PhysicalResourceId="p")
    assert resp.status == "400 InvalidParameterValue"
    assert "Multiple resources were found with the physical ID (p)." in (
        resp.text
    )


def test_list_stack_resources(cfn: CfnHarness) -> None:
    st = _stack(cfn)
    resp = cfn.action("ListStackResources", StackName="foo")
    assert resp.text.startswith(
        "<ListStackResourcesResponse><ListStackResourcesResult>"
        "<StackResourceSummaries><member><LastUpdatedTimestamp>"
    )
    resp = cfn.action(
        "ListStackResources", StackName="foo", ContentType="JSON"
    )
    summaries = _result(resp, "ListStackResources")["StackResourceSummaries"]
    assert summaries[1] == {
        "LastUpdatedTimestamp": "2026-01-02T03:04:05Z",
        "LogicalResourceId": "B",
        "PhysicalResourceId": st["resources"]["B"]["physical_id"],
        "ResourceStatusReason": "state changed",
        "ResourceType": "AWS::EC2::Instance",
        "ResourceStatus": "CREATE_COMPLETE",
    }
