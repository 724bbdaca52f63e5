"""Trusts against the real Keystone: the engine acts without the user."""

from __future__ import annotations

from pathlib import Path

import pytest
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from oslo_config import cfg

from keel_heat_core.identity import errors, trusts
from keel_heat_core.testing.keystone import KeystoneServer

pytestmark = pytest.mark.keystone


def _broker(keystone: KeystoneServer) -> trusts.TrustBroker:
    heat = keystone.heat

    def trustee(trust_id: str | None) -> v3.Password:
        return v3.Password(
            auth_url=keystone.v3_url,
            user_id=heat.user_id,
            password=heat.password,
            trust_id=trust_id,
        )

    return trusts.TrustBroker(keystone.v3_url, trustee)


def test_trust_survives_revocation_of_the_users_token(
    keystone: KeystoneServer,
) -> None:
    broker = _broker(keystone)
    user = keystone.session(keystone.demo)
    trust = broker.create_trust(user)
    assert trust.trustor_user_id == keystone.demo.user_id
    assert trust.project_id == keystone.demo.project_id
    assert {"member", "heat_stack_owner"} <= set(trust.roles)

    token = user.get_token()
    assert token
    keystone.revoke_token(token)
    with pytest.raises(ks_exc.Unauthorized):
        ks_session.Session().get(
            f"{keystone.v3_url}/projects/{keystone.demo.project_id}",
            headers={"X-Auth-Token": token},
        )

    sess = broker.trust_session(trust.id, keystone.demo.user_id)
    access = sess.auth.get_access(sess)  # type: ignore[union-attr]
    assert access.trust_id == trust.id
    assert access.user_id == keystone.demo.user_id
    assert access.project_id == keystone.demo.project_id
    project = sess.get(
        f"{keystone.v3_url}/projects/{keystone.demo.project_id}"
    ).json()["project"]
    assert project["name"] == "demo"

    broker.delete_trust(sess, trust.id)
    with pytest.raises(errors.AuthorizationFailure):
        broker.trust_session(trust.id, keystone.demo.user_id)
    # Deleting twice is not an error.
    broker.delete_trust(keystone.admin_session(), trust.id)


def test_trust_for_someone_else_is_refused(keystone: KeystoneServer) -> None:
    broker = _broker(keystone)
    user = keystone.session(keystone.alt_demo)
    trust = broker.create_trust(user)
    try:
        with pytest.raises(errors.AuthorizationFailure):
            broker.trust_session(trust.id, keystone.demo.user_id)
    finally:
        broker.delete_trust(user, trust.id)


def test_delegating_a_role_the_user_lacks(keystone: KeystoneServer) -> None:
    broker = _broker(keystone)
    user = keystone.session(keystone.demo)
    with pytest.raises(errors.MissingCredentialError) as info:
        broker.create_trust(user, delegated_roles=["admin"])
    assert str(info.value) == ("Missing required credential: roles ['admin']")


def test_delegated_roles_limit_the_trust(keystone: KeystoneServer) -> None:
    broker = _broker(keystone)
    user = keystone.session(keystone.demo)
    trust = broker.create_trust(user, delegated_roles=["heat_stack_owner"])
    try:
        sess = broker.trust_session(trust.id, keystone.demo.user_id)
        access = sess.auth.get_access(sess)  # type: ignore[union-attr]
        assert "heat_stack_owner" in access.role_names
        assert "member" not in access.role_names
    finally:
        broker.delete_trust(user, trust.id)


def test_trustee_from_heat_conf(
    keystone: KeystoneServer, tmp_path: Path
) -> None:
    lines = ["[trustee]"]
    lines += [
        f"{k} = {v}" for k, v in keystone.heat_config()["trustee"].items()
    ]
    conf_file = tmp_path / "heat.conf"
    conf_file.write_text("\n".join(lines) + "\n")
    conf = cfg.ConfigOpts()
    from keystoneauth1 import loading as ks_loading

    ks_loading.register_auth_conf_options(conf, "trustee")
    conf(args=[], default_config_files=[str(conf_file)])
    broker = trusts.TrustBroker(
        keystone.v3_url, trusts.trustee_auth_from_conf(conf)
    )
    assert broker.trustee_user_id() == keystone.heat.user_id
    user = keystone.session(keystone.demo)
    trust = broker.create_trust(user)
    sess = broker.trust_session(trust.id, keystone.demo.user_id)
    broker.delete_trust(sess, trust.id)


def test_wrong_trustee_password(keystone: KeystoneServer) -> None:
    def trustee(trust_id: str | None) -> v3.Password:
        return v3.Password(
            auth_url=keystone.v3_url,
            user_id=keystone.heat.user_id,
            password="wrong",
            trust_id=trust_id,
        )

    broker = trusts.TrustBroker(keystone.v3_url, trustee)
    with pytest.raises(errors.AuthorizationFailure):
        broker.trustee_user_id()


def test_trust_from_the_request_token(keystone: KeystoneServer) -> None:
    broker = _broker(keystone)
    token = keystone.session(keystone.alt_demo).get_token()
    assert token
    user = trusts.token_session(
        keystone.v3_url, token, keystone.alt_demo.project_id or ""
    )
    trust = broker.create_trust(user)
    assert trust.trustor_user_id == keystone.alt_demo.user_id
    assert trust.project_id == keystone.alt_demo.project_id
    broker.delete_trust(user, trust.id)
