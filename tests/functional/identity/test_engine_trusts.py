"""Stacks created through the API store a trust; the engine acts with it.

HTTP with a Keystone token → keystonemiddleware → the native API → RPC →
the engine → SQLite, against the real Keystone fixture.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import sqlalchemy as sa

from keel_heat_core.db import models
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db import user_creds as creds_repo
from keel_heat_core.testing.keystone import KeystoneServer
from tests.functional.identity.harness import KeystoneCloud, wait_for

pytestmark = pytest.mark.keystone

NONE = {
    "heat_template_version": "2018-08-31",
    "resources": {"a": {"type": "OS::Heat::None"}},
}


def _trusts_of(keystone: KeystoneServer, user_id: str) -> list[dict[str, Any]]:
    sess = keystone.admin_session()
    found = sess.get(
        f"{keystone.v3_url}/OS-TRUST/trusts",
        params={"trustor_user_id": user_id},
    ).json()["trusts"]
    return list(found)


def _create(cloud: KeystoneCloud, user: Any, name: str, tmpl: Any) -> str:
    return cloud.create(user, name, tmpl, timeout_mins=5)


def _raw_creds(cloud: KeystoneCloud, creds_id: int) -> Any:
    with cloud.db.transaction() as session:
        return session.execute(
            sa.select(
                models.UserCreds.trust_id,
                models.UserCreds.trustor_user_id,
                models.UserCreds.decrypt_method,
                models.UserCreds.tenant_id,
                models.UserCreds.username,
                models.UserCreds.password,
            ).where(models.UserCreds.id == creds_id)
        ).one_or_none()


def test_create_stores_a_trust_and_delete_removes_it(
    cloud: KeystoneCloud, keystone: KeystoneServer
) -> None:
    demo = keystone.demo
    before = {t["id"] for t in _trusts_of(keystone, demo.user_id)}
    stack_id = _create(cloud, demo, "trusted", NONE)
    cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))

    rec = stack_repo.get(cloud.db, stack_id)
    assert rec is not None and rec.user_creds_id is not None
    raw = _raw_creds(cloud, rec.user_creds_id)
    new = [
        t for t in _trusts_of(keystone, demo.user_id) if t["id"] not in before
    ]
    assert len(new) == 1
    trust = new[0]
    # Heat's format: the trust id encrypted, the trustor in clear
    assert raw.decrypt_method == "cryptography_decrypt_v1"
    assert raw.trust_id and trust["id"] not in raw.trust_id
    assert cloud.db.decrypt(raw.decrypt_method, raw.trust_id) == trust["id"]
    assert raw.trustor_user_id == demo.user_id
    assert raw.tenant_id == demo.project_id
    assert raw.username is None and raw.password is None
    assert trust["trustee_user_id"] == keystone.heat.user_id
    assert trust["project_id"] == demo.project_id
    assert trust["impersonation"] is True
    details = (
        keystone.admin_session()
        .get(f"{keystone.v3_url}/OS-TRUST/trusts/{trust['id']}/roles")
        .json()["roles"]
    )
    # trusts_delegated_roles is empty: the caller's roles
    assert {"member", "heat_stack_owner"} <= {r["name"] for r in details}

    status, body = cloud.request(demo, "DELETE", cloud.path(stack_id))
    assert status == 204, body

    def gone() -> bool:
        ids = {t["id"] for t in _trusts_of(keystone, demo.user_id)}
        return trust["id"] not in ids

    wait_for(gone, 60, "the trust to be deleted")
    assert _raw_creds(cloud, rec.user_creds_id) is None


def test_delegated_roles_option_limits_the_trust(
    keystone: KeystoneServer, tmp_path: Any
) -> None:
    cloud = KeystoneCloud(
        keystone,
        tmp_path,
        {("DEFAULT", "trusts_delegated_roles"): "heat_stack_owner"},
    )
    try:
        demo = keystone.demo
        before = {t["id"] for t in _trusts_of(keystone, demo.user_id)}
        stack_id = _create(cloud, demo, "limited", NONE)
        cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))
        new = [
            t
            for t in _trusts_of(keystone, demo.user_id)
            if t["id"] not in before
        ]
        assert len(new) == 1
        roles = (
            keystone.admin_session()
            .get(f"{keystone.v3_url}/OS-TRUST/trusts/{new[0]['id']}/roles")
            .json()["roles"]
        )
        assert [r["name"] for r in roles] == ["heat_stack_owner"]
        status, _ = cloud.request(demo, "DELETE", cloud.path(stack_id))
        assert status == 204
        cloud.wait_deleted(demo, stack_id)
    finally:
        cloud.close()


def test_password_method_stores_the_password_encrypted(
    keystone: KeystoneServer, tmp_path: Any
) -> None:
    cloud = KeystoneCloud(
        keystone, tmp_path, {("DEFAULT", "deferred_auth_method"): "password"}
    )
    try:
        demo = keystone.demo
        trusts_before = len(_trusts_of(keystone, demo.user_id))
        status, body = cloud.request(
            demo,
            "POST",
            "/stacks",
            {"stack_name": "by-password", "template": NONE},
            headers={
                "X-Auth-User": demo.username,
                "X-Auth-Key": demo.password,
            },
        )
        assert status == 201, body
        stack_id = str(body["stack"]["id"])
        cloud.names[stack_id] = "by-password"
        cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))
        rec = stack_repo.get(cloud.db, stack_id)
        assert rec is not None and rec.user_creds_id is not None
        raw = _raw_creds(cloud, rec.user_creds_id)
        assert raw.trust_id is None and raw.trustor_user_id == demo.user_id
        assert raw.username == demo.username
        assert raw.password and demo.password not in raw.password
        assert cloud.db.decrypt(raw.decrypt_method, raw.password) == (
            demo.password
        )
        assert len(_trusts_of(keystone, demo.user_id)) == trusts_before
        # the engine's session for the stack logs in with the password
        sess = cloud.backend.creds.session(rec.user_creds_id)
        assert sess is not None
        access = sess.auth.get_access(sess)  # type: ignore[union-attr]
        assert access.user_id == demo.user_id
        assert access.project_id == demo.project_id
        assert not access.trust_scoped
        status, _ = cloud.request(demo, "DELETE", cloud.path(stack_id))
        assert status == 204
        cloud.wait_deleted(demo, stack_id)
        assert _raw_creds(cloud, rec.user_creds_id) is None
    finally:
        cloud.close()


@pytest.fixture
def elsewhere(keystone: KeystoneServer) -> Any:
    """A member of the demo project whose user is in a domain of its own
    (the domain and user deleted afterwards)."""
    from keel_heat_core.testing.keystone import Credentials

    sess = keystone.admin_session()
    url = keystone.v3_url
    domain = sess.post(
        f"{url}/domains", json={"domain": {"name": uuid.uuid4().hex[:10]}}
    ).json()["domain"]
    name, password = "far-" + uuid.uuid4().hex[:6], uuid.uuid4().hex
    user = sess.post(
        f"{url}/users",
        json={
            "user": {
                "name": name,
                "password": password,
                "domain_id": domain["id"],
            }
        },
    ).json()["user"]
    for role in ("member", "heat_stack_owner"):
        found = sess.get(f"{url}/roles", params={"name": role}).json()
        sess.put(
            f"{url}/projects/{keystone.demo.project_id}/users/"
            f"{user['id']}/roles/{found['roles'][0]['id']}"
        )
    yield Credentials(
        username=name,
        password=password,
        user_id=user["id"],
        user_domain_id=domain["id"],
        project_name="demo",
        project_id=keystone.demo.project_id,
    )
    sess.delete(f"{url}/users/{user['id']}")
    sess.patch(
        f"{url}/domains/{domain['id']}", json={"domain": {"enabled": False}}
    )
    sess.delete(f"{url}/domains/{domain['id']}")


def test_password_method_logs_in_a_user_of_another_domain(
    keystone: KeystoneServer, tmp_path: Any, elsewhere: Any
) -> None:
    cloud = KeystoneCloud(
        keystone, tmp_path, {("DEFAULT", "deferred_auth_method"): "password"}
    )
    try:
        status, body = cloud.request(
            elsewhere,
            "POST",
            "/stacks",
            {"stack_name": "far-away", "template": NONE},
            headers={
                "X-Auth-User": elsewhere.username,
                "X-Auth-Key": elsewhere.password,
            },
        )
        assert status == 201, body
        stack_id = str(body["stack"]["id"])
        cloud.names[stack_id] = "far-away"
        cloud.wait_state(elsewhere, stack_id, ("CREATE_COMPLETE",))
        rec = stack_repo.get(cloud.db, stack_id)
        assert rec is not None and rec.user_creds_id is not None
        # the stored credentials log in, though the user's domain is not
        # the default one (before, the login named the default domain)
        sess = cloud.backend.creds.session(rec.user_creds_id)
        assert sess is not None
        access = sess.auth.get_access(sess)  # type: ignore[union-attr]
        assert access.user_id == elsewhere.user_id
        assert access.user_domain_id == elsewhere.user_domain_id
        assert access.project_id == elsewhere.project_id
        status, _ = cloud.request(elsewhere, "DELETE", cloud.path(stack_id))
        assert status == 204
        cloud.wait_deleted(elsewhere, stack_id)
    finally:
        cloud.close()


@pytest.fixture
def demo2(keystone: KeystoneServer) -> Any:
    """A second member of the demo project (deleted afterwards)."""
    from keel_heat_core.testing.keystone import Credentials

    sess = keystone.admin_session()
    name, password = "demo2-" + uuid.uuid4().hex[:6], uuid.uuid4().hex
    user = sess.post(
        f"{keystone.v3_url}/users",
        json={
            "user": {
                "name": name,
                "password": password,
                "domain_id": "default",
            }
        },
    ).json()["user"]
    roles = sess.get(
        f"{keystone.v3_url}/roles", params={"name": "member"}
    ).json()["roles"]
    sess.put(
        f"{keystone.v3_url}/projects/{keystone.demo.project_id}/users/"
        f"{user['id']}/roles/{roles[0]['id']}"
    )
    yield Credentials(
        username=name,
        password=password,
        user_id=user["id"],
        project_name="demo",
        project_id=keystone.demo.project_id,
    )
    sess.delete(f"{keystone.v3_url}/users/{user['id']}")


def test_another_user_updating_the_stack_gets_its_own_trust(
    cloud: KeystoneCloud, keystone: KeystoneServer, demo2: Any
) -> None:
    demo = keystone.demo
    stack_id = _create(cloud, demo, "shared", NONE)
    cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))
    rec = stack_repo.get(cloud.db, stack_id)
    assert rec is not None and rec.user_creds_id is not None
    old = creds_repo.get(cloud.db, rec.user_creds_id)
    assert old is not None and old.trustor_user_id == demo.user_id

    tmpl = {
        **NONE,
        "resources": {
            "a": {"type": "OS::Heat::None"},
            "b": {"type": "OS::Heat::None"},
        },
    }
    status, body = cloud.request(
        demo2, "PUT", cloud.path(stack_id), {"template": tmpl}
    )
    assert status == 202, body
    cloud.wait_state(demo2, stack_id, ("UPDATE_COMPLETE",))
    rec = stack_repo.get(cloud.db, stack_id)
    assert rec is not None and rec.user_creds_id != old.id
    new = creds_repo.get(cloud.db, rec.user_creds_id)
    assert new is not None and new.trustor_user_id == demo2.user_id
    assert creds_repo.get(cloud.db, old.id) is None
    assert old.trust_id not in {
        t["id"] for t in _trusts_of(keystone, demo.user_id)
    }
    assert [t["id"] for t in _trusts_of(keystone, demo2.user_id)] == [
        new.trust_id
    ]
    # the same user again: nothing changes
    status, body = cloud.request(
        demo2, "PUT", cloud.path(stack_id), {"template": NONE}
    )
    assert status == 202, body
    cloud.wait_state(demo2, stack_id, ("UPDATE_COMPLETE",))
    again = stack_repo.get(cloud.db, stack_id)
    assert again is not None and again.user_creds_id == new.id

    status, _ = cloud.request(demo2, "DELETE", cloud.path(stack_id))
    assert status == 204
    cloud.wait_deleted(demo2, stack_id)
    # the trust goes once the stack shows DELETE_COMPLETE, as in Heat
    wait_for(
        lambda: _trusts_of(keystone, demo2.user_id) == [],
        60,
        "the trust to be deleted",
    )
