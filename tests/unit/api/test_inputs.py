"""Query parameters, template/environment input and template_url."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from oslo_config import cfg
from webob.multidict import MultiDict

from keel_heat_api import errors, opts, template_fetch
from keel_heat_api.params import (
    allowed_params,
    extract_bool,
    extract_int,
    extract_tags,
)
from keel_heat_api.template_input import InstantiationData
from keel_heat_core import remote_templates as remote


@pytest.fixture
def conf() -> cfg.ConfigOpts:
    c = cfg.ConfigOpts()
    opts.register_opts(c)
    c([], project="keel-heat-test")
    return c


def test_booleans() -> None:
    assert extract_bool("x", "True") is True
    assert extract_bool("x", "FALSE") is False
    with pytest.raises(errors.HTTPBadRequest):
        extract_bool("x", "1")


def test_integers() -> None:
    assert extract_int("limit", "0") == 0
    with pytest.raises(errors.HTTPBadRequest, match="Only integer"):
        extract_int("limit", "1.5")
    with pytest.raises(errors.HTTPBadRequest, match="non-negative"):
        extract_int("limit", "-2")


def test_tags() -> None:
    assert extract_tags("a,b") == ["a", "b"]
    with pytest.raises(errors.HTTPBadRequest, match="longer than 80"):
        extract_tags("x" * 81)


def test_allowed_params_kinds() -> None:
    query = MultiDict([("a", "1"), ("a", "2"), ("b", "3"), ("c", "")])
    kinds = {"a": "mixed", "b": "mixed", "c": "single", "d": "multi"}
    assert allowed_params(query, kinds) == {"a": ["1", "2"], "b": "3"}


def test_string_template_and_environment(conf: cfg.ConfigOpts) -> None:
    data = InstantiationData(
        conf,
        {
            "stack_name": "s",
            "template": "heat_template_version: 2021-04-16\n",
            "environment": "parameters: {a: 1}\n",
            "parameters": {"b": 2},
        },
    )
    # Dates stay strings, as Heat's loader keeps them.
    assert data.template() == {"heat_template_version": "2021-04-16"}
    env = data.environment()
    assert env["parameters"] == {"a": 1, "b": 2}
    assert env["resource_registry"] == {}
    assert env["encrypted_param_names"] == []
    assert "parameter_merge_strategies" not in env


def test_environment_files_win_over_environment(conf: cfg.ConfigOpts) -> None:
    data = InstantiationData(
        conf,
        {
            "environment": {"parameters": {"a": 1}},
            "environment_files": ["env.yaml"],
            "files": {"env.yaml": "parameters: {a: 2}"},
        },
    )
    assert data.environment()["parameters"] == {}
    assert data.environment_files() == ["env.yaml"]


def test_template_size_limit(conf: cfg.ConfigOpts) -> None:
    conf.set_override("max_template_size", 50)
    data = InstantiationData(
        conf, {"template": {"heat_template_version": "x" * 60}}
    )
    with pytest.raises(errors.RequestLimitExceeded, match="Template size"):
        data.template()


def test_patch_without_template_is_no_change(conf: cfg.ConfigOpts) -> None:
    assert InstantiationData(conf, {}, patch=True).no_change()
    assert not InstantiationData(
        conf, {"parameters": {"a": 1}}, patch=True
    ).no_change()


def test_tags_as_a_list_are_joined(conf: cfg.ConfigOpts) -> None:
    data = InstantiationData(conf, {"tags": ["a", "b"]})
    assert data.prepare_args()["tags"] == ["a", "b"]


def test_adopt_data(conf: cfg.ConfigOpts) -> None:
    adopt = '{"template": {"heat_template_version": "2021-04-16"}}'
    data = InstantiationData(conf, {"adopt_stack_data": adopt})
    assert data.template() == {"heat_template_version": "2021-04-16"}
    with pytest.raises(errors.HTTPBadRequest, match="Invalid adopt data"):
        InstantiationData(conf, {"adopt_stack_data": "{}"}).template()


def _resolving_to(monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    def fake(host: str, port: Any, *args: Any) -> list[Any]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0))]

    monkeypatch.setattr(remote.socket, "getaddrinfo", fake)


@pytest.mark.parametrize(
    ("address", "allowed"),
    [
        ("127.0.0.1", False),
        ("169.254.169.254", False),
        ("10.1.2.3", False),
        ("192.168.0.1", False),
        ("8.8.8.8", True),
    ],
)
def test_host_guard(
    conf: cfg.ConfigOpts,
    monkeypatch: pytest.MonkeyPatch,
    address: str,
    allowed: bool,
) -> None:
    _resolving_to(monkeypatch, address)
    assert template_fetch.host_allowed(conf, "templates.example") is allowed


def test_host_allow_list(
    conf: cfg.ConfigOpts, monkeypatch: pytest.MonkeyPatch
) -> None:
    _resolving_to(monkeypatch, "10.0.0.5")
    conf.set_override(
        "template_url_allowed_hosts", ["10.0.0.0/24", "git.local"], "api"
    )
    assert template_fetch.host_allowed(conf, "templates.internal")
    assert template_fetch.host_allowed(conf, "git.local")
    _resolving_to(monkeypatch, "10.0.1.5")
    assert not template_fetch.host_allowed(conf, "elsewhere")


def test_private_allowed_by_option(
    conf: cfg.ConfigOpts, monkeypatch: pytest.MonkeyPatch
) -> None:
    _resolving_to(monkeypatch, "127.0.0.1")
    conf.set_override("template_url_allow_private", True, "api")
    assert template_fetch.host_allowed(conf, "localhost")


def test_fetch_from_an_allowed_local_server(conf: cfg.ConfigOpts) -> None:
    import http.server
    import threading

    body = b"heat_template_version: 2021-04-16\n" + b"#" * 2000

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/t.yaml"
        with pytest.raises(template_fetch.URLFetchError, match="not allowed"):
            template_fetch.fetch(conf, url)
        conf.set_override("template_url_allowed_hosts", ["127.0.0.1"], "api")
        assert template_fetch.fetch(conf, url) == body
        conf.set_override("max_template_size", 1000)
        with pytest.raises(template_fetch.URLFetchError, match="exceeds"):
            template_fetch.fetch(conf, url)
    finally:
        server.shutdown()
        server.server_close()
