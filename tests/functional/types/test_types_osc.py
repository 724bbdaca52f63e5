"""Resource types, template functions, validate and preview through the
real path: ``openstack`` CLI → HTTP → API → RPC → engine."""

from __future__ import annotations

import json
import pathlib

import yaml

TEMPLATE = """
heat_template_version: 2021-04-16
description: two values
parameters:
  greeting:
    type: string
    default: hello
    constraints:
      - length: {min: 1, max: 20}
resources:
  first:
    type: OS::Heat::Value
    properties:
      value: {get_param: greeting}
  second:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [first, value]}
outputs:
  out:
    value: {get_attr: [second, output]}
"""


def _json(result) -> object:
    return json.loads(result.stdout)


def test_resource_type_list_admin_and_member(cloud):
    admin = {
        row["Resource Type"]
        for row in _json(
            cloud.openstack(
                "orchestration", "resource", "type", "list", "-f", "json"
            )
        )
    }
    assert "OS::Heat::TestResource" in admin
    assert "OS::Heat::RandomString" in admin
    # this cloud has no Keystone, so no identity service in a catalog:
    # the Keystone pack's types are left out, as Heat leaves out the
    # types of services its catalog lacks
    assert not any(n.startswith("OS::Keystone::") for n in admin)
    assert "OS::Heat::SoftwareDeployments" not in admin  # hidden
    member = {
        row["Resource Type"]
        for row in _json(
            cloud.openstack(
                "orchestration",
                "resource",
                "type",
                "list",
                "-f",
                "json",
                who="member",
            )
        )
    }
    assert "OS::Heat::TestResource" in member
    assert not any(n.startswith("OS::Keystone::") for n in member)


def test_resource_type_list_filters(cloud):
    rows = _json(
        cloud.openstack(
            "orchestration",
            "resource",
            "type",
            "list",
            "--filter",
            "name=OS::Heat::Rand",
            "--long",
            "-f",
            "json",
        )
    )
    assert [r["Resource Type"] for r in rows] == ["OS::Heat::RandomString"]
    assert rows[0]["Description"]


def test_resource_type_show(cloud):
    shown = yaml.safe_load(
        cloud.openstack(
            "orchestration",
            "resource",
            "type",
            "show",
            "OS::Heat::TestResource",
            "-f",
            "yaml",
        ).stdout
    )
    assert shown["resource_type"] == "OS::Heat::TestResource"
    assert shown["properties"]["value"]["type"] == "string"
    assert shown["support_status"]["status"] == "SUPPORTED"
    hot = yaml.safe_load(
        cloud.openstack(
            "orchestration",
            "resource",
            "type",
            "show",
            "OS::Heat::TestResource",
            "--template-type",
            "hot",
            "-f",
            "yaml",
        ).stdout
    )
    assert hot["heat_template_version"] == "2016-10-14"
    assert hot["resources"]["TestResource"]["type"] == (
        "OS::Heat::TestResource"
    )
    value = yaml.safe_load(
        cloud.openstack(
            "orchestration",
            "resource",
            "type",
            "show",
            "OS::Heat::Value",
            "--template-type",
            "hot",
            "-f",
            "yaml",
        ).stdout
    )
    assert value["parameters"]["value"]["type"] == "json"


def test_resource_type_errors(cloud):
    status, body = cloud.request("GET", "/resource_types/OS::No::Such")
    assert status == 404
    assert body["error"]["type"] == "EntityNotFound"
    assert body["error"]["message"] == (
        "The Resource Type (OS::No::Such) could not be found."
    )
    status, body = cloud.request(
        "GET", "/resource_types/OS::Keystone::Project", who="member"
    )
    assert status == 403
    status, body = cloud.request(
        "GET", "/resource_types/OS::Keystone::Project"
    )
    assert status == 400, body
    assert body["error"]["type"] == "ResourceTypeUnavailable"
    assert body["error"]["message"] == (
        "HEAT-E99001 Service keystone is not available for resource type "
        "OS::Keystone::Project, reason: Service endpoint not in service "
        "catalog."
    )


