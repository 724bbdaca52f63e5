"""Where the CFN API finds signatures and access keys, and Keystone's URL."""

from __future__ import annotations

import pytest

from keel_heat_core.identity.ec2tokens import (
    Ec2Request,
    ec2tokens_url,
    find_access,
    find_signature,
)

AUTH = (
    "AWS4-HMAC-SHA256 Credential=AKID/20261129/RegionOne/cfn/aws4_request,"
    " SignedHeaders=host;x-amz-date, Signature=abc123"
)


@pytest.mark.parametrize(
    ("params", "headers", "signature", "access"),
    [
        ({"Signature": "s2", "AWSAccessKeyId": "k2"}, {}, "s2", "k2"),
        (
            {"X-Amz-Signature": "s4", "X-Amz-Credential": "k4/2026/r/s/x"},
            {},
            "s4",
            "k4",
        ),
        ({}, {"Authorization": AUTH}, "abc123", "AKID"),
        # The query parameters win over the header.
        (
            {"Signature": "q", "AWSAccessKeyId": "qk"},
            {"Authorization": AUTH},
            "q",
            "qk",
        ),
        ({}, {}, None, None),
    ],
)
def test_find_signature_and_access(
    params: dict[str, str],
    headers: dict[str, str],
    signature: str | None,
    access: str | None,
) -> None:
    assert find_signature(params, headers) == signature
    assert find_access(params, headers) == access


@pytest.mark.parametrize(
    ("auth_uri", "url"),
    [
        ("http://k:5000", "http://k:5000/v3/ec2tokens"),
        ("http://k:5000/", "http://k:5000/v3/ec2tokens"),
        ("http://k:5000/v3", "http://k:5000/v3/ec2tokens"),
        ("http://k:5000/v2.0", "http://k:5000/v3/ec2tokens"),
        ("http://k/identity/v3/ec2tokens", "http://k/identity/v3/ec2tokens"),
    ],
)
def test_ec2tokens_url(auth_uri: str, url: str) -> None:
    assert ec2tokens_url(auth_uri) == url


def test_request_body_shape() -> None:
    body = Ec2Request(
        access="a",
        signature="s",
        host="h:1",
        verb="GET",
        path="/v1/",
        params={"Action": "ListStacks"},
        headers={"Host": "h:1"},
    ).body()
    assert body == {
        "ec2Credentials": {
            "access": "a",
            "signature": "s",
            "host": "h:1",
            "verb": "GET",
            "path": "/v1/",
            "params": {"Action": "ListStacks"},
            "headers": {"Host": "h:1"},
            "body_hash": (
                "e3b0c44298fc1c149afbf4c8996fb924"
                "27ae41e4649b934ca495991b7852b855"
            ),
        }
    }
