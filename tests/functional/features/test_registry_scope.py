"""Where a registry mapping of a type to a template applies (Heat's
``TemplateResourceTest``): in the stack that maps it and below, but not
again inside the template it maps to."""

from __future__ import annotations

from tests.functional.features import nested_helpers as h
from tests.functional.software.harness import Cloud

SECRET = """
heat_template_version: 2013-05-23
resources:
  secret1:
    type: OS::Heat::RandomString
outputs:
  secret-out:
    value: { get_attr: [secret1, value] }
"""
NESTED = """
heat_template_version: 2013-05-23
resources:
  secret2:
    type: OS::Heat::RandomString
outputs:
  value:
    value: { get_attr: [secret2, value] }
"""


def test_a_mapped_type_is_the_real_one_inside_its_template(cloud: Cloud):
    ident = h.create(
        cloud,
        SECRET,
        {"resource_registry": {"OS::Heat::RandomString": "nested.yaml"}},
        {"nested.yaml": NESTED},
    )
    child = h.nested(cloud, ident, "secret1")
    assert h.resources(cloud, child) == {"secret2": "OS::Heat::RandomString"}
    inner = h.resource(cloud, child, "secret2")
    assert inner["parent_resource"] == "secret1"
    assert h.show(cloud, child)["parent"] == ident.split("/")[1]
    value = h.outputs(cloud, ident)["secret-out"]
    assert value == inner["attributes"]["value"]
    assert len(value) == 32


def test_other_mappings_reach_the_nested_template(cloud: Cloud):
    main = SECRET.replace("OS::Heat::RandomString", "My::NestedSecret")
    nested = NESTED.replace("OS::Heat::RandomString", "My::Secret")
    env = {
        "resource_registry": {
            "My::Secret": "OS::Heat::RandomString",
            "My::NestedSecret": "nested.yaml",
        }
    }
    ident = h.create(cloud, main, env, {"nested.yaml": nested})
    child = h.nested(cloud, ident, "secret1")
    assert h.resources(cloud, child) == {"secret2": "My::Secret"}
    assert h.resource(cloud, child, "secret2")["parent_resource"] == "secret1"


SELF = """
heat_template_version: 2013-05-23
resources:
  again:
    type: self.yaml
"""


def test_a_template_resource_that_includes_itself_is_refused(cloud: Cloud):
    status, body = cloud.request(
        "POST",
        "/stacks",
        {
            "stack_name": "includes-itself",
            "template": SELF,
            "files": {"self.yaml": SELF},
        },
    )
    assert status == 400, body
    assert body["error"]["type"] == "StackValidationFailed"
    # one path item per stack Heat would nest, root included; the
    # doubled ": " is what heat-api shows of a path error that crossed
    # the RPC bus
    path = ".".join(["resources.again<self.yaml>"] * 6)
    assert body["error"]["message"] == (
        f"RequestLimitExceeded: : {path}: : "
        "Request limit exceeded: Recursion depth exceeds 5."
    )
    status, body = cloud.request("GET", "/stacks/includes-itself")
    assert status == 404, body


MERGED = """
heat_template_version: 2015-04-30
parameters:
  p0: {type: string, default: CORRECT}
  p1: {type: string, default: INCORRECT}
  p2: {type: string, default: INCORRECT}
resources:
  r1: {type: test::R1}
  r2: {type: test::R2}
  r3a: {type: test::R3}
  r3b: {type: test::R3}
"""
ENV_1 = """
parameters: {p1: CORRECT, p2: INCORRECT-E1}
resource_registry:
  test::R1: OS::Heat::RandomString
  test::R2: BROKEN
  test::R3: OS::Heat::None
"""
ENV_2 = """
parameters: {p2: CORRECT}
resource_registry:
  test::R2: OS::Heat::RandomString
  resources:
    r3b:
      test::R3: OS::Heat::RandomString
"""


def test_environment_files_merge_and_scope_per_resource(cloud: Cloud):
    status, body = cloud.request(
        "POST",
        "/stacks",
        {
            "stack_name": "env-merge",
            "template": MERGED,
            "files": {"env1.yaml": ENV_1, "env2.yaml": ENV_2},
            "environment_files": ["env1.yaml", "env2.yaml"],
        },
    )
    assert status == 201, body
    ident = f"env-merge/{body['stack']['id']}"
    shown = h.wait(cloud, ident, "CREATE_COMPLETE")
    assert {k: shown["parameters"][k] for k in ("p0", "p1", "p2")} == {
        "p0": "CORRECT",
        "p1": "CORRECT",
        "p2": "CORRECT",
    }
    assert len(h.resources(cloud, ident)) == 4
    assert len(h.resource(cloud, ident, "r3b")["attributes"]["value"]) == 32
