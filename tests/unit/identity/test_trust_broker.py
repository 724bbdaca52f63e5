"""The trust broker remembers its trustee's id (fakes for Keystone)."""

from __future__ import annotations

from typing import Any

import pytest
from keystoneauth1 import exceptions as ks_exc

from keel_heat_core.identity import errors, trusts


class Keystone:
    """The trustee's current id, the logins and the trusts posted."""

    def __init__(self) -> None:
        self.trustee = "heat-1"
        self.logins = 0
        self.posted: list[str] = []

    def trustee_auth(self, trust_id: str | None) -> Any:
        keystone = self

        class Login:
            def get_user_id(self, _session: Any) -> str:
                keystone.logins += 1
                return keystone.trustee

        return Login()


class UserSession:
    """The trustor's session: its token, and the trusts it posts."""

    def __init__(self, keystone: Keystone) -> None:
        self.keystone = keystone
        self.auth = self

    def get_access(self, _session: Any) -> Any:
        class Access:
            user_id, project_id, role_names = "demo", "p1", ["member"]

        return Access()

    def post(self, url: str, json: dict[str, Any]) -> Any:
        trustee = json["trust"]["trustee_user_id"]
        self.keystone.posted.append(trustee)
        if trustee != self.keystone.trustee:
            raise ks_exc.NotFound()
        body = {"trust": {"id": f"t{len(self.keystone.posted)}", "roles": []}}

        class Response:
            def json(self) -> dict[str, Any]:
                return body

        return Response()


def broker(keystone: Keystone) -> trusts.TrustBroker:
    return trusts.TrustBroker("http://ks/v3", keystone.trustee_auth)


def test_the_trustee_logs_in_once() -> None:
    keystone = Keystone()
    b = broker(keystone)
    for _ in range(3):
        b.create_trust(UserSession(keystone))  # type: ignore[arg-type]
    assert keystone.logins == 1
    assert keystone.posted == ["heat-1"] * 3


def test_a_replaced_trustee_is_looked_up_again() -> None:
    keystone = Keystone()
    b = broker(keystone)
    b.create_trust(UserSession(keystone))  # type: ignore[arg-type]
    keystone.trustee = "heat-2"  # the user was deleted and made again
    trust = b.create_trust(UserSession(keystone))  # type: ignore[arg-type]
    assert trust.id == "t3"
    assert keystone.posted == ["heat-1", "heat-1", "heat-2"]
    assert keystone.logins == 2
    assert b.trustee_user_id() == "heat-2"


def test_a_refused_trust_is_still_refused() -> None:
    keystone = Keystone()
    b = broker(keystone)

    class Refusing(UserSession):
        def post(self, url: str, json: dict[str, Any]) -> Any:
            self.keystone.posted.append(json["trust"]["trustee_user_id"])
            raise ks_exc.Forbidden()

    with pytest.raises(errors.MissingCredentialError):
        b.create_trust(Refusing(keystone))  # type: ignore[arg-type]
    # the id it had was right: asked once more, not posted again
    assert keystone.posted == ["heat-1"]
    assert keystone.logins == 2


def test_a_known_trustor_is_not_logged_in() -> None:
    keystone = Keystone()

    class Known(UserSession):
        def get_access(self, _session: Any) -> Any:
            raise AssertionError("the caller was validated already")

    trust = broker(keystone).create_trust(
        Known(keystone),  # type: ignore[arg-type]
        trustor=trusts.Trustor("alt", "p2", ("reader",)),
    )
    assert (trust.trustor_user_id, trust.project_id) == ("alt", "p2")


def test_a_token_gone_bad_is_an_authorization_failure() -> None:
    keystone = Keystone()

    class Expired(UserSession):
        def post(self, url: str, json: dict[str, Any]) -> Any:
            raise ks_exc.Unauthorized()

    with pytest.raises(errors.AuthorizationFailure):
        broker(keystone).create_trust(
            Expired(keystone),  # type: ignore[arg-type]
            trustor=trusts.Trustor("demo", "p1", ("member",)),
        )
