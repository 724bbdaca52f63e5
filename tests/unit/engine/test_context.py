"""What of a request context may cross the bus."""

import json

from keel_heat_core.context import (
    SECRET_KEYS,
    BusContextSerializer,
    RequestContext,
    seal_token,
    unseal_token,
)


def caller() -> RequestContext:
    return RequestContext(
        username="demo",
        password="SECRET-PW",
        aws_creds='{"access": "SECRET-EC2"}',
        auth_token="SECRET-TOKEN",
        auth_token_info={"token": {"catalog": ["SECRET-CATALOG"]}},
        user_id="u-1",
        project_id="p-1",
        project_name="demo-project",
        roles=["member"],
        trust_id="t-1",
        trustor_user_id="u-0",
        region_name="RegionOne",
        request_id="req-1",
    )


def test_bus_form_has_identities_and_no_secret() -> None:
    wire = BusContextSerializer().serialize_context(caller())
    text = json.dumps(wire)
    for secret in ("SECRET-PW", "SECRET-EC2", "SECRET-TOKEN", "SECRET-CAT"):
        assert secret not in text
    assert not SECRET_KEYS & set(wire)
    assert wire["user"] == "u-1"
    assert wire["project_id"] == "p-1"
    assert wire["username"] == "demo"
    assert wire["trust_id"] == "t-1"
    assert wire["roles"] == ["member"]
    assert wire["request_id"] == "req-1"


def test_secrets_from_a_python_heat_peer_are_dropped() -> None:
    heat_wire = {
        "user": "u-1",
        "tenant_id": "p-1",
        "tenant": "demo-project",
        "auth_token": "SECRET-TOKEN",
        "password": "SECRET-PW",
        "auth_token_info": {"token": {}},
        "roles": ["admin"],
    }
    ctxt = BusContextSerializer().deserialize_context(heat_wire)
    assert ctxt.user_id == "u-1"
    assert ctxt.project_id == "p-1"
    assert ctxt.project_name == "demo-project"
    assert ctxt.auth_token is None
    assert ctxt.password is None
    assert ctxt.auth_token_info is None


def test_round_trip_keeps_identity() -> None:
    serializer = BusContextSerializer()
    again = serializer.deserialize_context(
        serializer.serialize_context(caller())
    )
    assert (again.user_id, again.project_id, again.trust_id) == (
        "u-1",
        "p-1",
        "t-1",
    )
    assert again.region_name == "RegionOne"


def test_plain_dict_contexts_are_filtered_too() -> None:
    wire = BusContextSerializer().serialize_context(
        {"user": "u", "auth_token": "SECRET-TOKEN"}
    )
    assert wire == {"user": "u"}


def test_auth_handle_is_sealed_and_expires() -> None:
    handle = seal_token("shared-secret", "SECRET-TOKEN")
    assert "SECRET-TOKEN" not in handle
    assert unseal_token("shared-secret", handle, ttl=60) == "SECRET-TOKEN"
    assert unseal_token("other-secret", handle, ttl=60) is None
    middle = len(handle) // 2
    flipped = "A" if handle[middle] != "A" else "B"
    tampered = handle[:middle] + flipped + handle[middle + 1 :]
    assert unseal_token("shared-secret", tampered, ttl=60) is None
