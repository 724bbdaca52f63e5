"""The stack actions of the CFN query API.

ListStacks, DescribeStacks, CreateStack, UpdateStack, DeleteStack,
CancelUpdateStack, GetTemplate, EstimateTemplateCost and
ValidateTemplate. Each returns the value that goes inside
``<Action>Result``; errors are raised as :mod:`.aws_errors`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from keel_heat_api.cfn import arn, aws_errors
from keel_heat_api.cfn import template as cfn_template
from keel_heat_api.cfn.request import CfnRequest, reformat, status

_SUMMARY_KEYS = {
    "creation_time": "CreationTime",
    "updated_time": "LastUpdatedTime",
    "stack_identity": "StackId",
    "stack_name": "StackName",
    "stack_status_reason": "StackStatusReason",
    "template_description": "TemplateDescription",
}
_STACK_KEYS = {
    "capabilities": "Capabilities",
    "creation_time": "CreationTime",
    "description": "Description",
    "disable_rollback": "DisableRollback",
    "notification_topics": "NotificationARNs",
    "parameters": "Parameters",
    "stack_identity": "StackId",
    "stack_name": "StackName",
    "stack_status_reason": "StackStatusReason",
    "timeout_mins": "TimeoutInMinutes",
}
_OUTPUT_KEYS = {
    "description": "Description",
    "output_key": "OutputKey",
    "output_value": "OutputValue",
}
_PARAM_MEMBER = re.compile(r"^Parameters\.member\.([0-9]+)\.(.*)$")

#: What EstimateTemplateCost always answers, as Heat does.
COST_URL = "http://en.wikipedia.org/wiki/Gratis"


def _with_arn(result: dict[str, Any]) -> dict[str, Any]:
    if "StackId" in result:
        result["StackId"] = arn.to_arn(result["StackId"])
    return result


def list_stacks(req: CfnRequest) -> Any:
    """ListStacks: summaries of the project's live top-level stacks."""
    summaries = []
    for stack in req.rpc.list_stacks(req.context):
        result = reformat(_SUMMARY_KEYS, stack)
        result["StackStatus"] = status(stack, "stack")
        if "deletion_time" in stack:
            result["DeletionTime"] = stack["deletion_time"]
        summaries.append(_with_arn(result))
    return {"StackSummaries": summaries}


def _dots(values: Mapping[str, Any]) -> dict[str, Any]:
    """Replace ``:`` by ``.`` in keys, recursively (XML namespaces)."""
    return {
        str(k).replace(":", "."): _dots(v) if isinstance(v, dict) else v
        for k, v in values.items()
    }


def _format_stack(stack: Mapping[str, Any]) -> dict[str, Any]:
    keymap = dict(_STACK_KEYS)
    if stack.get("updated_time") is not None:
        keymap["updated_time"] = "LastUpdatedTime"
    result = reformat(keymap, stack)
    result["StackStatus"] = status(stack, "stack")
    result["Outputs"] = [
        reformat(_OUTPUT_KEYS, _dots(output))
        for output in stack.get("outputs") or []
    ]
    result["Parameters"] = [
        {"ParameterKey": key, "ParameterValue": value}
        for key, value in (result.get("Parameters") or {}).items()
    ]
    return _with_arn(result)


def describe_stacks(req: CfnRequest) -> Any:
    """DescribeStacks: one stack, or every stack of the project."""
    identity = None
    if "StackName" in req.params:
        identity = req.identity(req.params["StackName"])
    stacks = req.rpc.show_stack(req.context, identity)
    return {"Stacks": [_format_stack(s) for s in stacks]}


def user_params(params: Mapping[str, str]) -> dict[str, str]:
    """Return ``Parameters.member.N.ParameterKey/Value`` pairs as a dict."""
    members: dict[int, dict[str, str]] = {}
    for name, value in params.items():
        match = _PARAM_MEMBER.match(name)
        if match:
            members.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return {
        m["ParameterKey"]: m["ParameterValue"]
        for _, m in sorted(members.items())
        if "ParameterKey" in m and "ParameterValue" in m
    }


def stack_args(params: Mapping[str, str]) -> dict[str, Any]:
    """Return the engine ``args`` of CreateStack and UpdateStack.

    :raises aws_errors.InvalidParameterCombination: for both
        ``DisableRollback`` and ``OnFailure``.
    """
    if "DisableRollback" in params and "OnFailure" in params:
        raise aws_errors.InvalidParameterCombination(
            "DisableRollback and OnFailure may not be used together"
        )
    args: dict[str, Any] = {}
    if "TimeoutInMinutes" in params:
        args["timeout_mins"] = params["TimeoutInMinutes"]
    if "DisableRollback" in params:
        args["disable_rollback"] = params["DisableRollback"]
    on_failure = params.get("OnFailure")
    if on_failure == "DO_NOTHING":
        args["disable_rollback"] = "true"
    elif on_failure in ("ROLLBACK", "DELETE"):
        args["disable_rollback"] = "false"
    return args


def _stack_id_result(result: Any) -> Any:
    try:
        return {"StackId": arn.to_arn(result)}
    except (KeyError, TypeError, AttributeError):
        return result


def create_stack(req: CfnRequest) -> Any:
    """CreateStack."""
    args = stack_args(req.params)
    tmpl = cfn_template.load(req.conf, req.params, req.fetch)
    result = req.rpc.create_stack(
        req.context,
        stack_name=req.require("StackName"),
        template=tmpl,
        params=user_params(req.params),
        files={},
        args=args,
    )
    return _stack_id_result(result)


def update_stack(req: CfnRequest) -> Any:
    """UpdateStack: a full replacement of template and parameters."""
    args = stack_args(req.params)
    tmpl = cfn_template.load(req.conf, req.params, req.fetch)
    identity = req.identity(req.require("StackName"))
    result = req.rpc.update_stack(
        req.context,
        identity,
        template=tmpl,
        params=user_params(req.params),
        files={},
        args=args,
    )
    return _stack_id_result(result)


def delete_stack(req: CfnRequest) -> Any:
    """DeleteStack: waits for the engine to accept the deletion."""
    identity = req.identity(req.require("StackName"))
    req.rpc.delete_stack(req.context, identity, cast=False)
    return ""


def cancel_update_stack(req: CfnRequest) -> Any:
    """CancelUpdateStack: cancel with rollback."""
    identity = req.identity(req.require("StackName"))
    req.rpc.stack_cancel_update(
        req.context, identity, cancel_with_rollback=True
    )
    return {}


def get_template(req: CfnRequest) -> Any:
    """GetTemplate: the stack's stored template."""
    identity = req.identity(req.require("StackName"))
    return {"TemplateBody": req.rpc.get_template(req.context, identity)}


def estimate_template_cost(req: CfnRequest) -> Any:
    """EstimateTemplateCost: always the same page, as in Heat."""
    return {"Url": COST_URL}


def _validate_parameter(key: str, value: Mapping[str, Any]) -> Any:
    return {
        "ParameterKey": key,
        "DefaultValue": value.get("Default", ""),
        "Description": value.get("Description", ""),
        "NoEcho": value.get("NoEcho", "false"),
    }


def validate_template(req: CfnRequest) -> Any:
    """ValidateTemplate; an engine validation error is the result text."""
    tmpl = cfn_template.load(req.conf, req.params, req.fetch)
    result = req.rpc.validate_template(req.context, tmpl)
    if "Error" in result:
        return result["Error"]
    result["Parameters"] = [
        _validate_parameter(k, v)
        for k, v in (result.get("Parameters") or {}).items()
    ]
    return result
