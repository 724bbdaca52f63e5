"""PATCH updates (``existing``) keep the stored environment, registry
included, down to the nested stacks, and drop stored parameters the new
template no longer declares (Heat's ``test_stack_update_provider_group_
patch`` and ``TemplateResourceRemovedParamTest``)."""

from __future__ import annotations

import json

from tests.functional.features import nested_helpers as h
from tests.functional.software.harness import Cloud

GROUP = """
heat_template_version: 2013-05-23
parameters:
  count:
    type: number
    default: 2
resources:
  test_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: My::TestResource
"""
PROVIDER = {
    "heat_template_version": "pike",
    "resources": {
        "test1": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "from the provider"},
        }
    },
}


def test_patch_with_parameters_only_keeps_the_registry(cloud: Cloud):
    ident = h.create(
        cloud,
        GROUP,
        {"resource_registry": {"My::TestResource": "provider.template"}},
        {"provider.template": json.dumps(PROVIDER)},
    )
    group = h.nested(cloud, ident, "test_group")
    kept = {
        name: h.resource(cloud, group, name)["physical_resource_id"]
        for name in ("0", "1")
    }

    h.update(cloud, ident, {"parameters": {"count": 3}}, patch=True)

    assert h.resources(cloud, ident) == {
        "test_group": "OS::Heat::ResourceGroup"
    }
    assert h.show(cloud, group)["stack_status"] == "UPDATE_COMPLETE"
    assert h.resources(cloud, group) == {
        "0": "My::TestResource",
        "1": "My::TestResource",
        "2": "My::TestResource",
    }
    for name, physical in kept.items():
        assert h.resource(cloud, group, name)["physical_resource_id"] == (
            physical
        )
    third = h.nested(cloud, group, "2")
    assert h.resources(cloud, third) == {"test1": "OS::Heat::TestResource"}
    status, body = cloud.request("GET", f"/stacks/{ident}/environment")
    assert status == 200, body
    assert body["resource_registry"]["My::TestResource"] == (
        "provider.template"
    )
    assert body["parameters"] == {"count": 3}


MAIN = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
    default: foo
resources:
  my_resource:
    type: resource.yaml
    properties:
       value1: {get_param: value1}
"""
NESTED = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
    default: foo
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value1}
outputs:
  value:
    value: {get_attr: [test, output]}
"""
MAIN_UPDATE = """
heat_template_version: 2013-05-23
resources:
  my_resource:
    type: resource.yaml
outputs:
  value:
    value: {get_attr: [my_resource, value]}
"""
NESTED_UPDATE = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
    default: foo
  value2:
    type: string
    default: bar
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value:
        str_replace:
          template: VAL1-VAL2
          params:
            VAL1: {get_param: value1}
            VAL2: {get_param: value2}
outputs:
  value:
    value: {get_attr: [test, output]}
"""


def test_patch_drops_parameters_the_template_no_longer_has(cloud: Cloud):
    ident = h.create(
        cloud,
        MAIN,
        {"parameters": {"value1": "spam"}},
        {"resource.yaml": NESTED},
    )
    child = h.nested(cloud, ident, "my_resource")
    test = h.resource(cloud, child, "test")["physical_resource_id"]

    h.update(
        cloud,
        ident,
        {
            "template": MAIN_UPDATE,
            "environment": {"parameter_defaults": {"value2": "egg"}},
            "files": {"resource.yaml": NESTED_UPDATE},
        },
        patch=True,
    )

    assert h.outputs(cloud, ident)["value"] == "foo-egg"
    assert h.nested(cloud, ident, "my_resource") == child
    assert h.resource(cloud, child, "test")["physical_resource_id"] == test
    status, body = cloud.request("GET", f"/stacks/{ident}/environment")
    assert status == 200, body
    assert body["parameters"] == {}
    assert body["parameter_defaults"] == {"value2": "egg"}
