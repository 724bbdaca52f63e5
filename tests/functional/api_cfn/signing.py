"""AWS query-API signatures, computed as boto (v2) and botocore (v4) do.

Keystone checks them with the key pair's secret; nothing here comes from
the code under test.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
from collections.abc import Mapping
from urllib.parse import quote

REGION = "RegionOne"
SERVICE = "cloudformation"


def _quote(value: str) -> str:
    return quote(value, safe="-_.~")


def canonical_query(params: Mapping[str, str]) -> str:
    """Sorted, percent-encoded ``key=value`` pairs joined by ``&``."""
    return "&".join(f"{_quote(k)}={_quote(params[k])}" for k in sorted(params))


def v2_params(access: str, **extra: str) -> dict[str, str]:
    """Return the v2 signing parameters (without the signature)."""
    now = datetime.datetime.now(datetime.UTC)
    return {
        **extra,
        "AWSAccessKeyId": access,
        "SignatureMethod": "HmacSHA256",
        "SignatureVersion": "2",
        "Timestamp": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def sign_v2(
    secret: str, verb: str, host: str, path: str, params: Mapping[str, str]
) -> str:
    """Return the v2 (HmacSHA256) signature of a request."""
    to_sign = "\n".join([verb, host, path, canonical_query(params)])
    digest = hmac.new(
        secret.encode(), to_sign.encode(), hashlib.sha256
    ).digest()
    return base64.b64encode(digest).decode()


def _hmac(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def sign_v4(
    access: str,
    secret: str,
    verb: str,
    host: str,
    path: str,
    query: Mapping[str, str],
    body: bytes = b"",
) -> dict[str, str]:
    """Return the headers of a v4-signed request (``Authorization``).

    Query parameters are signed in the canonical query string for GET;
    a POST carries them form-encoded in ``body``.
    """
    now = datetime.datetime.now(datetime.UTC)
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    day = amz_date[:8]
    scope = f"{day}/{REGION}/{SERVICE}/aws4_request"
    headers = {"Host": host, "X-Amz-Date": amz_date}
    if verb == "POST":
        headers["Content-Type"] = (
            "application/x-www-form-urlencoded; charset=utf-8"
        )
    names = sorted(headers, key=str.lower)
    signed = ";".join(h.lower() for h in names)
    canonical_headers = "".join(
        f"{h.lower()}:{headers[h].strip()}\n" for h in names
    )
    canonical = "\n".join(
        [
            verb,
            path,
            "" if verb == "POST" else canonical_query(query),
            canonical_headers,
            signed,
            hashlib.sha256(body).hexdigest(),
        ]
    )
    to_sign = "\n".join(
        [
            "AWS4-HMAC-SHA256",
            amz_date,
            scope,
            hashlib.sha256(canonical.encode()).hexdigest(),
        ]
    )
    key = _hmac(("AWS4" + secret).encode(), day)
    for part in (REGION, SERVICE, "aws4_request"):
        key = _hmac(key, part)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["Authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={access}/{scope}, "
        f"SignedHeaders={signed}, Signature={signature}"
    )
    return headers
