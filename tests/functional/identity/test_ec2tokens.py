"""EC2 signatures (v2 and v4) checked by the real Keystone.

The signatures are computed here the way boto and botocore sign requests
of the AWS query API, with the stack user's key pair from Keystone.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import urllib.parse
import uuid
from collections.abc import Iterator, Mapping

import pytest
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from oslo_config import cfg

from keel_heat_core.conf import identity as identity_conf
from keel_heat_core.identity import errors
from keel_heat_core.identity.ec2tokens import (
    Ec2Request,
    check_signature,
    find_access,
    find_signature,
    session_from_conf,
)
from keel_heat_core.identity.stack_domain import (
    AccessKey,
    StackDomain,
    StackDomainSettings,
)
from keel_heat_core.testing.keystone import KeystoneServer

pytestmark = pytest.mark.keystone

HOST = "127.0.0.1:8000"


@pytest.fixture(scope="module")
def ec2_session(
    keystone: KeystoneServer, tmp_path_factory: pytest.TempPathFactory
) -> ks_session.Session:
    """The [ec2authtoken] session, read from a heat.conf as Heat would."""
    options = keystone.heat_config()["ec2authtoken"]
    conf_file = tmp_path_factory.mktemp("ec2conf") / "heat.conf"
    lines = ["[ec2authtoken]"] + [f"{k} = {v}" for k, v in options.items()]
    conf_file.write_text("\n".join(lines) + "\n")
    conf = cfg.ConfigOpts()
    identity_conf.register_opts(conf)
    conf(args=[], default_config_files=[str(conf_file)])
    sess = session_from_conf(conf)
    assert sess is not None
    return sess


@pytest.fixture(scope="module")
def stack_user(
    keystone: KeystoneServer,
) -> Iterator[tuple[str, str, AccessKey]]:
    domain = StackDomain(
        StackDomainSettings(
            auth_url=keystone.url,
            admin_user=keystone.domain_admin.username,
            admin_password=keystone.domain_admin.password,
            domain_id=keystone.stack_domain_id,
        )
    )
    project_id = domain.create_project(
        keystone.demo.project_id or "", str(uuid.uuid4())
    )
    user_id = domain.create_user("signer", project_id, "pw")
    key = domain.create_ec2_keypair(user_id, project_id)
    yield project_id, user_id, key
    domain.delete_user(user_id, project_id)
    domain.delete_project(project_id)


def _quote(value: str) -> str:
    return urllib.parse.quote(value, safe="-_~")


def _query(params: Mapping[str, str]) -> str:
    return "&".join(f"{_quote(k)}={_quote(params[k])}" for k in sorted(params))


def sign_v2(
    secret: str, verb: str, host: str, path: str, params: dict[str, str]
) -> str:
    to_sign = f"{verb}\n{host}\n{path}\n{_query(params)}"
    digest = hmac.new(
        secret.encode(), to_sign.encode(), hashlib.sha256
    ).digest()
    return base64.b64encode(digest).decode()


def _v2_params(access: str) -> dict[str, str]:
    now = datetime.datetime.now(datetime.UTC)
    return {
        "Action": "ListStacks",
        "Version": "2010-05-15",
        "AWSAccessKeyId": access,
        "SignatureMethod": "HmacSHA256",
        "SignatureVersion": "2",
        "Timestamp": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def _hmac(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def sign_v4_post(
    access: str, secret: str, host: str, path: str, body: bytes
) -> dict[str, str]:
    """Return the headers botocore sends for a signed query-API POST."""
    now = datetime.datetime.now(datetime.UTC)
    amz_date = now.strftime("%Y%m%dT%H%M%SZ")
    day = amz_date[:8]
    scope = f"{day}/RegionOne/cloudformation/aws4_request"
    headers = {
        "Host": host,
        "X-Amz-Date": amz_date,
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
    }
    signed = ";".join(sorted(h.lower() for h in headers))
    canonical_headers = "".join(
        f"{h.lower()}:{headers[h].strip()}\n"
        for h in sorted(headers, key=str.lower)
    )
    canonical = "\n".join(
        [
            "POST",
            path,
            "",
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
    for part in ("RegionOne", "cloudformation", "aws4_request"):
        key = _hmac(key, part)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["Authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={access}/{scope}, "
        f"SignedHeaders={signed}, Signature={signature}"
    )
    return headers


def test_signature_v2(
    keystone: KeystoneServer,
    stack_user: tuple[str, str, AccessKey],
    ec2_session: ks_session.Session,
) -> None:
    project_id, user_id, key = stack_user
    params = _v2_params(key.access)
    params["Signature"] = sign_v2(key.secret, "GET", HOST, "/v1/", params)
    assert find_access(params, {}) == key.access
    signature = find_signature(params, {})
    assert signature == params.pop("Signature")
    request = Ec2Request(
        access=key.access,
        signature=signature,
        host=HOST,
        verb="GET",
        path="/v1/",
        params=params,
        headers={"Host": HOST},
    )
    token = check_signature(request, keystone.url, ec2_session)
    assert token.project_id == project_id
    assert token.user_id == user_id
    assert "heat_stack_user" in token.roles
    assert token.token

    tampered = dict(params, Action="DescribeStacks")
    bad = Ec2Request(
        access=key.access,
        signature=signature,
        host=HOST,
        verb="GET",
        path="/v1/",
        params=tampered,
        headers={"Host": HOST},
    )
    with pytest.raises(errors.Ec2AuthError) as info:
        check_signature(bad, f"{keystone.url}/v3", ec2_session)
    assert info.value.code == "AccessDenied"


def test_signature_v4(
    keystone: KeystoneServer,
    stack_user: tuple[str, str, AccessKey],
    ec2_session: ks_session.Session,
) -> None:
    project_id, _user_id, key = stack_user
    form = {"Action": "ListStacks", "Version": "2010-05-15"}
    body = urllib.parse.urlencode(form).encode()
    headers = sign_v4_post(key.access, key.secret, HOST, "/v1/", body)
    signature = find_signature(form, headers)
    assert find_access(form, headers) == key.access
    assert signature and len(signature) == 64
    request = Ec2Request(
        access=key.access,
        signature=signature,
        host=HOST,
        verb="POST",
        path="/v1/",
        params=form,
        headers=headers,
        body_hash=hashlib.sha256(body).hexdigest(),
    )
    token = check_signature(request, keystone.url, ec2_session)
    assert token.project_id == project_id

    other_body = hashlib.sha256(body + b"&x=1").hexdigest()
    bad = Ec2Request(**{**request.__dict__, "body_hash": other_body})
    with pytest.raises(errors.Ec2AuthError) as info:
        check_signature(bad, keystone.url, ec2_session)
    assert info.value.code == "AccessDenied"


def test_unknown_access_key(
    keystone: KeystoneServer, ec2_session: ks_session.Session
) -> None:
    params = _v2_params("0" * 32)
    signature = sign_v2("nope", "GET", HOST, "/v1/", params)
    request = Ec2Request(
        access="0" * 32,
        signature=signature,
        host=HOST,
        verb="GET",
        path="/v1/",
        params=params,
    )
    with pytest.raises(errors.Ec2AuthError) as info:
        check_signature(request, keystone.url, ec2_session)
    assert info.value.code == "InvalidClientTokenId"


def test_only_services_may_check_signatures(
    keystone: KeystoneServer, stack_user: tuple[str, str, AccessKey]
) -> None:
    _project_id, _user_id, key = stack_user
    params = _v2_params(key.access)
    signature = sign_v2(key.secret, "GET", HOST, "/v1/", params)
    request = Ec2Request(
        access=key.access,
        signature=signature,
        host=HOST,
        verb="GET",
        path="/v1/",
        params=params,
    )
    with pytest.raises(ks_exc.Forbidden):
        check_signature(request, keystone.url, keystone.session(keystone.demo))


def test_no_ec2authtoken_credentials() -> None:
    conf = cfg.ConfigOpts()
    identity_conf.register_opts(conf)
    conf(args=[])
    assert session_from_conf(conf) is None
