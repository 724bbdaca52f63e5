"""The CFN API on the real engine (SQLite, in-process bus, noauth).

Runs the actions the engine serves so far end to end; in particular
DescribeStackEvents on a stack with events, which Heat answers with 500.
"""

from __future__ import annotations

import json
import pathlib
import time
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
import webob
from oslo_config import cfg

from keel_heat_api import cfn as cfn_api
from keel_heat_core.rpc.client import EngineClient
from tests.functional.engine.stacks import Cloud

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "description": "CFN on the engine",
    "resources": {
        "none": {"type": "OS::Heat::None"},
        "test": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "one"},
        },
    },
    "outputs": {"out": {"value": {"get_attr": ["test", "output"]}}},
}


class Api:
    """The CFN app in noauth mode, acting in the engine context's project."""

    def __init__(self, cloud: Cloud) -> None:
        conf = cfg.ConfigOpts()
        cfn_api.register_opts(conf)
        conf([], default_config_files=[])
        conf.set_override("auth_strategy", "noauth", group="api")
        conf.set_override(
            "noauth_project_id", cloud.ctxt.project_id, group="api"
        )
        rpc = EngineClient(conf, transport=cloud.transport)
        self.app = cfn_api.setup_app(conf, rpc=rpc)

    def __call__(self, action: str, **params: str) -> Any:
        query = urlencode({"Action": action, "ContentType": "JSON", **params})
        resp = webob.Request.blank("/v1/?" + query).get_response(self.app)
        assert resp.status_int == 200, (action, resp.text)
        return resp.json[f"{action}Response"][f"{action}Result"]


@pytest.fixture
def api(tmp_path: pathlib.Path) -> Iterator[Api]:
    url = f"sqlite:///{tmp_path}/keel_cfn_{uuid.uuid4().hex[:12]}.sqlite"
    cloud = Cloud(url, engines=1)
    try:
        yield Api(cloud)
    finally:
        cloud.close()


def _wait_status(api: Api, name: str, wanted: str) -> dict[str, Any]:
    end = time.monotonic() + 60
    while True:
        (stack,) = api("DescribeStacks", StackName=name)["Stacks"]
        if stack["StackStatus"] == wanted or time.monotonic() > end:
            assert stack["StackStatus"] == wanted, stack
            return dict(stack)
        time.sleep(0.1)


def test_stack_life_through_the_cfn_api(api: Api) -> None:
    created = api(
        "CreateStack", StackName="cfn1", TemplateBody=json.dumps(TEMPLATE)
    )
    arn = created["StackId"]
    assert arn.startswith("arn:openstack:heat::project-1:stacks/cfn1/")
    stack = _wait_status(api, "cfn1", "CREATE_COMPLETE")
    assert stack["StackId"] == arn
    assert stack["Description"] == "CFN on the engine"
    assert stack["Outputs"][0]["OutputKey"] == "out"

    summaries = api("ListStacks")["StackSummaries"]
    assert [s["StackName"] for s in summaries] == ["cfn1"]

    events = api("DescribeStackEvents", StackName=arn)["StackEvents"]
    assert events
    assert {e["ResourceStatus"] for e in events} >= {"CREATE_COMPLETE"}
    assert all(e["StackId"] == arn for e in events)

    detail = api(
        "DescribeStackResource", StackName="cfn1", LogicalResourceId="test"
    )["StackResourceDetail"]
    assert detail["ResourceType"] == "OS::Heat::TestResource"
    assert detail["ResourceStatus"] == "CREATE_COMPLETE"

    summaries = api("ListStackResources", StackName="cfn1")[
        "StackResourceSummaries"
    ]
    assert sorted(s["LogicalResourceId"] for s in summaries) == [
        "none",
        "test",
    ]
    resources = api(
        "DescribeStackResources", StackName="cfn1", LogicalResourceId="none"
    )["StackResources"]
    assert [r["LogicalResourceId"] for r in resources] == ["none"]

    body = api("GetTemplate", StackName="cfn1")["TemplateBody"]
    assert body["resources"].keys() == TEMPLATE["resources"].keys()

    assert api("DeleteStack", StackName="cfn1") == ""
    end = time.monotonic() + 60
    while api("ListStacks")["StackSummaries"] and time.monotonic() < end:
        time.sleep(0.1)
    assert api("ListStacks")["StackSummaries"] == []


def test_update_and_cancel(api: Api) -> None:
    # ValidateTemplate, resource signals and physical-id lookups are not
    # served by the engine yet (it answers NotSupported).
    body = json.dumps(TEMPLATE)
    api("CreateStack", StackName="cfn2", TemplateBody=body)
    _wait_status(api, "cfn2", "CREATE_COMPLETE")
    changed = json.loads(body)
    changed["resources"]["test"]["properties"]["value"] = "two"
    updated = api(
        "UpdateStack", StackName="cfn2", TemplateBody=json.dumps(changed)
    )
    assert updated["StackId"].startswith(
        "arn:openstack:heat::project-1:stacks/cfn2/"
    )
    stack = _wait_status(api, "cfn2", "UPDATE_COMPLETE")
    assert "LastUpdatedTime" in stack

    query = urlencode({"Action": "CancelUpdateStack", "StackName": "cfn2"})
    resp = webob.Request.blank("/v1/?" + query).get_response(api.app)
    assert resp.status == "400 InvalidParameterValue", resp.text
    assert "<Type>Sender</Type>" in resp.text
