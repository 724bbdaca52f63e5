"""Stack-domain projects, users and EC2 key pairs in the real Keystone."""

from __future__ import annotations

import uuid

import pytest
from keystoneauth1 import exceptions as ks_exc

from keel_heat_core.identity import errors
from keel_heat_core.identity.stack_domain import (
    StackDomain,
    StackDomainSettings,
)
from keel_heat_core.testing.keystone import KeystoneServer

pytestmark = pytest.mark.keystone


def _domain(keystone: KeystoneServer, by_name: bool = False) -> StackDomain:
    return StackDomain(
        StackDomainSettings(
            auth_url=keystone.url,
            admin_user=keystone.domain_admin.username,
            admin_password=keystone.domain_admin.password,
            domain_id=None if by_name else keystone.stack_domain_id,
            domain_name=keystone.stack_domain_name if by_name else None,
        )
    )


def _get(keystone: KeystoneServer, path: str) -> dict[str, object]:
    resp = keystone.admin_session().get(f"{keystone.v3_url}{path}")
    return resp.json()  # type: ignore[no-any-return]


def test_project_user_and_keypair_lifecycle(keystone: KeystoneServer) -> None:
    domain = _domain(keystone)
    owner = keystone.demo.project_id or ""
    stack_id = str(uuid.uuid4())
    project_id = domain.create_project(owner, stack_id)
    project = _get(keystone, f"/projects/{project_id}")["project"]
    assert project == project | {
        "name": f"{owner}-{stack_id}"[:64],
        "domain_id": keystone.stack_domain_id,
        "description": "Heat stack user project",
    }

    user_id = domain.create_user("WaitHandle-abc", project_id, "pw-1")
    user = _get(keystone, f"/users/{user_id}")["user"]
    assert user["domain_id"] == keystone.stack_domain_id  # type: ignore
    assert user["default_project_id"] == project_id  # type: ignore
    assert user["options"]["ignore_password_expiry"] is True  # type: ignore
    roles = _get(keystone, f"/projects/{project_id}/users/{user_id}/roles")[
        "roles"
    ]
    assert [r["name"] for r in roles] == ["heat_stack_user"]  # type: ignore
    assert domain.user_token(user_id, project_id, "pw-1")

    key = domain.create_ec2_keypair(user_id, project_id)
    assert len(key.access) == 32 and len(key.secret) == 32
    assert domain.get_ec2_keypair(key.id) == key
    cred = _get(keystone, f"/credentials/{key.id}")["credential"]
    assert cred["type"] == "ec2" and cred["user_id"] == user_id  # type: ignore

    domain.set_user_enabled(user_id, project_id, False)
    with pytest.raises(errors.AuthorizationFailure):
        domain.user_token(user_id, project_id, "pw-1")
    domain.set_user_enabled(user_id, project_id, True)
    assert domain.user_token(user_id, project_id, "pw-1")

    with pytest.raises(ValueError, match="User delete_keypair in invalid"):
        domain.delete_ec2_keypair(user_id, owner, key.id)
    domain.delete_ec2_keypair(user_id, project_id, key.id)
    domain.delete_ec2_keypair(user_id, project_id, key.id)
    with pytest.raises(ks_exc.NotFound):
        _get(keystone, f"/credentials/{key.id}")

    domain.delete_user(user_id, project_id)
    domain.delete_user(user_id, project_id)
    with pytest.raises(ks_exc.NotFound):
        _get(keystone, f"/users/{user_id}")

    domain.delete_project(project_id)
    domain.delete_project(project_id)
    with pytest.raises(ks_exc.NotFound):
        _get(keystone, f"/projects/{project_id}")


def test_users_outside_the_domain_are_refused(
    keystone: KeystoneServer,
) -> None:
    domain = _domain(keystone)
    demo_user = keystone.demo.user_id
    with pytest.raises(ValueError, match="User disable in invalid domain"):
        domain.set_user_enabled(
            demo_user, keystone.demo.project_id or "", False
        )
    with pytest.raises(ValueError, match="User delete in invalid domain"):
        domain.delete_user(demo_user, keystone.demo.project_id or "")
    # The owner's own project is never deleted.
    domain.delete_project(keystone.demo.project_id or "")
    assert _get(keystone, f"/projects/{keystone.demo.project_id}")["project"]


def test_domain_found_by_name(keystone: KeystoneServer) -> None:
    domain = _domain(keystone, by_name=True)
    assert domain.domain_id == keystone.stack_domain_id
    project_id = domain.create_project("p", "s")
    domain.delete_project(project_id)


def test_missing_stack_user_role(keystone: KeystoneServer) -> None:
    settings = StackDomainSettings(
        auth_url=keystone.url,
        admin_user=keystone.domain_admin.username,
        admin_password=keystone.domain_admin.password,
        domain_id=keystone.stack_domain_id,
        stack_user_role="no_such_role",
    )
    domain = StackDomain(settings)
    project_id = domain.create_project("p", str(uuid.uuid4()))
    try:
        with pytest.raises(errors.StackUserRoleMissing) as info:
            domain.create_user("u", project_id)
        assert str(info.value) == "Can't find role no_such_role"
    finally:
        domain.delete_project(project_id)


def test_wrong_domain_admin_password(keystone: KeystoneServer) -> None:
    settings = StackDomainSettings(
        auth_url=keystone.url,
        admin_user=keystone.domain_admin.username,
        admin_password="wrong",
        domain_id=keystone.stack_domain_id,
    )
    with pytest.raises(errors.AuthorizationFailure):
        StackDomain(settings).create_project("p", "s")


def test_a_second_create_of_a_stack_project_adopts_it(
    keystone: KeystoneServer,
) -> None:
    domain = _domain(keystone)
    owner = keystone.demo.project_id or ""
    stack_id = str(uuid.uuid4())
    first = domain.create_project(owner, stack_id)
    try:
        # what a stack user that started with the first one does
        assert domain.create_project(owner, stack_id) == first
    finally:
        domain.delete_project(first)
