"""The pure parts: temporary URL paths, signatures and Swift's dates."""

from __future__ import annotations

import datetime
import hashlib
import hmac
from urllib import parse

import pytest
from keel_heat_client_swift import temp_url


@pytest.mark.parametrize(
    ("path", "valid"),
    [
        ("/v1/AUTH_p1/c/o", True),
        ("/v1/AUTH_p1/c/dir/o", True),
        ("/v1/AUTH_p1/c/", False),
        ("/v1/AUTH_p1/c//", False),
        ("/v1/AUTH_p1//o", False),
        ("/v1/AUTH_p2/c/o", False),
        ("/v2/AUTH_p1/c/o", False),
        ("v1/AUTH_p1/c/o", False),
        ("/v1/AUTH_p1/c", False),
    ],
)
def test_temp_url_path_shape(path: str, valid: bool) -> None:
    assert temp_url.is_valid_temp_url_path(path, "p1") is valid


def test_signature_is_an_hmac_of_method_expiry_and_path() -> None:
    signed = temp_url.sign_path("/v1/AUTH_p/c/o", 1700000000, "k", "put")
    path, _, query = signed.partition("?")
    assert path == "/v1/AUTH_p/c/o"
    fields = dict(parse.parse_qsl(query))
    assert fields["temp_url_expires"] == "1700000000"
    mac = hmac.new(b"k", b"PUT\n1700000000\n/v1/AUTH_p/c/o", hashlib.sha256)
    assert fields["temp_url_sig"] == mac.hexdigest()
    other = temp_url.sign_path("/v1/AUTH_p/c/o", 1700000000, "k", "GET")
    assert other != signed


def test_object_path_quotes_names_below_the_account() -> None:
    url = "http://127.0.0.1:8080/v1/AUTH_abc/"
    assert temp_url.object_path(url, "my c", "a b/c") == (
        "/v1/AUTH_abc/my%20c/a%20b/c"
    )


def test_default_lifetime_ends_just_before_the_last_epoch() -> None:
    assert temp_url.default_lifetime(1000.5) == temp_url.MAX_EPOCH - 60 - 1001
    assert temp_url.default_lifetime(1000) == temp_url.MAX_EPOCH - 60 - 1000


def test_new_keys_differ() -> None:
    keys = {temp_url.new_temp_url_key() for _ in range(5)}
    assert len(keys) == 5
    assert all(len(k) == 32 for k in keys)


def test_last_modified_is_naive_utc() -> None:
    parsed = temp_url.parse_last_modified("Wed, 21 Oct 2015 07:28:00 GMT")
    assert parsed == datetime.datetime(2015, 10, 21, 7, 28)  # noqa: DTZ001
    assert temp_url.parse_last_modified(None) is None
    assert temp_url.parse_last_modified("") is None
    assert temp_url.parse_last_modified("not a date") is None
