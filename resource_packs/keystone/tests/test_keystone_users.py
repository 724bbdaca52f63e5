"""Users, groups and role grants against the real Keystone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from keel_heat_pack_keystone.group import KeystoneGroup
from keel_heat_pack_keystone.role_assignments import (
    KeystoneGroupRoleAssignment,
    KeystoneUserRoleAssignment,
)
from keel_heat_pack_keystone.user import KeystoneUser
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from openstack import connection
from openstack import exceptions as sdk_exc

from keel_heat_core.testing import driver as drv
from keel_heat_core.testing.driver import ResourceDriver
from keel_heat_core.testing.keystone import KeystoneServer

pytestmark = pytest.mark.keystone


def grants(
    conn: connection.Connection,
    user: str | None = None,
    group: str | None = None,
) -> set[tuple[str, str, str]]:
    """``(role name, "project"|"domain", scope id)`` granted directly."""
    query: dict[str, Any] = {"user.id": user} if user else {"group.id": group}
    body = conn.identity.get("/role_assignments", params=query).json()
    roles = {r.id: r.name for r in conn.identity.roles()}
    found = set()
    for item in body["role_assignments"]:
        (kind, scope), *_ = item["scope"].items()
        found.add((roles[item["role"]["id"]], kind, scope["id"]))
    return found


def group_ids(conn: connection.Connection, user_id: str) -> set[str]:
    body = conn.identity.get(f"/users/{user_id}/groups").json()
    return {g["id"] for g in body["groups"]}


@pytest.fixture
def groups(
    admin_conn: connection.Connection, unique: str
) -> Iterator[list[Any]]:
    """Two groups in the default domain, made with openstacksdk."""
    made = [
        admin_conn.identity.create_group(name=f"{unique}-g{i}")
        for i in range(2)
    ]
    yield made
    for group in made:
        admin_conn.identity.delete_group(group, ignore_missing=True)


def test_user_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    keystone: KeystoneServer,
    groups: list[Any],
    unique: str,
) -> None:
    ident = admin_conn.identity
    demo = keystone.demo.project_id
    res = admin_driver.resource(
        "user",
        KeystoneUser,
        {
            "name": unique,
            "email": "a@example.com",
            "password": "secret-1",
            "default_project": "demo",
            "groups": [groups[0].name],
            "roles": [
                {"role": "member", "project": "demo"},
                {"role": "reader", "domain": "default"},
            ],
        },
        type_name="OS::Keystone::User",
    )
    admin_driver.create(res)
    user_id = res.resource_id
    user = ident.get_user(user_id)
    assert (user.name, user.email) == (unique, "a@example.com")
    assert user.default_project_id == demo
    assert user.domain_id == "default"
    assert group_ids(admin_conn, user_id) == {groups[0].id}
    assert grants(admin_conn, user=user_id) == {
        ("member", "project", demo),
        ("reader", "domain", "default"),
    }
    assert res.FnGetAtt("default_project_id") == demo
    assert res.FnGetAtt("domain_id") == "default"
    assert res.FnGetAtt("enabled") is True
    assert res.FnGetAtt("password_expires_at") is None
    assert res.FnGetAtt("show")["name"] == unique
    _login(keystone, user_id, "secret-1", demo)

    outcome = admin_driver.update(
        res,
        {
            "name": unique,
            "email": "b@example.com",
            "password": "secret-2",
            "default_project": "demo",
            # By id instead of name: the same group, no change there.
            "groups": [groups[0].id, groups[1].name],
            "roles": [
                {"role": "member", "project": demo},
                {"role": "admin", "domain": "default"},
            ],
        },
    )
    assert outcome == drv.UPDATED
    assert ident.get_user(user_id).email == "b@example.com"
    assert group_ids(admin_conn, user_id) == {groups[0].id, groups[1].id}
    assert grants(admin_conn, user=user_id) == {
        ("member", "project", demo),
        ("admin", "domain", "default"),
    }
    _login(keystone, user_id, "secret-2", demo)

    outcome = admin_driver.update(
        res,
        {"name": unique + "-x", "enabled": False, "groups": [groups[1].id]},
    )
    assert outcome == drv.UPDATED
    user = ident.get_user(user_id)
    assert (user.name, user.is_enabled) == (unique + "-x", False)
    assert group_ids(admin_conn, user_id) == {groups[1].id}
    assert grants(admin_conn, user=user_id) == set()

    admin_driver.delete(res)
    with pytest.raises(sdk_exc.NotFoundException):
        ident.get_user(user_id)


def _login(
    keystone: KeystoneServer, user_id: str, password: str, project: str
) -> None:
    auth = v3.Password(
        auth_url=keystone.v3_url,
        user_id=user_id,
        password=password,
        project_id=project,
    )
    ks_session.Session(auth=auth).get_token()


def test_user_password_change_is_effective(
    admin_driver: ResourceDriver, keystone: KeystoneServer, unique: str
) -> None:
    props = {
        "name": unique,
        "password": "one-1",
        "roles": [{"role": "member", "project": "demo"}],
    }
    res = admin_driver.resource(
        "user", KeystoneUser, props, type_name="OS::Keystone::User"
    )
    admin_driver.create(res)
    demo = keystone.demo.project_id
    try:
        admin_driver.update(res, {**props, "password": "two-2"})
        _login(keystone, res.resource_id, "two-2", demo)
        with pytest.raises(ks_exc.Unauthorized):
            _login(keystone, res.resource_id, "one-1", demo)
    finally:
        admin_driver.delete(res)


def test_group_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    keystone: KeystoneServer,
    unique: str,
) -> None:
    ident = admin_conn.identity
    demo = keystone.demo.project_id
    res = admin_driver.resource(
        "grp",
        KeystoneGroup,
        {
            "name": unique,
            "description": "first",
            "roles": [{"role": "member", "project": "demo"}],
        },
        type_name="OS::Keystone::Group",
    )
    admin_driver.create(res)
    group = ident.get_group(res.resource_id)
    assert (group.name, group.description) == (unique, "first")
    assert group.domain_id == "default"
    assert grants(admin_conn, group=group.id) == {("member", "project", demo)}
    assert res.FnGetAtt("show")["description"] == "first"

    outcome = admin_driver.update(
        res,
        {
            "name": unique + "-x",
            "description": "second",
            "roles": [
                {"role": "reader", "project": "demo"},
                {"role": "member", "domain": "default"},
            ],
        },
    )
    assert outcome == drv.UPDATED
    group = ident.get_group(res.resource_id)
    assert (group.name, group.description) == (unique + "-x", "second")
    assert grants(admin_conn, group=group.id) == {
        ("reader", "project", demo),
        ("member", "domain", "default"),
    }

    admin_driver.delete(res)
    with pytest.raises(sdk_exc.NotFoundException):
        ident.get_group(res.resource_id)


def test_user_role_assignment_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    keystone: KeystoneServer,
    unique: str,
) -> None:
    ident = admin_conn.identity
    demo, alt = keystone.demo.project_id, keystone.alt_demo.project_id
    first = ident.create_user(name=unique + "-1")
    second = ident.create_user(name=unique + "-2")
    try:
        res = admin_driver.resource(
            "ura",
            KeystoneUserRoleAssignment,
            {
                "user": first.name,
                "roles": [{"role": "member", "project": "demo"}],
            },
            type_name="OS::Keystone::UserRoleAssignment",
        )
        admin_driver.create(res)
        assert grants(admin_conn, user=first.id) == {
            ("member", "project", demo)
        }

        roles = [
            {"role": "member", "project": "alt_demo"},
            {"role": "reader", "domain": "default"},
        ]
        props = {"user": first.id, "roles": roles}
        assert admin_driver.update(res, props) == drv.UPDATED
        assert grants(admin_conn, user=first.id) == {
            ("member", "project", alt),
            ("reader", "domain", "default"),
        }

        # Another user: the grants move.
        props = {"user": second.name, "roles": roles}
        assert admin_driver.update(res, props) == drv.UPDATED
        assert grants(admin_conn, user=first.id) == set()
        assert grants(admin_conn, user=second.id) == {
            ("member", "project", alt),
            ("reader", "domain", "default"),
        }

        admin_driver.delete(res)
        assert grants(admin_conn, user=second.id) == set()
        assert ident.get_user(second.id).name == unique + "-2"
    finally:
        ident.delete_user(first, ignore_missing=True)
        ident.delete_user(second, ignore_missing=True)


def test_group_role_assignment_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    keystone: KeystoneServer,
    groups: list[Any],
) -> None:
    demo = keystone.demo.project_id
    res = admin_driver.resource(
        "gra",
        KeystoneGroupRoleAssignment,
        {
            "group": groups[0].name,
            "roles": [{"role": "member", "project": demo}],
        },
        type_name="OS::Keystone::GroupRoleAssignment",
    )
    admin_driver.create(res)
    assert grants(admin_conn, group=groups[0].id) == {
        ("member", "project", demo)
    }

    props = {
        "group": groups[0].name,
        "roles": [{"role": "reader", "project": "demo"}],
    }
    assert admin_driver.update(res, props) == drv.UPDATED
    assert grants(admin_conn, group=groups[0].id) == {
        ("reader", "project", demo)
    }

    admin_driver.delete(res)
    assert grants(admin_conn, group=groups[0].id) == set()
    # A grant already revoked elsewhere is no error.
    admin_driver.delete(res)
