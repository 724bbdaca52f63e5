"""``OS::Heat::Stack`` in this cloud's own region through the native API
(heat-tempest-plugin ``test_remote_stack``): the stack is served by the
engine itself (``keel_heat_core/service/local_heat.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.functional.features.client import Stacks, deleted
from tests.functional.software.harness import Cloud, wait_for

TEMPLATE = """
heat_template_version: 2013-05-23
resources:
  my_stack:
    type: OS::Heat::Stack
    properties:
      context:
        region_name: RegionOne
      template:
        get_file: remote_stack.yaml
outputs:
  key:
    value: {get_attr: [my_stack, outputs]}
"""
REMOTE = """
heat_template_version: 2013-05-23
resources:
  random1:
    type: OS::Heat::RandomString
outputs:
  remote_key:
    value: {get_attr: [random1, value]}
"""


@pytest.fixture(scope="module")
def region(cloud: Cloud) -> Iterator[str]:
    cloud.conf.set_override("region_name_for_services", "RegionOne")
    try:
        yield "RegionOne"
    finally:
        cloud.conf.clear_override("region_name_for_services")


@pytest.fixture
def stacks(cloud: Cloud, region: str) -> Stacks:
    return Stacks(cloud)


def _create(cloud: Cloud, template: str, remote: str) -> tuple[int, Any]:
    return cloud.request(
        "POST",
        "/stacks",
        {
            "stack_name": "remote-parent",
            "template": template,
            "files": {"remote_stack.yaml": remote},
        },
    )


def _resources(stacks: Stacks, ident: str) -> dict[str, str]:
    status, body = stacks.cloud.request("GET", f"/stacks/{ident}/resources")
    assert status == 200, body
    return {r["resource_name"]: r["resource_type"] for r in body["resources"]}


def _remote(stacks: Stacks, ident: str) -> dict[str, Any]:
    remote_id = stacks.resource(ident, "my_stack")["physical_resource_id"]
    shown = stacks.show(remote_id)
    assert shown["id"] == remote_id
    return shown


def test_create_update_suspend_resume_delete(cloud: Cloud, stacks: Stacks):
    status, body = _create(cloud, TEMPLATE, REMOTE)
    assert status == 201, body
    ident = f"remote-parent/{body['stack']['id']}"
    shown = stacks.wait_status(ident, "CREATE_COMPLETE")
    [output] = shown["outputs"]
    value = output["output_value"]["remote_key"]
    assert len(value) == 32
    assert _resources(stacks, ident) == {"my_stack": "OS::Heat::Stack"}
    remote = _remote(stacks, ident)
    assert remote["outputs"][0]["output_value"] == value
    # an ordinary stack of the same project, not a nested one
    assert remote["parent"] is None
    remote_ident = f"{remote['stack_name']}/{remote['id']}"
    assert _resources(stacks, remote_ident) == {
        "random1": "OS::Heat::RandomString"
    }

    status, body = cloud.request(
        "PUT",
        f"/stacks/{ident}",
        {
            "template": TEMPLATE,
            "files": {
                "remote_stack.yaml": REMOTE.replace("random1", "random2")
            },
        },
    )
    assert status == 202, body
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    after = _remote(stacks, ident)
    assert after["id"] == remote["id"]
    assert _resources(stacks, remote_ident) == {
        "random2": "OS::Heat::RandomString"
    }

    for action in ("suspend", "resume"):
        status, body = cloud.request(
            "POST", f"/stacks/{ident}/actions", {action: None}
        )
        assert status == 200, body
        stacks.wait_status(ident, f"{action.upper()}_COMPLETE")
        assert stacks.status(remote_ident) == f"{action.upper()}_COMPLETE"

    stacks.delete(ident)
    wait_for(
        lambda: deleted(cloud, remote_ident),
        what="the remote stack to be deleted with its parent",
    )


def test_unknown_region_is_refused(cloud: Cloud, stacks: Stacks):
    status, body = _create(
        cloud, TEMPLATE.replace("RegionOne", "DARKHOLE"), REMOTE
    )
    assert status == 400, body
    assert body["error"]["message"] == (
        'Cannot establish connection to Heat endpoint at region "DARKHOLE" '
        'due to "public endpoint for orchestration service in DARKHOLE '
        'region not found"'
    )


def test_invalid_remote_template_is_refused(cloud: Cloud, stacks: Stacks):
    status, body = _create(
        cloud, TEMPLATE, REMOTE.replace("resources", "resource")
    )
    assert status == 400, body
    assert body["error"]["message"] == (
        "Failed validating stack template using Heat endpoint at region "
        '"RegionOne" due to "ERROR: The template section is invalid: '
        'resource"'
    )


def test_preview_validates_the_remote_template(cloud: Cloud, stacks: Stacks):
    body = {
        "stack_name": "remote-preview",
        "template": TEMPLATE,
        "files": {"remote_stack.yaml": REMOTE},
    }
    status, answer = cloud.request("POST", "/stacks/preview", body)
    assert status == 200, answer
    [res] = answer["stack"]["resources"]
    assert (res["resource_name"], res["resource_type"]) == (
        "my_stack",
        "OS::Heat::Stack",
    )
    body["files"] = {"remote_stack.yaml": REMOTE.replace("resources", "x")}
    status, answer = cloud.request("POST", "/stacks/preview", body)
    assert status == 400, answer
    assert "The template section is invalid: x" in answer["error"]["message"]
