"""The EC2 signature middleware against a fake Keystone session."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import webob
from keystoneauth1 import exceptions as ks_exc
from oslo_config import cfg

from keel_heat_api import cfn
from keel_heat_api.cfn.ec2auth import Ec2TokenMiddleware

TOKEN_BODY = {
    "token": {
        "project": {"name": "demo", "id": "p-1"},
        "roles": [{"name": "member"}, {"name": "reader"}],
        "user": {"id": "u-1"},
    }
}


class FakeResponse:
    def __init__(self, body: Any, status: int = 200) -> None:
        self.content = json.dumps(body).encode()
        self.status_code = status
        self.headers = {"X-Subject-Token": "tok-1"}
        self._body = body

    def json(self) -> Any:
        return self._body


class FakeSession:
    """Records ``post`` calls; answers with a queue of results."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers) or [FakeResponse(TOKEN_BODY)]
        self.posts: list[tuple[str, Any]] = []
        self.auth = None

    def post(self, url: str, json: Any = None, **kwargs: Any) -> Any:
        self.posts.append((url, json))
        answer = (
            self.answers.pop(0) if len(self.answers) > 1 else (self.answers[0])
        )
        if isinstance(answer, Exception):
            raise answer
        return answer


def _conf(**ec2: Any) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    cfn.register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override("auth_uri", "http://ks:5000", group="ec2authtoken")
    for name, value in ec2.items():
        conf.set_override(name, value, group="ec2authtoken")
    return conf


def _echo(environ: dict[str, Any], start_response: Any) -> Any:
    resp = webob.Response(content_type="application/json", charset="UTF-8")
    resp.text = json.dumps(
        {
            k: v
            for k, v in environ.items()
            if k.startswith("HTTP_X_") and isinstance(v, str)
        }
    )
    return resp(environ, start_response)


def _send(
    session: Any,
    query: str = "",
    headers: dict[str, str] | None = None,
    conf: cfg.ConfigOpts | None = None,
    method: str = "GET",
    body: bytes = b"",
) -> webob.Response:
    app = Ec2TokenMiddleware(_echo, conf or _conf(), session)
    req = webob.Request.blank("/?" + query, method=method)
    req.script_name = "/v1"
    req.host = "cfn.example:8000"
    if body:
        req.body = body
    for key, value in (headers or {}).items():
        req.headers[key] = value
    resp: webob.Response = req.get_response(app)
    return resp


V2 = (
    "Action=ListStacks&AWSAccessKeyId=AK&SignatureMethod=HmacSHA256"
    "&SignatureVersion=2&Timestamp=2026-01-01T00%3A00%3A00Z&Signature=S1"
)


def test_v2_signature_becomes_a_token() -> None:
    session = FakeSession()
    resp = _send(session, V2)
    assert resp.status_int == 200
    url, body = session.posts[0]
    assert url == "http://ks:5000/v3/ec2tokens"
    creds = body["ec2Credentials"]
    assert creds["access"] == "AK"
    assert creds["signature"] == "S1"
    assert creds["host"] == "cfn.example:8000"
    assert creds["verb"] == "GET"
    assert creds["path"] == "/v1/"
    assert creds["params"] == {
        "Action": "ListStacks",
        "AWSAccessKeyId": "AK",
        "SignatureMethod": "HmacSHA256",
        "SignatureVersion": "2",
        "Timestamp": "2026-01-01T00:00:00Z",
    }
    assert creds["body_hash"] == hashlib.sha256(b"").hexdigest()
    assert creds["headers"]["Host"] == "cfn.example:8000"
    seen = resp.json
    assert seen["HTTP_X_AUTH_TOKEN"] == "tok-1"
    assert seen["HTTP_X_TENANT_ID"] == "p-1"
    assert seen["HTTP_X_TENANT_NAME"] == "demo"
    assert seen["HTTP_X_ROLES"] == "member,reader"
    assert seen["HTTP_X_AUTH_URL"] == "http://ks:5000"
    assert json.loads(seen["HTTP_X_AUTH_EC2_CREDS"]) == {
        "ec2Credentials": {"access": "AK", "signature": "S1"}
    }


