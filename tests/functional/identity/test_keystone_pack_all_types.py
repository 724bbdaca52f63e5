"""Every OS::Keystone::* type of the pack, run by the engine in one stack.

An admin creates the ten types through the native API (API → RPC →
engine → the pack → the real Keystone, with the stack's trust), updates
them in place and by replacement, and deletes the stack; openstacksdk
checks Keystone after each step.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from openstack import connection

from keel_heat_core.testing.keystone import KeystoneServer
from tests.functional.identity.harness import KeystoneCloud

pytestmark = pytest.mark.keystone

TYPES = (
    "Domain",
    "Region",
    "Service",
    "Endpoint",
    "Project",
    "Role",
    "Group",
    "User",
    "UserRoleAssignment",
    "GroupRoleAssignment",
)


def _template(
    tag: str, generation: str, role_domain: bool = False, region: str = "a"
) -> dict[str, Any]:
    def ref(name: str) -> dict[str, str]:
        return {"get_resource": name}

    role: dict[str, Any] = {"name": f"role-{tag}"}
    if role_domain:
        role["domain"] = ref("domain")
    props: dict[str, dict[str, Any]] = {
        "domain": {"name": f"dom-{tag}", "description": generation},
        "region": {"id": f"reg-{tag}-{region}", "description": generation},
        "service": {
            "name": f"svc-{tag}",
            "type": f"type-{tag}",
            "description": generation,
        },
        "endpoint": {
            "service": ref("service"),
            "region": ref("region"),
            "interface": "public",
            "url": f"http://{tag}.example/{generation}",
        },
        "project": {
            "name": f"proj-{tag}",
            "domain": ref("domain"),
            "description": generation,
        },
        "role": role,
        "group": {
            "name": f"grp-{tag}",
            "domain": ref("domain"),
            "description": generation,
        },
        "user": {
            "name": f"usr-{tag}",
            "domain": ref("domain"),
            "password": f"pw-{tag}-{generation}",
            "description": generation,
            "default_project": ref("project"),
            "groups": [ref("group")],
        },
        "userroleassignment": {
            "user": ref("user"),
            "roles": [{"role": ref("role"), "project": ref("project")}],
        },
        "grouproleassignment": {
            "group": ref("group"),
            "roles": [{"role": ref("role"), "domain": ref("domain")}],
        },
    }
    resources = {
        name.lower(): {
            "type": f"OS::Keystone::{name}",
            "properties": props[name.lower()],
        }
        for name in TYPES
    }
    return {
        "heat_template_version": "2018-08-31",
        "resources": resources,
        "outputs": {
            name.lower(): {"value": {"get_resource": name.lower()}}
            for name in TYPES[:8]
        },
    }


def _ids(cloud: KeystoneCloud, user: Any, stack_id: str) -> dict[str, str]:
    return cloud.outputs(user, stack_id)


def _created(
    cloud: KeystoneCloud, user: Any, name: str, template: dict[str, Any]
) -> tuple[str, dict[str, str]]:
    """Create a stack as ``user`` and wait; its id and output ids."""
    stack_id = cloud.create(user, name, template, timeout_mins=5)
    cloud.wait_state(user, stack_id, ("CREATE_COMPLETE",))
    return stack_id, _ids(cloud, user, stack_id)


def _updated(
    cloud: KeystoneCloud, user: Any, stack_id: str, template: dict[str, Any]
) -> dict[str, str]:
    """Update a stack as ``user`` and wait; its output ids."""
    status, body = cloud.request(
        user, "PUT", cloud.path(stack_id), {"template": template}
    )
    assert status == 202, body
    cloud.wait_state(user, stack_id, ("UPDATE_COMPLETE",))
    return _ids(cloud, user, stack_id)


def _assigned(conn: connection.Connection, **scope: str) -> set[str]:
    return {a.role["id"] for a in conn.identity.role_assignments(**scope)}


def _check(
    conn: connection.Connection, ids: dict[str, str], tag: str, gen: str
) -> None:
    domain = conn.identity.get_domain(ids["domain"])
    assert (domain.name, domain.description) == (f"dom-{tag}", gen)
    assert conn.identity.get_region(ids["region"]).description == gen
    service = conn.identity.get_service(ids["service"])
    assert (service.name, service.type, service.description) == (
        f"svc-{tag}",
        f"type-{tag}",
        gen,
    )
    endpoint = conn.identity.get_endpoint(ids["endpoint"])
    assert endpoint.url == f"http://{tag}.example/{gen}"
    assert (endpoint.service_id, endpoint.region_id) == (
        ids["service"],
        ids["region"],
    )
    project = conn.identity.get_project(ids["project"])
    assert (project.name, project.domain_id, project.description) == (
        f"proj-{tag}",
        ids["domain"],
        gen,
    )
    group = conn.identity.get_group(ids["group"])
    assert (group.name, group.description) == (f"grp-{tag}", gen)
    user = conn.identity.get_user(ids["user"])
    assert (user.name, user.description, user.default_project_id) == (
        f"usr-{tag}",
        gen,
        ids["project"],
    )
    members = {u.id for u in conn.identity.group_users(ids["group"])}
    assert ids["user"] in members
    assert _assigned(
        conn, **{"user.id": ids["user"], "scope.project.id": ids["project"]}
    ) == {ids["role"]}
    assert _assigned(
        conn, **{"group.id": ids["group"], "scope.domain.id": ids["domain"]}
    ) == {ids["role"]}


def test_every_keystone_type_through_the_engine(
    cloud: KeystoneCloud,
    keystone: KeystoneServer,
    conn: connection.Connection,
) -> None:
    admin = keystone.admin
    tag = uuid.uuid4().hex[:8]
    stack_id, first = _created(
        cloud, admin, f"ksall-{tag}", _template(tag, "first")
    )
    assert first["region"] == f"reg-{tag}-a"
    _check(conn, first, tag, "first")

    # descriptions, the endpoint URL and the password change in place; a
    # region's id cannot change, so the region is replaced and the
    # endpoint moves to the new one in place
    second = _updated(
        cloud, admin, stack_id, _template(tag, "second", region="b")
    )
    kept = {k for k in first if k != "region"}
    assert {k: second[k] for k in kept} == {k: first[k] for k in kept}
    assert second["region"] == f"reg-{tag}-b"
    assert conn.identity.find_region(first["region"]) is None
    _check(conn, second, tag, "second")

    status, body = cloud.request(admin, "DELETE", cloud.path(stack_id))
    assert status == 204, body
    cloud.wait_deleted(admin, stack_id)
    assert conn.identity.find_user(second["user"]) is None
    assert conn.identity.find_group(second["group"]) is None
    assert conn.identity.find_role(second["role"]) is None
    assert conn.identity.find_project(second["project"]) is None
    assert conn.identity.find_endpoint(second["endpoint"]) is None
    assert conn.identity.find_service(second["service"]) is None
    assert conn.identity.find_region(second["region"]) is None
    assert conn.identity.find_domain(second["domain"]) is None


def test_role_assignments_follow_a_replaced_role(
    cloud: KeystoneCloud,
    keystone: KeystoneServer,
    conn: connection.Connection,
) -> None:
    admin = keystone.admin
    tag = uuid.uuid4().hex[:8]
    stack_id, first = _created(
        cloud, admin, f"ksrole-{tag}", _template(tag, "first")
    )
    # a role's domain cannot change: the role is replaced
    second = _updated(
        cloud, admin, stack_id, _template(tag, "first", role_domain=True)
    )
    try:
        assert second["role"] != first["role"]
        _check(conn, second, tag, "first")
    finally:
        cloud.request(admin, "DELETE", cloud.path(stack_id))
        cloud.wait_deleted(admin, stack_id)
