"""A nested stack is updated whenever its parent is, even when the
parent's resource definition did not change (Heat's
``test_stack_update_provider``, ``test_change_in_file_path``,
``test_stack_update_provider_group``)."""

from __future__ import annotations

import json

from tests.functional.features import nested_helpers as h
from tests.functional.software.harness import Cloud

PARENT = {
    "heat_template_version": "2013-05-23",
    "resources": {"test1": {"type": "My::TestResource"}},
}
GROUP_PARENT = {
    "heat_template_version": "2013-05-23",
    "resources": {
        "test_group": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 2,
                "resource_def": {"type": "My::TestResource"},
            },
        }
    },
}
ENV = {"resource_registry": {"My::TestResource": "provider.template"}}


def _provider(*names: str) -> str:
    return json.dumps(
        {
            "heat_template_version": "pike",
            "resources": {
                name: {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": "from the provider"},
                }
                for name in names
            },
        }
    )


def test_changed_provider_template_reaches_the_nested_stack(cloud: Cloud):
    files = {"provider.template": _provider("test1")}
    ident = h.create(cloud, PARENT, ENV, files)
    child = h.nested(cloud, ident, "test1")
    inner = h.resource(cloud, child, "test1")["physical_resource_id"]

    files = {"provider.template": _provider("test1", "test2")}
    h.update(
        cloud, ident, {"template": PARENT, "environment": ENV, "files": files}
    )

    assert h.resources(cloud, ident) == {"test1": "My::TestResource"}
    outer = h.resource(cloud, ident, "test1")
    assert outer["physical_resource_id"] == child.split("/")[1]
    assert h.show(cloud, child)["stack_status"] == "UPDATE_COMPLETE"
    assert h.resources(cloud, child) == {
        "test1": "OS::Heat::TestResource",
        "test2": "OS::Heat::TestResource",
    }
    assert h.resource(cloud, child, "test1")["physical_resource_id"] == inner


SECRET = """
heat_template_version: 2013-05-23
resources:
  secret1:
    type: OS::Heat::RandomString
outputs:
  secret-out:
    value: { get_attr: [secret1, value] }
"""
NESTED_SECRET = """
heat_template_version: 2013-05-23
resources:
  secret2:
    type: OS::Heat::RandomString
outputs:
  value:
    value: %s
"""


def test_registry_pointing_at_a_new_file_updates_the_nested_stack(
    cloud: Cloud,
):
    ident = h.create(
        cloud,
        SECRET,
        {"resource_registry": {"OS::Heat::RandomString": "nested.yaml"}},
        {"nested.yaml": NESTED_SECRET % "{ get_attr: [secret2, value] }"},
    )
    child = h.nested(cloud, ident, "secret1")
    first = h.outputs(cloud, ident)["secret-out"]
    assert first

    h.update(
        cloud,
        ident,
        {
            "template": SECRET,
            "environment": {
                "resource_registry": {
                    "OS::Heat::RandomString": "new/nested.yaml"
                }
            },
            "files": {"new/nested.yaml": NESTED_SECRET % "freddy"},
        },
    )

    assert h.outputs(cloud, ident)["secret-out"] == "freddy"
    outer = h.resource(cloud, ident, "secret1")
    assert outer["physical_resource_id"] == child.split("/")[1]


DEFAULTED = """
heat_template_version: 2013-05-23
parameters:
  greeting:
    type: string
    default: hello
outputs:
  said:
    value: {get_param: greeting}
"""
SAYS = """
heat_template_version: 2013-05-23
resources:
  speaker:
    type: speaker.yaml
outputs:
  said:
    value: {get_attr: [speaker, said]}
"""


def test_changed_parameter_defaults_reach_the_nested_stack(cloud: Cloud):
    files = {"speaker.yaml": DEFAULTED}
    env = {"parameter_defaults": {"greeting": "bonjour"}}
    ident = h.create(cloud, SAYS, env, files)
    assert h.outputs(cloud, ident)["said"] == "bonjour"
    child = h.nested(cloud, ident, "speaker")

    env = {"parameter_defaults": {"greeting": "hallo"}}
    h.update(
        cloud, ident, {"template": SAYS, "environment": env, "files": files}
    )

    assert h.outputs(cloud, ident)["said"] == "hallo"
    assert h.show(cloud, child)["stack_status"] == "UPDATE_COMPLETE"


def test_changed_provider_reaches_members_of_a_group(cloud: Cloud):
    files = {"provider.template": _provider("test1")}
    ident = h.create(cloud, GROUP_PARENT, ENV, files)
    group = h.nested(cloud, ident, "test_group")
    members = {"0": "My::TestResource", "1": "My::TestResource"}
    assert h.resources(cloud, group) == members

    files = {"provider.template": _provider("test1", "test2")}
    h.update(
        cloud,
        ident,
        {"template": GROUP_PARENT, "environment": ENV, "files": files},
    )

    assert h.show(cloud, group)["stack_status"] == "UPDATE_COMPLETE"
    assert h.resources(cloud, group) == members
    for member in members:
        provider = h.nested(cloud, group, member)
        assert h.resources(cloud, provider) == {
            "test1": "OS::Heat::TestResource",
            "test2": "OS::Heat::TestResource",
        }


PARAM_MAIN = """
heat_template_version: 2013-05-23
resources:
  my_resource:
    type: resource.yaml
    properties:
      value1: foo
"""
PARAM_NESTED = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: value1}
"""
PARAM_MAIN_UPDATE = PARAM_MAIN + "      value2: bar\n"
PARAM_NESTED_UPDATE = """
heat_template_version: 2013-05-23
parameters:
  value1:
    type: string
  value2:
    type: string
resources:
  test:
    type: OS::Heat::TestResource
    properties:
      fail: %s
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


def test_a_failed_nested_stack_is_fixed_in_place(cloud: Cloud):
    ident = h.create(cloud, PARAM_MAIN, files={"resource.yaml": PARAM_NESTED})
    child = h.nested(cloud, ident, "my_resource")

    h.update(
        cloud,
        ident,
        {
            "template": PARAM_MAIN_UPDATE,
            "files": {"resource.yaml": PARAM_NESTED_UPDATE % "true"},
        },
        state="UPDATE_FAILED",
    )
    assert h.resource(cloud, ident, "my_resource")["resource_status"] == (
        "UPDATE_FAILED"
    )
    h.update(
        cloud,
        ident,
        {
            "template": PARAM_MAIN_UPDATE,
            "files": {"resource.yaml": PARAM_NESTED_UPDATE % "false"},
        },
    )

    assert h.nested(cloud, ident, "my_resource") == child
    assert h.show(cloud, child)["stack_status"] == "UPDATE_COMPLETE"
    assert h.resources(cloud, ident) == {"my_resource": "resource.yaml"}
    status, body = cloud.request("GET", f"/stacks/{child}/outputs/value")
    assert status == 200, body
    assert body["output"]["output_value"] == "foo-bar"
