"""The Keystone fixture gives a Keystone provisioned the way Heat needs."""

from __future__ import annotations

import pytest
import requests

from keel_heat_core.testing.keystone import KeystoneServer

pytestmark = pytest.mark.keystone


def _catalog(keystone: KeystoneServer) -> list[dict[str, object]]:
    sess = keystone.session(keystone.demo)
    access = sess.auth.get_access(sess)  # type: ignore[union-attr]
    return list(access.service_catalog.catalog)


def test_identity_endpoint_is_unversioned(keystone: KeystoneServer) -> None:
    identity = [s for s in _catalog(keystone) if s["type"] == "identity"]
    urls = {ep["url"] for ep in identity[0]["endpoints"]}  # type: ignore
    assert urls == {keystone.url}
    assert requests.get(keystone.v3_url, timeout=10).status_code == 200


def test_member_users_hold_heat_roles(keystone: KeystoneServer) -> None:
    for creds in (keystone.demo, keystone.alt_demo):
        sess = keystone.session(creds)
        access = sess.auth.get_access(sess)  # type: ignore[union-attr]
        assert access.project_id == creds.project_id
        assert {"member", "heat_stack_owner", "reader"} <= set(
            access.role_names
        )
        assert "admin" not in access.role_names
    assert keystone.demo.project_id != keystone.alt_demo.project_id


def test_heat_service_user_is_admin_on_service(
    keystone: KeystoneServer,
) -> None:
    sess = keystone.session(keystone.heat)
    access = sess.auth.get_access(sess)  # type: ignore[union-attr]
    assert access.project_name == "service"
    assert "admin" in access.role_names


def test_domain_admin_is_scoped_to_stack_domain(
    keystone: KeystoneServer,
) -> None:
    sess = keystone.session(keystone.domain_admin)
    access = sess.auth.get_access(sess)  # type: ignore[union-attr]
    assert access.domain_id == keystone.stack_domain_id
    assert "admin" in access.role_names
    assert keystone.roles.keys() >= {"heat_stack_owner", "heat_stack_user"}


def test_revoked_token_is_refused(keystone: KeystoneServer) -> None:
    sess = keystone.session(keystone.demo)
    token = sess.get_token()
    keystone.revoke_token(token)
    resp = requests.get(
        f"{keystone.v3_url}/auth/projects",
        headers={"X-Auth-Token": token},
        timeout=10,
    )
    assert resp.status_code == 401


def test_register_heat_endpoints_is_idempotent(
    keystone: KeystoneServer,
) -> None:
    keystone.register_heat_endpoints(
        "http://127.0.0.1:1111", "http://127.0.0.1:2222"
    )
    keystone.register_heat_endpoints(
        "http://127.0.0.1:3333/", "http://127.0.0.1:4444"
    )
    by_type = {s["type"]: s for s in _catalog(keystone)}
    orch = by_type["orchestration"]["endpoints"]  # type: ignore[index]
    cfn = by_type["cloudformation"]["endpoints"]  # type: ignore[index]
    assert len(orch) == 3 and len(cfn) == 3
    assert {ep["url"] for ep in orch} == {
        f"http://127.0.0.1:3333/v1/{keystone.demo.project_id}"
    }
    assert {ep["url"] for ep in cfn} == {"http://127.0.0.1:4444/v1"}
    assert {ep["interface"] for ep in cfn} == {"public", "internal", "admin"}
