"""Hidden types Heat still accepts (issue 30, 18).

``OS::Heat::SoftwareDeployments`` and ``OS::Heat::StructuredDeployments``
(the former names of the deployment groups) and ``OS::Heat::HARestarter``
(now a placeholder) are hidden: the type list leaves them out and showing
one answers Heat's 400 ``NotSupported``, but templates that use them
create and delete stacks. Heat's answers are the pack's copy of Heat 27's
resource-type data.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
import yaml

from tests.functional.features.client import Stacks, deleted
from tests.functional.software.harness import Cloud, wait_for

HIDDEN = (
    "OS::Heat::HARestarter",
    "OS::Heat::SoftwareDeployments",
    "OS::Heat::StructuredDeployments",
)
HEAT_DATA = (
    pathlib.Path(__file__).parents[3]
    / "resource_packs/heat/tests/data/heat27_resource_types.json"
)
HEAT: dict[str, Any] = json.loads(HEAT_DATA.read_text())

TEMPLATE = yaml.safe_load(
    """
heat_template_version: '2015-04-30'
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      config: echo hello
  deployments:
    type: OS::Heat::SoftwareDeployments
    properties:
      config: {get_resource: config}
      servers: {}
      signal_transport: NO_SIGNAL
  structured:
    type: OS::Heat::StructuredDeployments
    properties:
      config: {get_resource: config}
      servers: {}
      signal_transport: NO_SIGNAL
  restarter:
    type: OS::Heat::HARestarter
    properties:
      InstanceId: an-old-server
"""
)


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def test_hidden_types_are_not_listed(cloud: Cloud) -> None:
    status, body = cloud.request("GET", "/resource_types")
    assert status == 200, body
    listed = set(body["resource_types"])
    assert "OS::Heat::SoftwareDeploymentGroup" in listed
    assert listed.isdisjoint(HIDDEN)
    for type_name in HIDDEN:
        assert not HEAT[type_name]["listed"]["member"]


@pytest.mark.parametrize("type_name", HIDDEN)
def test_showing_a_hidden_type_answers_heats_error(
    cloud: Cloud, type_name: str
) -> None:
    heat = HEAT[type_name]
    status, body = cloud.request("GET", f"/resource_types/{type_name}")
    assert status == heat["api_error"]["http_status"] == 400
    assert body == heat["api_error"]["api_body"]
    for kind in ("hot", "cfn"):
        status, body = cloud.request(
            "GET",
            f"/resource_types/{type_name}/template?template_type={kind}",
        )
        assert status == 400
        assert body == heat["template_api_error"][kind]["api_body"]


def test_templates_using_hidden_types_create_and_delete(
    cloud: Cloud, stacks: Stacks
) -> None:
    ident = stacks.create(TEMPLATE, prefix="hidden")
    stacks.wait_status(ident, "CREATE_COMPLETE")
    status, body = cloud.request("GET", f"/stacks/{ident}/resources")
    assert status == 200, body
    assert {
        r["resource_name"]: r["resource_type"] for r in body["resources"]
    } == {
        "config": "OS::Heat::SoftwareConfig",
        "deployments": "OS::Heat::SoftwareDeployments",
        "structured": "OS::Heat::StructuredDeployments",
        "restarter": "OS::Heat::HARestarter",
    }
    # the placeholder ignores the old HARestarter's properties
    assert stacks.resource(ident, "restarter")["physical_resource_id"]
    stacks.delete(ident)
    wait_for(
        lambda: deleted(cloud, ident),
        what="the stack to be deleted",
    )


def test_renaming_to_the_substitute_updates_in_place(
    cloud: Cloud, stacks: Stacks
) -> None:
    """A template moving from the old names to the deployment groups
    keeps its resources, as Heat does for a class's named substitute."""
    ident = stacks.create(TEMPLATE, prefix="renamed")
    stacks.wait_status(ident, "CREATE_COMPLETE")
    before = {
        name: stacks.resource(ident, name)["physical_resource_id"]
        for name in ("deployments", "structured")
    }
    renamed = json.loads(json.dumps(TEMPLATE))
    resources = renamed["resources"]
    resources["deployments"]["type"] = "OS::Heat::SoftwareDeploymentGroup"
    resources["structured"]["type"] = "OS::Heat::StructuredDeploymentGroup"
    stacks.update(ident, renamed)
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    for name, physical_id in before.items():
        shown = stacks.resource(ident, name)
        assert shown["physical_resource_id"] == physical_id, name
    assert stacks.resource(ident, "deployments")["resource_type"] == (
        "OS::Heat::SoftwareDeploymentGroup"
    )
