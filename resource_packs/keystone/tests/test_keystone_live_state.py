"""Live state (``observe_on_update``) read back from the real Keystone.

Each test creates a resource, changes the object behind Heat's back with
openstacksdk, and checks that ``get_live_state`` reports Keystone's
values under the property names.
"""

from __future__ import annotations

from typing import Any

import pytest
from keel_heat_pack_keystone.domain import KeystoneDomain
from keel_heat_pack_keystone.endpoint import KeystoneEndpoint
from keel_heat_pack_keystone.group import KeystoneGroup
from keel_heat_pack_keystone.project import KeystoneProject
from keel_heat_pack_keystone.region import KeystoneRegion
from keel_heat_pack_keystone.user import KeystoneUser
from openstack import connection

from keel_heat_core import exception
from keel_heat_core.testing.driver import ResourceDriver
from keel_heat_core.testing.keystone import KeystoneServer

pytestmark = pytest.mark.keystone


def _live(res: Any) -> dict[str, Any]:
    return dict(res.get_live_state(res.properties))


def test_project_and_domain(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    unique: str,
) -> None:
    ident = admin_conn.identity
    project = admin_driver.resource(
        "p",
        KeystoneProject,
        {"name": unique},
        type_name="OS::Keystone::Project",
    )
    domain = admin_driver.resource(
        "d", KeystoneDomain, {"name": unique}, type_name="OS::Keystone::Domain"
    )
    admin_driver.create(project)
    admin_driver.create(domain)
    try:
        ident.update_project(project.resource_id, description="by hand")
        live = _live(project)
        assert live["description"] == "by hand"
        assert live["domain"] == "default"
        assert live["name"] == unique
        ident.update_domain(domain.resource_id, is_enabled=False)
        assert _live(domain) == {
            "name": unique,
            "description": "",
            "enabled": False,
        }
    finally:
        admin_driver.delete(project)
        admin_driver.delete(domain)
    with pytest.raises(exception.EntityNotFound):
        project.get_live_state(project.properties)


def test_user_and_group(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    keystone: KeystoneServer,
    unique: str,
) -> None:
    ident = admin_conn.identity
    demo = keystone.demo.project_id
    group = admin_driver.resource(
        "g",
        KeystoneGroup,
        {"name": unique, "roles": [{"role": "reader", "domain": "default"}]},
        type_name="OS::Keystone::Group",
    )
    admin_driver.create(group)
    user = admin_driver.resource(
        "u",
        KeystoneUser,
        {
            "name": unique,
            "email": "a@example.com",
            "groups": [unique],
            "roles": [{"role": "member", "project": "demo"}],
        },
        type_name="OS::Keystone::User",
    )
    admin_driver.create(user)
    try:
        reader = ident.find_role("reader").id
        member = ident.find_role("member").id
        assert _live(group)["roles"] == [
            {"role": reader, "domain": "default", "project": None}
        ]
        ident.update_user(user.resource_id, email="b@example.com")
        live = _live(user)
        assert live["email"] == "b@example.com"
        assert live["groups"] == [group.resource_id]
        assert live["roles"] == [
            {"role": member, "domain": None, "project": demo}
        ]
        assert live["domain"] == "default"
        assert "password" not in live
    finally:
        admin_driver.delete(user)
        admin_driver.delete(group)


def test_region_and_endpoint(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    unique: str,
) -> None:
    ident = admin_conn.identity
    region = admin_driver.resource(
        "r", KeystoneRegion, {"id": unique}, type_name="OS::Keystone::Region"
    )
    admin_driver.create(region)
    service = ident.create_service(name=unique, type=unique)
    endpoint = admin_driver.resource(
        "e",
        KeystoneEndpoint,
        {
            "service": service.id,
            "region": unique,
            "interface": "admin",
            "url": "http://x.example.com",
        },
        type_name="OS::Keystone::Endpoint",
    )
    admin_driver.create(endpoint)
    try:
        ident.update_region(unique, description="by hand")
        assert _live(region) == {
            "description": "by hand",
            "enabled": True,
            "parent_region": None,
        }
        ident.update_endpoint(endpoint.resource_id, url="http://y.example.com")
        live = _live(endpoint)
        assert live["url"] == "http://y.example.com"
        assert (live["service"], live["region"]) == (service.id, unique)
        assert live["name"] == endpoint.physical_resource_name()
    finally:
        admin_driver.delete(endpoint)
        ident.delete_service(service, ignore_missing=True)
        admin_driver.delete(region)