def test_function_list(cloud):
    rows = _json(
        cloud.openstack(
            "orchestration",
            "template",
            "function",
            "list",
            "2021-04-16",
            "-f",
            "json",
        )
    )
    names = {r["Functions"] for r in rows}
    assert {"get_attr", "str_replace", "if", "yaql"} <= names
    assert "Fn::GetAZs" not in names


def test_template_validate(cloud, tmp_path: pathlib.Path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    result = yaml.safe_load(
        cloud.openstack(
            "orchestration",
            "template",
            "validate",
            "-t",
            str(path),
            "-f",
            "yaml",
        ).stdout
    )
    assert result["Description"] == "two values"
    assert result["Parameters"]["greeting"]["Default"] == "hello"
    assert result["Parameters"]["greeting"]["MaxLength"] == 20
    assert "Environment" in result


def test_template_validate_with_environment_file(cloud, tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    env = tmp_path / "env.yaml"
    env.write_text("parameters:\n  greeting: bonjour\n")
    result = yaml.safe_load(
        cloud.openstack(
            "orchestration",
            "template",
            "validate",
            "-t",
            str(path),
            "-e",
            str(env),
            "-f",
            "yaml",
        ).stdout
    )
    assert result["Parameters"]["greeting"]["Value"] == "bonjour"
    assert result["Environment"]["parameters"]["greeting"] == "bonjour"


def test_template_validate_error(cloud, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "heat_template_version: 2021-04-16\n"
        "resources:\n  r:\n    type: OS::Heat::Nope\n"
    )
    result = cloud.openstack(
        "orchestration", "template", "validate", "-t", str(path), ok=False
    )
    assert result.returncode != 0
    assert "The Resource Type (OS::Heat::Nope) could not be found." in (
        result.stderr
    )


def test_stack_create_dry_run(cloud, tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEMPLATE)
    shown = yaml.safe_load(
        cloud.openstack(
            "stack",
            "create",
            "--dry-run",
            "-t",
            str(path),
            "preview1",
            "-f",
            "yaml",
        ).stdout
    )
    assert shown["stack_name"] == "preview1"
    status, body = cloud.request(
        "POST",
        "/stacks/preview",
        {"stack_name": "preview2", "template": TEMPLATE},
    )
    assert status == 200, body
    stack = body["stack"]
    assert stack["id"] == "None"
    assert "stack_status" not in stack
    by_name = {r["resource_name"]: r for r in stack["resources"]}
    assert set(by_name) == {"first", "second"}
    assert by_name["first"]["required_by"] == ["second"]
    assert by_name["first"]["resource_action"] == "INIT"
    assert by_name["first"]["properties"] == {"value": "hello", "type": None}
    # nothing was stored
    status, listing = cloud.request("GET", "/stacks")
    assert listing["stacks"] == []


def test_preview_refuses_admin_only_type_for_member(cloud):
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {"p": {"type": "OS::Keystone::Project"}},
    }
    status, body = cloud.request(
        "POST",
        "/stacks/preview",
        {"stack_name": "kp", "template": template},
        who="member",
    )
    assert status == 403, body
    assert body["error"]["message"].startswith("You are not authorized to use")


def _wait_complete(cloud, name: str) -> dict:
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, body = cloud.request("GET", f"/stacks/{name}")
        if status == 302 or body is None:
            time.sleep(0.2)
            continue
        stack = body["stack"]
        if stack["stack_status"] != "CREATE_IN_PROGRESS":
            assert stack["stack_status"] == "CREATE_COMPLETE", stack
            return stack
        time.sleep(0.2)
    raise AssertionError("stack did not complete")


def test_preview_update_and_find_physical_resource(cloud):
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "keep": {"type": "OS::Heat::None"},
            "change": {"type": "OS::Heat::Value", "properties": {"value": 1}},
            "drop": {"type": "OS::Heat::None"},
        },
    }
    status, body = cloud.request(
        "POST", "/stacks", {"stack_name": "upd", "template": template}
    )
    assert status == 201, body
    stack = _wait_complete(cloud, "upd")
    new = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "keep": {"type": "OS::Heat::None"},
            "change": {"type": "OS::Heat::Value", "properties": {"value": 2}},
            "new": {"type": "OS::Heat::None"},
        },
    }
    path = f"/stacks/upd/{stack['id']}/preview"
    status, body = cloud.request("PUT", path, {"template": new})
    assert status == 200, body
    changes = body["resource_changes"]
    names = {k: [r["resource_name"] for r in v] for k, v in changes.items()}
    assert names == {
        "unchanged": ["keep"],
        "updated": ["change"],
        "replaced": [],
        "added": ["new"],
        "deleted": ["drop"],
    }
    # the stack itself did not change
    status, body = cloud.request("GET", f"/stacks/upd/{stack['id']}/template")
    assert body == template

    endpoint = cloud.engine.engine_endpoints[0]
    from keel_heat_core.context import RequestContext

    ctxt = RequestContext(project_id="embedded", roles=["member"])
    resources = endpoint.list_stack_resources(ctxt, {"stack_id": stack["id"]})
    physical = next(
        r["physical_resource_id"]
        for r in resources
        if r["resource_name"] == "keep"
    )
    found = endpoint.find_physical_resource(ctxt, physical)
    assert found["stack_id"] == stack["id"]
    assert found["path"] == "/resources/keep"
    other = RequestContext(project_id="someone-else", roles=["member"])
    from keel_heat_core import exception

    try:
        endpoint.find_physical_resource(other, physical)
    except exception.EntityNotFound as err:
        assert str(err) == f"The Resource ({physical}) could not be found."
    else:
        raise AssertionError("another project found the resource")


