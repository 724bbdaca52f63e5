"""A resource type that is a URL is fetched by the engine under the same
rules as ``template_url`` in the API: only from the hosts the operator
allows (loopback is not, by default)."""

from __future__ import annotations

import http.server
import pathlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.functional.software.harness import Cloud

CHILD = b"""heat_template_version: 2021-04-16
outputs:
  greeting:
    value: hello from the child
"""


class _Child(http.server.BaseHTTPRequestHandler):
    fetched: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        _Child.fetched.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-yaml")
        self.end_headers()
        self.wfile.write(CHILD)

    def log_message(self, *args: Any) -> None:
        """Quiet: the tests read what was fetched from ``fetched``."""


@pytest.fixture(scope="module")
def child_url() -> Iterator[str]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Child)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/child.yaml"
    finally:
        server.shutdown()
        server.server_close()


def _parent(url: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2021-04-16",
        "resources": {"kid": {"type": url}},
        "outputs": {"said": {"value": {"get_attr": ["kid", "greeting"]}}},
    }


def test_a_type_url_on_a_private_host_is_refused(
    tmp_path: pathlib.Path, child_url: str
) -> None:
    _Child.fetched.clear()
    with Cloud(tmp_path) as cloud:
        status, body = cloud.request(
            "POST", "/validate", {"template": _parent(child_url)}
        )
        assert status == 400, body
        refused = f"Failed to retrieve template from {child_url}: the host "
        assert refused in body["error"]["message"]
        status, body = cloud.request(
            "POST",
            "/stacks",
            {"stack_name": "remote", "template": _parent(child_url)},
        )
        assert status == 400, body
        assert refused in body["error"]["message"]
        # the same rule as template_url's, with the same words
        status, body = cloud.request(
            "POST",
            "/stacks",
            {"stack_name": "remote", "template_url": child_url},
        )
        assert status == 400, body
        assert refused in body["error"]["message"]
        status, body = cloud.request("GET", "/stacks")
        assert status == 200 and body["stacks"] == [], body
    assert _Child.fetched == []


def test_a_type_url_on_an_allowed_host_is_fetched(
    tmp_path: pathlib.Path, child_url: str
) -> None:
    _Child.fetched.clear()
    allowed = {("api", "template_url_allowed_hosts"): ["127.0.0.1"]}
    with Cloud(tmp_path, options=allowed) as cloud:
        stack_id = cloud.create("remote", _parent(child_url))
        cloud.wait_state(stack_id, "CREATE_COMPLETE", strict=True)
        assert cloud.outputs(stack_id) == {"said": "hello from the child"}
    assert _Child.fetched and set(_Child.fetched) == {"/child.yaml"}
