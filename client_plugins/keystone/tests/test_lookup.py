"""The finders of the keystone client plugin against the real Keystone."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from keel_heat_client_keystone.plugin import KeystoneClientPlugin
from keystoneauth1 import exceptions as ks_exc
from openstack import exceptions as sdk_exc

from keel_heat_core import exception
from keel_heat_core.testing.keystone import KeystoneServer

pytestmark = pytest.mark.keystone


@pytest.fixture
def plugin(
    keystone: KeystoneServer, make_context: Callable[..., Any]
) -> KeystoneClientPlugin:
    return KeystoneClientPlugin(make_context(keystone.admin_session()))


@pytest.fixture
def objects(
    keystone: KeystoneServer, plugin: KeystoneClientPlugin
) -> Iterator[dict[str, str]]:
    """A group and two same-named services, made for these tests."""
    ident = plugin.client().identity
    suffix = uuid.uuid4().hex[:8]
    group = ident.create_group(name=f"g-{suffix}", domain_id="default")
    svc_a = ident.create_service(name=f"twin-{suffix}", type="a")
    svc_b = ident.create_service(name=f"twin-{suffix}", type="b")
    solo = ident.create_service(name=f"solo-{suffix}", type="c")
    yield {
        "group": group.id,
        "group_name": group.name,
        "twin": f"twin-{suffix}",
        "solo": solo.id,
        "solo_name": solo.name,
    }
    for obj in (svc_a, svc_b, solo):
        ident.delete_service(obj)
    ident.delete_group(group)


def test_roles(keystone: KeystoneServer, plugin: KeystoneClientPlugin) -> None:
    owner = keystone.roles["heat_stack_owner"]
    assert plugin.get_role_id(owner) == owner
    assert plugin.get_role_id("heat_stack_owner") == owner
    # A role named with a domain is a domain-specific role, as in Heat.
    with pytest.raises(exception.EntityNotFound) as info:
        plugin.get_role_id("heat_stack_owner{Default}")
    assert str(info.value) == (
        "The KeystoneRole (heat_stack_owner) could not be found."
    )
    ident = plugin.client().identity
    scoped = ident.create_role(
        name=f"dr-{uuid.uuid4().hex[:8]}", domain_id=keystone.stack_domain_id
    )
    try:
        assert plugin.get_role_id(f"{scoped.name}{{heat}}") == scoped.id
    finally:
        ident.delete_role(scoped)
    assert plugin.get_role_id(None) is None
    with pytest.raises(exception.EntityNotFound) as info:
        plugin.get_role_id("no-such-role")
    assert str(info.value) == (
        "The KeystoneRole (no-such-role) could not be found."
    )
    with pytest.raises(exception.EntityNotFound) as info:
        plugin.get_role_id("member{nowhere}")
    assert str(info.value) == (
        "The KeystoneRole (member{nowhere}) could not be found."
    )


def test_projects_users_domains(
    keystone: KeystoneServer, plugin: KeystoneClientPlugin
) -> None:
    demo = keystone.demo.project_id
    assert plugin.get_project_id("demo") == demo
    assert plugin.get_project_id(demo) == demo
    assert plugin.get_project_id("demo{default}") == demo
    assert plugin.get_project_id("demo", domain="default") == demo
    with pytest.raises(exception.EntityNotFound, match="KeystoneProject"):
        plugin.get_project_id("demo", domain=keystone.stack_domain_id)
    assert plugin.get_user_id("alt_demo") == keystone.alt_demo.user_id
    assert (
        plugin.get_user_id(f"{keystone.domain_admin.username}{{heat}}")
        == keystone.domain_admin.user_id
    )
    assert plugin.get_domain_id("heat") == keystone.stack_domain_id
    assert plugin.get_domain_id("default") == "default"
    with pytest.raises(exception.EntityNotFound) as info:
        plugin.get_domain_id("nope")
    assert str(info.value) == "The KeystoneDomain (nope) could not be found."


def test_groups_services_regions(
    plugin: KeystoneClientPlugin, objects: dict[str, str]
) -> None:
    assert plugin.get_group_id(objects["group_name"]) == objects["group"]
    assert plugin.get_group_id(objects["group"]) == objects["group"]
    assert plugin.get_service_id(objects["solo_name"]) == objects["solo"]
    assert plugin.get_service_id(objects["solo"]) == objects["solo"]
    with pytest.raises(exception.KeystoneServiceNameConflict) as conflict:
        plugin.get_service_id(objects["twin"])
    assert str(conflict.value) == (
        "Keystone has more than one service with same name "
        f"{objects['twin']}. Please use service id instead of name"
    )
    with pytest.raises(exception.EntityNotFound, match="KeystoneService"):
        plugin.get_service_id("no-such-service")
    assert plugin.get_region_id("RegionOne") == "RegionOne"
    with pytest.raises(exception.EntityNotFound) as info:
        plugin.get_region_id("Elsewhere")
    assert str(info.value) == (
        "The KeystoneRegion (Elsewhere) could not be found."
    )


def test_error_classification(plugin: KeystoneClientPlugin) -> None:
    ident = plugin.client().identity
    with pytest.raises(sdk_exc.NotFoundException) as missing:
        ident.get_role("0" * 32)
    assert plugin.is_not_found(missing.value)
    assert plugin.is_client_exception(missing.value)
    assert not plugin.is_conflict(missing.value)
    with pytest.raises(sdk_exc.ConflictException) as clash:
        ident.create_role(name="heat_stack_owner")
    assert plugin.is_conflict(clash.value)
    assert not plugin.is_not_found(clash.value)
    assert plugin.is_not_found(ks_exc.NotFound())
    assert plugin.is_not_found(exception.EntityNotFound("X", "y"))
    assert plugin.is_over_limit(ks_exc.RequestEntityTooLarge())
    assert not plugin.is_over_limit(ValueError())
    with plugin.ignore_not_found:
        ident.get_role("0" * 32)


def test_trust_scoped_member_context(
    keystone: KeystoneServer, make_context: Callable[..., Any]
) -> None:
    """What the engine does for a stored stack: act through the trust."""
    from keystoneauth1.identity import v3

    from keel_heat_core.identity.trusts import TrustBroker

    heat = keystone.heat

    def trustee(trust_id: str | None) -> v3.Password:
        return v3.Password(
            auth_url=keystone.v3_url,
            user_id=heat.user_id,
            password=heat.password,
            trust_id=trust_id,
        )

    broker = TrustBroker(keystone.v3_url, trustee)
    user = keystone.session(keystone.demo)
    trust = broker.create_trust(user)
    try:
        sess = broker.trust_session(trust.id, keystone.demo.user_id)
        plugin = KeystoneClientPlugin(make_context(sess))
        assert plugin.get_project_id(keystone.demo.project_id) == (
            keystone.demo.project_id
        )
    finally:
        broker.delete_trust(user, trust.id)


def test_context_without_session(make_context: Callable[..., Any]) -> None:
    plugin = KeystoneClientPlugin(make_context(None))
    with pytest.raises(exception.AuthorizationFailure):
        plugin.client()
