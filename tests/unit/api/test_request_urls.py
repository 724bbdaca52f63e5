"""The URLs ApiRequest builds for identities (every link of a list)."""

from __future__ import annotations

from typing import Any

import webob
from oslo_config import cfg

from keel_heat_api.request import ApiRequest


def _request(script_name: str = "/v1") -> ApiRequest:
    req = webob.Request.blank(
        "/x/stacks", base_url="https://heat.example:8004" + script_name
    )
    return ApiRequest(req, None, cfg.ConfigOpts(), None, None)


def _ident(tenant: str, name: str, sid: str, path: str = "") -> Any:
    return {
        "tenant": tenant,
        "stack_name": name,
        "stack_id": sid,
        "path": path,
    }


def test_each_identity_gets_its_own_url_within_one_request() -> None:
    req = _request()
    base = "https://heat.example:8004/v1"
    cases = [
        (_ident("p", "s", "1"), f"{base}/p/stacks/s/1"),
        (
            _ident("p", "s", "1", "/resources/r/events/e1"),
            f"{base}/p/stacks/s/1/resources/r/events/e1",
        ),
        (
            _ident("p", "s", "1", "/resources/r 2/events/e2"),
            f"{base}/p/stacks/s/1/resources/r%202/events/e2",
        ),
        (_ident("p", "s", "2"), f"{base}/p/stacks/s/2"),
        (_ident("p", "a/b", "3"), f"{base}/p/stacks/a%2Fb/3"),
        (_ident("q w", "s", "1"), f"{base}/q%20w/stacks/s/1"),
    ]
    # twice: the second round is built from what the first one kept
    for _ in range(2):
        for identity, url in cases:
            assert req.identity_url(identity) == url
    assert req.tenant_url("p") == f"{base}/p"


def test_the_url_follows_each_request_s_own_host() -> None:
    one = _request("/v1")
    other = _request("/orchestration/v1")
    ident = _ident("p", "s", "1")
    assert one.identity_url(ident).endswith(":8004/v1/p/stacks/s/1")
    assert other.identity_url(ident).endswith(
        ":8004/orchestration/v1/p/stacks/s/1"
    )
