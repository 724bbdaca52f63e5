"""Projects, roles and domains against the real Keystone.

Each test drives a resource through create, update in place, update by
replacement (when the type has a property that forces one) and delete,
and looks at Keystone with openstacksdk after every step.
"""

from __future__ import annotations

import pytest
from keel_heat_pack_keystone.domain import KeystoneDomain
from keel_heat_pack_keystone.project import KeystoneProject
from keel_heat_pack_keystone.role import KeystoneRole
from openstack import connection
from openstack import exceptions as sdk_exc

from keel_heat_core.testing import driver as drv
from keel_heat_core.testing.driver import ResourceDriver
from keel_heat_core.testing.keystone import KeystoneServer

pytestmark = pytest.mark.keystone


def test_project_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    keystone: KeystoneServer,
    unique: str,
) -> None:
    ident = admin_conn.identity
    res = admin_driver.resource(
        "proj",
        KeystoneProject,
        {"name": unique, "description": "first", "tags": ["a", "b"]},
        type_name="OS::Keystone::Project",
    )
    admin_driver.create(res)
    project = ident.get_project(res.resource_id)
    assert (project.name, project.description) == (unique, "first")
    assert project.domain_id == "default"
    assert project.is_enabled is True
    assert sorted(project.tags) == ["a", "b"]
    assert res.FnGetAtt("name") == unique
    assert res.FnGetAtt("domain_id") == "default"
    assert res.FnGetAtt("is_domain") is False
    assert res.FnGetAtt("enabled") is True
    assert res.FnGetAtt("parent_id") == "default"
    assert res.FnGetAtt("show")["id"] == res.resource_id

    outcome = admin_driver.update(
        res,
        {
            "name": unique + "-x",
            "description": "second",
            "enabled": False,
            "tags": [],
        },
    )
    assert outcome == drv.UPDATED
    project = ident.get_project(res.resource_id)
    assert project.name == unique + "-x"
    assert project.description == "second"
    assert project.is_enabled is False
    assert project.tags == []

    # A new parent needs a new project.
    parent_props = {"name": unique + "-x", "parent": keystone.demo.project_id}
    assert admin_driver.update(res, parent_props) == drv.REPLACE
    child = admin_driver.resource(
        "proj",
        KeystoneProject,
        {"name": unique + "-child", "parent": "demo"},
        type_name="OS::Keystone::Project",
    )
    admin_driver.create(child)
    assert ident.get_project(child.resource_id).parent_id == (
        keystone.demo.project_id
    )
    assert child.FnGetAtt("parent_id") == keystone.demo.project_id

    for old in (res, child):
        admin_driver.delete(old)
        with pytest.raises(sdk_exc.NotFoundException):
            ident.get_project(old.resource_id)
    # Deleting again finds nothing and succeeds; ``show`` is then null.
    admin_driver.delete(res)
    assert res.FnGetAtt("show") is None


def test_project_without_name_uses_physical_name(
    admin_driver: ResourceDriver, admin_conn: connection.Connection
) -> None:
    res = admin_driver.resource(
        "noname", KeystoneProject, {}, type_name="OS::Keystone::Project"
    )
    admin_driver.create(res)
    try:
        name = admin_conn.identity.get_project(res.resource_id).name
        assert name == res.physical_resource_name()
        assert name.startswith(admin_driver.stack.name + "-noname-")
    finally:
        admin_driver.delete(res)


def test_role_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    keystone: KeystoneServer,
    unique: str,
) -> None:
    ident = admin_conn.identity
    res = admin_driver.resource(
        "role", KeystoneRole, {"name": unique}, type_name="OS::Keystone::Role"
    )
    admin_driver.create(res)
    role = ident.get_role(res.resource_id)
    assert role.name == unique
    assert role.domain_id is None
    assert res.FnGetAtt("show")["name"] == unique

    assert admin_driver.update(res, {"name": unique + "-x"}) == drv.UPDATED
    assert ident.get_role(res.resource_id).name == unique + "-x"

    # The domain of a role is fixed: a domain-specific role is a new one.
    moved = {"name": unique + "-x", "domain": keystone.stack_domain_name}
    assert admin_driver.update(res, moved) == drv.REPLACE
    new = admin_driver.resource(
        "role", KeystoneRole, moved, type_name="OS::Keystone::Role"
    )
    admin_driver.create(new)
    assert ident.get_role(new.resource_id).domain_id == (
        keystone.stack_domain_id
    )

    for old in (res, new):
        admin_driver.delete(old)
        with pytest.raises(sdk_exc.NotFoundException):
            ident.get_role(old.resource_id)


def test_domain_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    unique: str,
) -> None:
    ident = admin_conn.identity
    res = admin_driver.resource(
        "dom",
        KeystoneDomain,
        {"name": unique, "description": "first"},
        type_name="OS::Keystone::Domain",
    )
    admin_driver.create(res)
    domain = ident.get_domain(res.resource_id)
    assert (domain.name, domain.description) == (unique, "first")
    assert domain.is_enabled is True

    outcome = admin_driver.update(
        res, {"name": unique + "-x", "description": "second", "enabled": False}
    )
    assert outcome == drv.UPDATED
    domain = ident.get_domain(res.resource_id)
    assert (domain.name, domain.description) == (unique + "-x", "second")
    assert domain.is_enabled is False
    assert res.FnGetAtt("show")["enabled"] is False

    # Back to enabled: delete must disable it first.
    admin_driver.update(res, {"name": unique + "-x", "enabled": True})
    assert ident.get_domain(res.resource_id).is_enabled is True
    admin_driver.delete(res)
    with pytest.raises(sdk_exc.NotFoundException):
        ident.get_domain(res.resource_id)
