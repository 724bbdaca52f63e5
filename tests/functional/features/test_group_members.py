"""Template resources and group members: ``resource_facade`` inside a
provider template, the member definition of a ResourceGroup checked at
create and update, and a member type replaced with its provider
template's path (Heat's ``test_template_resource`` and
``test_resource_group`` cases)."""

from __future__ import annotations

from tests.functional.features.client import Stacks
from tests.functional.software.harness import Cloud

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