def test_v4_authorization_header_and_body_hash() -> None:
    session = FakeSession()
    auth = (
        "AWS4-HMAC-SHA256 Credential=AK4/20260101/RegionOne/cloudformation/"
        "aws4_request, SignedHeaders=host;x-amz-date, Signature=abc123"
    )
    form = b"Action=ListStacks&Version=2010-05-15"
    resp = _send(
        session,
        headers={
            "Authorization": auth,
            "Content-Type": "application/x-www-form-urlencoded",
        },
        method="POST",
        body=form,
    )
    assert resp.status_int == 200
    creds = session.posts[0][1]["ec2Credentials"]
    assert (creds["access"], creds["signature"]) == ("AK4", "abc123")
    assert creds["verb"] == "POST"
    assert creds["params"] == {"Action": "ListStacks", "Version": "2010-05-15"}
    assert creds["body_hash"] == hashlib.sha256(form).hexdigest()
    assert creds["headers"]["Authorization"] == auth


def test_missing_signature_or_key() -> None:
    session = FakeSession()
    resp = _send(session, "Action=ListStacks")
    assert resp.status == "400 IncompleteSignature"
    assert "<Code>IncompleteSignature</Code>" in resp.text
    resp = _send(session, "Action=ListStacks&Signature=x")
    assert resp.status == "403 MissingAuthenticationToken"
    resp = _send(session, "Action=ListStacks&ContentType=JSON")
    assert resp.json["ErrorResponse"]["Error"]["Code"] == (
        "IncompleteSignature"
    )
    assert not session.posts


def test_x_auth_user_skips_ec2_auth() -> None:
    session = FakeSession()
    resp = _send(session, "Action=ListStacks", {"X-Auth-User": "bob"})
    assert resp.status_int == 200
    assert "HTTP_X_AUTH_TOKEN" not in resp.json
    assert not session.posts


def test_keystone_refusals() -> None:
    unknown_key = FakeResponse(
        {"error": {"message": "EC2 access key not found."}}, 404
    )
    for answer, status in (
        (ks_exc.Unauthorized(), "403 AccessDenied"),
        (
            ks_exc.NotFound(response=unknown_key),  # type: ignore[arg-type]
            "403 InvalidClientTokenId",
        ),
        (FakeResponse({"error": {"message": "?"}}), "403 AccessDenied"),
        (ks_exc.InternalServerError(), "500 InternalFailure"),
    ):
        resp = _send(FakeSession(answer), V2)
        assert resp.status == status
        assert "HTTP_X_AUTH_TOKEN" not in resp.text


def test_without_credentials_the_service_is_misconfigured() -> None:
    app = Ec2TokenMiddleware(_echo, _conf())
    assert app.session is None
    req = webob.Request.blank("/?" + V2)
    resp = req.get_response(app)
    assert resp.status == "500 InternalFailure"
    assert (
        "<Message>The request processing has failed due to an internal "
        "error:Service misconfigured</Message>" in resp.text
    )


def test_multi_cloud_tries_each_endpoint() -> None:
    conf = _conf(
        multi_cloud=True,
        allowed_auth_uris=["http://a:5000/v3", "http://b:5000"],
    )
    session = FakeSession(ks_exc.Unauthorized(), FakeResponse(TOKEN_BODY))
    resp = _send(session, V2, conf=conf)
    assert resp.status_int == 200
    assert [url for url, _ in session.posts] == [
        "http://a:5000/v3/ec2tokens",
        "http://b:5000/v3/ec2tokens",
    ]
    assert resp.json["HTTP_X_AUTH_URL"] == "http://b:5000"
    session = FakeSession(ks_exc.Unauthorized())
    resp = _send(session, V2, conf=conf)
    assert resp.status == "403 AccessDenied"
    assert len(session.posts) == 2
