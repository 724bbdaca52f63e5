"""Previews of stacks with nested stacks through the native API
(heat-tempest-plugin ``test_preview``): a resource owning a child stack
shows as the list of the child's resources."""

from __future__ import annotations

import uuid
from typing import Any

import yaml

from tests.functional.software.harness import PROJECTS, Cloud

MAIN = """
heat_template_version: 2015-04-30
parameters:
  incomming:
    type: string
resources:
  main:
    type: nested.yaml
    properties:
      value: {get_param: incomming}
outputs:
  main_out:
    value: {get_attr: [main, output]}
"""
NESTED = """
heat_template_version: 2015-04-30
parameters:
  value:
    type: string
resources:
  nested:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value}
outputs:
  output:
    value: {get_attr: [nested, output]}
"""


def _preview(cloud: Cloud, template: str, **body: Any) -> dict[str, Any]:
    name = f"prev-{uuid.uuid4().hex[:8]}"
    status, answer = cloud.request(
        "POST",
        "/stacks/preview",
        {
            "stack_name": name,
            "template": template,
            "disable_rollback": True,
            **body,
        },
    )
    assert status == 200, answer
    stack: dict[str, Any] = answer["stack"]
    assert stack["stack_name"] == name
    return stack


def _assert_resource(res: dict[str, Any], stack_name: str) -> None:
    assert res["stack_name"] == stack_name
    assert (res["resource_action"], res["resource_status"]) == (
        "INIT",
        "COMPLETE",
    )
    for field in ("resource_status_reason", "physical_resource_id"):
        assert res[field] == ""
    assert res["creation_time"] is None and res["updated_time"] is None
    assert "output" in res["attributes"]
    for ident in (res["resource_identity"], res["stack_identity"]):
        assert ident["stack_name"] == stack_name
        assert ident["stack_id"] == "None"
        assert ident["tenant"] == PROJECTS[0]
    assert res["resource_identity"]["path"] == (
        f"/resources/{res['resource_name']}"
    )


def test_template_resource_previews_its_child(cloud: Cloud):
    stack = _preview(
        cloud,
        MAIN,
        files={"nested.yaml": NESTED},
        environment={"parameters": {"incomming": "abc"}},
    )
    assert stack["parameters"]["incomming"] == "abc"
    assert stack["parent"] is None
    [[res]] = stack["resources"]
    assert res["parent_resource"] == "main"
    _assert_resource(res, f"{stack['stack_name']}-main")
    assert res["resource_type"] == "OS::Heat::TestResource"
    assert res["properties"]["value"] == "abc"
    assert res["properties"]["fail"] is False
    assert res["required_by"] == []


def test_group_of_template_resources_previews_two_levels(cloud: Cloud):
    template = yaml.safe_dump(
        {
            "heat_template_version": "2015-04-30",
            "resources": {
                "fixed": {"type": "OS::Heat::RandomString"},
                "rg": {
                    "type": "OS::Heat::ResourceGroup",
                    "properties": {
                        "count": 2,
                        "resource_def": {
                            "type": "nested.yaml",
                            "properties": {"value": {"get_resource": "fixed"}},
                        },
                    },
                },
            },
        }
    )
    stack = _preview(cloud, template, files={"nested.yaml": NESTED})
    name = stack["stack_name"]
    by_kind = {
        "dict": [r for r in stack["resources"] if isinstance(r, dict)],
        "list": [r for r in stack["resources"] if isinstance(r, list)],
    }
    assert [r["resource_name"] for r in by_kind["dict"]] == ["fixed"]
    [members] = by_kind["list"]  # the group's child stack: two members
    assert len(members) == 2
    for member in members:
        [res] = member  # each member's own child stack
        assert res["resource_name"] == "nested"
        assert res["resource_type"] == "OS::Heat::TestResource"
        assert res["stack_name"].startswith(f"{name}-rg-")
    # a plain template keeps a flat list
    flat = _preview(cloud, NESTED, parameters={"value": "x"})
    assert [r["resource_name"] for r in flat["resources"]] == ["nested"]
