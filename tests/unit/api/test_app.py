"""The assembled application: middleware order and behaviour."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import webob

from tests.contract.harness import Harness


@pytest.fixture
def harness() -> Iterator[Harness]:
    h = Harness(overrides={(None, "max_json_body_size"): 200})
    yield h
    h.stop()


def call(
    app: Any, method: str, path: str, body: Any = None, **headers: str
) -> webob.Response:
    req = webob.Request.blank(path, method=method)
    req.headers["Accept"] = "application/json"
    req.headers.update(headers)
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = "application/json"
    return req.get_response(app)


def test_body_limit(harness: Harness) -> None:
    resp = call(
        harness.app,
        "POST",
        "/v1/embedded/stacks",
        {"stack_name": "x" * 300},
    )
    assert resp.status_int == 400
    error = resp.json["error"]
    assert error["type"] == "RequestLimitExceeded"
    assert error["message"].startswith("Request limit exceeded: JSON body")
    assert "(200 bytes)" in error["message"]


def test_noauth_ignores_identity_headers(harness: Harness) -> None:
    resp = call(
        harness.app,
        "GET",
        "/v1/embedded/stacks",
        **{"X-Project-Id": "intruder", "X-Roles": "reader"},
    )
    assert resp.status_int == 200


def test_healthcheck_reports_database() -> None:
    h = Harness()
    try:
        from keel_heat_api import app as api_app

        app = api_app.setup_app(h.conf, rpc=h.rpc, db_check=lambda: "down")
        resp = call(app, "GET", "/healthcheck")
        assert resp.status_int == 503
        assert "database: down" in resp.text
    finally:
        h.stop()


def test_debug_adds_tracebacks() -> None:
    h = Harness(overrides={(None, "debug"): True})
    try:
        resp = call(h.app, "GET", "/v1/embedded/stacks/nope")
        assert resp.status_int == 404
        assert resp.json["error"]["traceback"]
    finally:
        h.stop()


def test_proxy_headers_change_links() -> None:
    h = Harness(
        overrides={("oslo_middleware", "enable_proxy_headers_parsing"): True}
    )
    try:
        h.conf([], project="keel-heat-test")
        resp = call(
            h.app,
            "POST",
            "/v1/embedded/stacks",
            {
                "stack_name": "s",
                "template": {"heat_template_version": "2021-04-16"},
            },
            **{"X-Forwarded-Proto": "https", "Host": "heat.example.com"},
        )
        assert resp.status_int == 201, resp.text
        assert resp.headers["Location"].startswith(
            "https://heat.example.com/v1/embedded/stacks/s/"
        )
    finally:
        h.stop()


def test_keystone_mode_needs_a_token() -> None:
    h = Harness(
        auth_strategy="keystone",
        overrides={
            ("keystone_authtoken", "delay_auth_decision"): False,
            ("keystone_authtoken", "www_authenticate_uri"): "http://ks/v3",
        },
    )
    try:
        resp = call(h.app, "GET", "/v1/embedded/stacks")
        assert resp.status_int == 401
        assert "http://ks/v3" in resp.headers["WWW-Authenticate"]
        # Version discovery needs no token.
        assert call(h.app, "GET", "/").status_int == 300
    finally:
        h.stop()


def test_cors_preflight() -> None:
    h = Harness(overrides={("cors", "allowed_origin"): ["https://ui.example"]})
    try:
        resp = call(
            h.app,
            "OPTIONS",
            "/v1/embedded/stacks",
            Origin="https://ui.example",
            **{"Access-Control-Request-Method": "GET"},
        )
        assert (
            resp.headers["Access-Control-Allow-Origin"] == "https://ui.example"
        )
    finally:
        h.stop()


def test_body_limit_without_content_length(harness: Harness) -> None:
    import io

    req = webob.Request.blank("/v1/embedded/stacks", method="POST")
    req.content_type = "application/json"
    req.body_file_raw = io.BytesIO(b'{"stack_name": "' + b"x" * 300 + b'"}')
    req.environ.pop("CONTENT_LENGTH", None)
    req.environ["wsgi.input_terminated"] = True
    resp = req.get_response(harness.app)
    assert resp.status_int == 400
    assert resp.json["error"]["type"] == "RequestLimitExceeded"
