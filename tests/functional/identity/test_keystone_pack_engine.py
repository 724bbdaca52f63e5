"""The Keystone pack run by the engine: API → RPC → engine → Keystone.

The admin creates, updates (in place and by replacement) and deletes
OS::Keystone::* resources through the native API; the engine's client
sessions come from the stack's trust. What happened is checked in
Keystone with openstacksdk. A member may not use the admin-only types.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from openstack import connection

from keel_heat_core.testing.keystone import KeystoneServer
from tests.functional.identity.harness import KeystoneCloud

pytestmark = pytest.mark.keystone


def _template(
    role: str, project: str, description: str, role_domain: str | None
) -> dict[str, Any]:
    role_props: dict[str, Any] = {"name": role}
    if role_domain:
        role_props["domain"] = role_domain
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "role": {"type": "OS::Keystone::Role", "properties": role_props},
            "project": {
                "type": "OS::Keystone::Project",
                "properties": {
                    "name": project,
                    "domain": "default",
                    "description": description,
                },
            },
        },
        "outputs": {
            "role_id": {"value": {"get_resource": "role"}},
            "project_id": {"value": {"get_resource": "project"}},
        },
    }


def _outputs(cloud: KeystoneCloud, user: Any, stack_id: str) -> dict[str, Any]:
    return cloud.outputs(user, stack_id)


def test_admin_creates_updates_and_deletes_keystone_objects(
    cloud: KeystoneCloud,
    keystone: KeystoneServer,
    conn: connection.Connection,
) -> None:
    admin = keystone.admin
    tag = uuid.uuid4().hex[:8]
    role_name, project_name = f"ks-role-{tag}", f"ks-proj-{tag}"
    stack_id = cloud.create(
        admin,
        f"ks-{tag}",
        _template(role_name, project_name, "first", None),
        timeout_mins=5,
    )
    cloud.wait_state(admin, stack_id, ("CREATE_COMPLETE",))
    out = _outputs(cloud, admin, stack_id)
    role = conn.identity.get_role(out["role_id"])
    assert role.name == role_name and role.domain_id is None
    project = conn.identity.get_project(out["project_id"])
    assert (project.name, project.description) == (project_name, "first")
    assert project.domain_id == "default"

    # in place (description) and by replacement (a role's domain)
    status, body = cloud.request(
        admin,
        "PUT",
        cloud.path(stack_id),
        {"template": _template(role_name, project_name, "second", "default")},
    )
    assert status == 202, body
    cloud.wait_state(admin, stack_id, ("UPDATE_COMPLETE",))
    after = _outputs(cloud, admin, stack_id)
    assert after["project_id"] == out["project_id"]
    assert conn.identity.get_project(out["project_id"]).description == (
        "second"
    )
    assert after["role_id"] != out["role_id"]
    new_role = conn.identity.get_role(after["role_id"])
    assert (new_role.name, new_role.domain_id) == (role_name, "default")
    assert conn.identity.find_role(out["role_id"]) is None

    status, body = cloud.request(admin, "DELETE", cloud.path(stack_id))
    assert status == 204, body
    cloud.wait_deleted(admin, stack_id)
    assert conn.identity.find_role(after["role_id"]) is None
    assert conn.identity.find_project(out["project_id"]) is None


def test_a_failing_constraint_is_heats_validation_error(
    cloud: KeystoneCloud, keystone: KeystoneServer
) -> None:
    tmpl = _template("ks-role-x", "ks-proj-x", "d", None)
    tmpl["resources"]["project"]["properties"]["domain"] = "no-such-domain"
    status, body = cloud.request(
        keystone.admin,
        "POST",
        "/stacks",
        {"stack_name": "ks-bad-domain", "template": tmpl},
    )
    assert status == 400, body
    assert body["error"]["type"] == "StackValidationFailed"
    # Heat's text after the RPC rebuild (the doubled ": " is Heat's)
    assert body["error"]["message"] == (
        "Property error: : resources.project.properties.domain: : "
        "Error validating value 'no-such-domain': "
        "The KeystoneDomain (no-such-domain) could not be found."
    )


@pytest.mark.parametrize(
    "type_name", ["OS::Keystone::Role", "OS::Keystone::Project"]
)
def test_a_member_may_not_use_an_admin_only_type(
    cloud: KeystoneCloud, keystone: KeystoneServer, type_name: str
) -> None:
    tmpl = {
        "heat_template_version": "2018-08-31",
        "resources": {"x": {"type": type_name, "properties": {}}},
    }
    status, body = cloud.request(
        keystone.demo,
        "POST",
        "/stacks",
        {"stack_name": "ks-forbidden", "template": tmpl},
    )
    assert status == 403, body
    assert body["error"]["type"] == "Forbidden"
    assert body["error"]["message"] == (
        f"You are not authorized to use {type_name}."
    )
    status, body = cloud.request(keystone.demo, "GET", "/stacks")
    assert status == 200
    assert "ks-forbidden" not in {s["stack_name"] for s in body["stacks"]}
