"""The event and resource actions of the CFN query API.

DescribeStackEvents, DescribeStackResource, DescribeStackResources and
ListStackResources.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from keel_heat_api.cfn import arn, aws_errors
from keel_heat_api.cfn.request import CfnRequest, reformat, status

_EVENT_KEYS = {
    "event_identity": "EventId",
    "resource_name": "LogicalResourceId",
    "physical_resource_id": "PhysicalResourceId",
    "resource_properties": "ResourceProperties",
    "resource_status_reason": "ResourceStatusReason",
    "resource_type": "ResourceType",
    "stack_identity": "StackId",
    "stack_name": "StackName",
    "event_time": "Timestamp",
}
_DETAIL_KEYS = {
    "description": "Description",
    "updated_time": "LastUpdatedTimestamp",
    "resource_name": "LogicalResourceId",
    "metadata": "Metadata",
    "physical_resource_id": "PhysicalResourceId",
    "resource_status_reason": "ResourceStatusReason",
    "resource_type": "ResourceType",
    "stack_identity": "StackId",
    "stack_name": "StackName",
}
_RESOURCE_KEYS = {
    "description": "Description",
    "resource_name": "LogicalResourceId",
    "physical_resource_id": "PhysicalResourceId",
    "resource_status_reason": "ResourceStatusReason",
    "resource_type": "ResourceType",
    "stack_identity": "StackId",
    "stack_name": "StackName",
    "updated_time": "Timestamp",
}
_SUMMARY_KEYS = {
    "updated_time": "LastUpdatedTimestamp",
    "resource_name": "LogicalResourceId",
    "physical_resource_id": "PhysicalResourceId",
    "resource_status_reason": "ResourceStatusReason",
    "resource_type": "ResourceType",
}


def _ids(result: dict[str, Any]) -> dict[str, Any]:
    if "StackId" in result:
        result["StackId"] = arn.to_arn(result["StackId"])
    if "EventId" in result:
        result["EventId"] = arn.event_id(result["EventId"])
    return result


def _format_event(event: Mapping[str, Any]) -> dict[str, Any]:
    result = reformat(_EVENT_KEYS, event)
    result["ResourceStatus"] = status(event, "resource")
    # The engine leaves the properties out of event lists; Heat then
    # fails with a 500 (docs/compat.md, CFN API). Written only when given.
    if "ResourceProperties" in result:
        result["ResourceProperties"] = json.dumps(result["ResourceProperties"])
    return _ids(result)


def describe_stack_events(req: CfnRequest) -> Any:
    """DescribeStackEvents: the events of one stack (or of all)."""
    name = req.params.get("StackName")
    identity = req.identity(name) if name else None
    events = req.rpc.list_events(req.context, identity)
    return {"StackEvents": [_format_event(e) for e in events]}


def describe_stack_resource(req: CfnRequest) -> Any:
    """DescribeStackResource: the metadata in-instance agents poll."""
    identity = req.identity(req.require("StackName"))
    detail = req.rpc.describe_stack_resource(
        req.context,
        stack_identity=identity,
        resource_name=req.params.get("LogicalResourceId"),
    )
    result = reformat(_DETAIL_KEYS, detail)
    result["ResourceStatus"] = status(detail, "resource")
    return {"StackResourceDetail": _ids(result)}


def describe_stack_resources(req: CfnRequest) -> Any:
    """DescribeStackResources, by stack or by a resource's physical id.

    :raises aws_errors.InvalidParameterCombination: for both.
    """
    stack_name = req.params.get("StackName")
    physical_id = req.params.get("PhysicalResourceId")
    if stack_name and physical_id:
        raise aws_errors.InvalidParameterCombination(
            "Use `StackName` or `PhysicalResourceId` but not both"
        )
    if stack_name is not None:
        identity = req.identity(stack_name)
    else:
        identity = req.rpc.find_physical_resource(
            req.context, physical_resource_id=physical_id
        )
    resources = req.rpc.describe_stack_resources(
        req.context,
        stack_identity=identity,
        resource_name=req.params.get("LogicalResourceId"),
    )
    formatted = []
    for res in resources:
        result = reformat(_RESOURCE_KEYS, res)
        result["ResourceStatus"] = status(res, "resource")
        formatted.append(_ids(result))
    return {"StackResources": formatted}


def list_stack_resources(req: CfnRequest) -> Any:
    """ListStackResources: summaries of the stack's own resources."""
    identity = req.identity(req.require("StackName"))
    resources = req.rpc.list_stack_resources(
        req.context, stack_identity=identity
    )
    summaries = []
    for res in resources:
        result = reformat(_SUMMARY_KEYS, res)
        result["ResourceStatus"] = status(res, "resource")
        summaries.append(result)
    return {"StackResourceSummaries": summaries}
