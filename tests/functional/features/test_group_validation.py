"""A ResourceGroup's member definition is checked when the stack is
created or updated, once the group has members (Heat's
``test_resource_group`` ``test_resource_group_zero_novalidate``)."""

from __future__ import annotations

from tests.functional.features.client import Stacks
from tests.functional.software.harness import Cloud

GROUP = """
heat_template_version: 2013-05-23
resources:
  random_group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 0
      resource_def:
        type: My::RandomString
        properties:
          length: 30
          salt: initial
"""
BAD_MEMBER = """
heat_template_version: 2013-05-23
parameters:
  length:
    type: string
    default: 50
  salt:
    type: string
    default: initial
resources:
  random:
    type: OS::Heat::RandomString
    properties:
      length: BAD
"""
# Heat's text, its ": : " included (the error is rebuilt from its
# formatted parts on the API's side of the RPC)
BAD_MEMBER_ERROR = (
    "ValueError: : resources.random_group<nested_stack>.resources."
    "0<provider.yaml>.resources.random: : Value 'BAD' is not an integer"
)


def test_group_member_checked_once_it_has_members(cloud: Cloud):
    stacks = Stacks(cloud)
    env = {"resource_registry": {"My::RandomString": "provider.yaml"}}
    files = {"provider.yaml": BAD_MEMBER}
    ident = stacks.create(GROUP, env=env, files=files, prefix="group")
    stacks.wait_status(ident, "CREATE_COMPLETE")
    nested = stacks.nested(ident, "random_group")
    status, body = cloud.request("GET", f"/stacks/{nested}/resources")
    assert (status, body["resources"]) == (200, [])

    two = GROUP.replace("count: 0", "count: 2")
    status, body = cloud.request(
        "PUT",
        f"/stacks/{ident}",
        {"template": two, "environment": env, "files": files},
    )
    assert status == 400, body
    assert body["error"]["message"] == BAD_MEMBER_ERROR
    assert stacks.status(ident) == "CREATE_COMPLETE"

    status, body = cloud.request(
        "POST",
        "/stacks",
        {
            "stack_name": "group-bad",
            "template": two,
            "environment": env,
            "files": files,
        },
    )
    assert status == 400, body
    assert body["error"]["message"] == BAD_MEMBER_ERROR
