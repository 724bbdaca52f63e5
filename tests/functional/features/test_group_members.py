"""Template resources and group members: ``resource_facade`` inside a
provider template, and a group member type moved to another template
path in a rolling update (Heat's ``test_template_resource`` and
``test_resource_group`` cases)."""

from __future__ import annotations

from tests.functional.features.client import Stacks, deleted
from tests.functional.software.harness import Cloud, wait_for

FACADE_PARENT = """
heat_template_version: 2013-05-23
resources:
  the_nested:
    type: the.yaml
    metadata:
      foo: bar
    deletion_policy: Retain
    update_policy:
      batch: 2
outputs:
  value:
    value: {get_attr: [the_nested, output]}
  policy:
    value: {get_attr: [the_nested, policy]}
  update_policy:
    value: {get_attr: [the_nested, update_policy]}
"""
FACADE_NESTED = """
heat_template_version: 2013-05-23
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value: {"Fn::Select": [foo, {resource_facade: metadata}]}
  policy:
    type: OS::Heat::TestResource
    properties:
      value: {resource_facade: deletion_policy}
outputs:
  output:
    value: {get_attr: [test, output]}
  policy:
    value: {get_attr: [policy, output]}
  update_policy:
    value: {resource_facade: update_policy}
"""


def test_resource_facade_in_a_provider_template(cloud: Cloud):
    stacks = Stacks(cloud)
    ident = stacks.create(
        FACADE_PARENT, files={"the.yaml": FACADE_NESTED}, prefix="facade"
    )
    shown = stacks.wait_status(ident, "CREATE_COMPLETE")
    outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
    assert outputs == {
        "value": "bar",
        "policy": "Retain",
        "update_policy": {"batch": 2},
    }


MEMBER = """
heat_template_version: "2013-05-23"
resources:
  oops:
    type: OS::Heat::TestResource
"""


def _rolling_group(member_type: str) -> dict:
    return {
        "heat_template_version": "2015-04-30",
        "resources": {
            "random_group": {
                "type": "OS::Heat::ResourceGroup",
                "update_policy": {
                    "rolling_update": {
                        "min_in_service": 1,
                        "max_batch_size": 3,
                        "pause_time": 0,
                    }
                },
                "properties": {
                    "count": 4,
                    "resource_def": {"type": member_type},
                },
            }
        },
    }


def test_group_member_template_moved_to_another_path(cloud: Cloud):
    stacks = Stacks(cloud)
    ident = stacks.create(
        _rolling_group("/opt/provider.yaml"),
        files={"/opt/provider.yaml": MEMBER},
        prefix="moved",
    )
    stacks.wait_status(ident, "CREATE_COMPLETE")
    nested = stacks.nested(ident, "random_group")
    status, body = cloud.request("GET", f"/stacks/{nested}/resources")
    before = {r["physical_resource_id"] for r in body["resources"]}
    assert len(before) == 4

    # the old member type is only in the old files map
    stacks.update(
        ident,
        _rolling_group("/opt1/provider.yaml"),
        files={"/opt1/provider.yaml": MEMBER},
    )
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    status, body = cloud.request("GET", f"/stacks/{nested}/resources")
    assert status == 200, body
    types = {r["resource_type"] for r in body["resources"]}
    assert types == {"/opt1/provider.yaml"}
    assert len(body["resources"]) == 4


HEAT_FACADE_PARENT = """
heat_template_version: 2013-05-23
resources:
  the_nested:
    type: the.yaml
    metadata:
      foo: bar
outputs:
  value:
    value: {get_attr: [the_nested, output]}
"""


def test_a_provider_using_resource_facade_deletes(cloud: Cloud):
    """Heat's TemplateResourceFacadeTest, delete included: the child's
    resource is cleaned up though its properties read resource_facade
    (the delete once retried them without the parent, for good)."""
    stacks = Stacks(cloud)
    ident = stacks.create(
        HEAT_FACADE_PARENT, files={"the.yaml": FACADE_NESTED}, prefix="fd"
    )
    shown = stacks.wait_status(ident, "CREATE_COMPLETE")
    assert shown["outputs"][0]["output_value"] == "bar"
    stacks.delete(ident)
    wait_for(
        lambda: deleted(cloud, ident),
        timeout=60,
        what="the stack and its child to be deleted",
    )