def test_a_type_only_admins_may_use_is_forbidden_even_unserved(cloud):
    """Policy before existence, as Heat: a member creating an
    OS::Nova::Flavor gets 403 naming the type, though no pack here
    provides it; an admin learns that its service's pack is missing."""
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {"flavor": {"type": "OS::Nova::Flavor"}},
    }
    body = {"stack_name": "flavors", "template": template}
    status, answer = cloud.request("POST", "/stacks", body, who="member")
    assert status == 403, answer
    assert "OS::Nova::Flavor" in answer["error"]["message"]
    status, answer = cloud.request("POST", "/stacks", body, who="admin")
    assert status == 400, answer
    assert answer["error"]["type"] == "ResourceTypeUnavailable"
    assert answer["error"]["message"] == (
        "HEAT-E99001 Service nova is not available for resource type "
        "OS::Nova::Flavor, reason: no installed keel-heat pack provides it"
    )


def test_a_heat_type_without_its_pack_is_unavailable(cloud):
    """Heat's ServiceBasedExposureTest: a type of a service the cloud (here:
    the installation) lacks is ResourceTypeUnavailable, not listed; a name
    Heat never had is still "could not be found"."""
    status, listed = cloud.request("GET", "/resource_types")
    assert not any("Manila" in t for t in listed["resource_types"])
    share = {
        "heat_template_version": "2015-10-15",
        "resources": {"share": {"type": "OS::Manila::Share"}},
    }
    status, answer = cloud.request(
        "POST", "/stacks", {"stack_name": "share", "template": share}
    )
    assert status == 400, answer
    assert answer["error"]["type"] == "ResourceTypeUnavailable"
    assert "OS::Manila::Share" in answer["error"]["message"]
    typo = {
        "heat_template_version": "2015-10-15",
        "resources": {"share": {"type": "OS::Manila::Shares"}},
    }
    status, answer = cloud.request(
        "POST", "/stacks", {"stack_name": "typo", "template": typo}
    )
    assert status == 400, answer
    assert answer["error"]["message"].endswith(
        "The Resource Type (OS::Manila::Shares) could not be found."
    )
