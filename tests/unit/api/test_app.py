"""The assembled application: middleware order and behaviour."""

from __future__ import annotations

import json
import pathlib
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


def _health(
    overrides: dict[tuple[str | None, str], Any], accept: str = "text/plain"
) -> webob.Response:
    h = Harness(overrides=overrides)
    try:
        req = webob.Request.blank("/healthcheck")
        req.headers["Accept"] = accept
        return req.get_response(h.app)
    finally:
        h.stop()


def test_healthcheck_reports_the_database(tmp_path: pathlib.Path) -> None:
    up = _health(
        {("database", "connection"): f"sqlite:///{tmp_path}/up.sqlite"}
    )
    assert (up.status_int, up.text) == (200, "OK")
    gone = f"sqlite:///{tmp_path}/no/such/folder/db.sqlite"
    down = _health({("database", "connection"): gone})
    assert down.status_int == 503
    assert down.text.startswith("database unreachable: DB")
    answer = _health(
        {("database", "connection"): gone}, accept="application/json"
    )
    assert answer.status_int == 503
    assert answer.json["reasons"] == [down.text]


def test_healthcheck_disabled_by_file(tmp_path: pathlib.Path) -> None:
    flag = tmp_path / "healthcheck_disable"
    options: dict[tuple[str | None, str], Any] = {
        ("healthcheck", "backends"): ["keel_heat_database", "disable_by_file"],
        ("healthcheck", "disable_by_file_path"): str(flag),
        ("database", "connection"): f"sqlite:///{tmp_path}/up.sqlite",
    }
    assert _health(options).status_int == 200
    flag.write_text("")
    resp = _health(options)
    # one line per backend, as oslo.middleware writes them
    assert (resp.status_int, resp.text) == (503, "OK\nDISABLED BY FILE")


def test_healthcheck_outside_the_allowed_sources_is_not_answered() -> None:
    resp = _health({("healthcheck", "allowed_source_ranges"): ["10.9.0.0/16"]})
    # the request goes on to the API, where the path is unknown
    assert resp.status_int == 404


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
