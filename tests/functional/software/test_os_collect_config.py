"""os-collect-config, the real in-instance agent, completes a deployment.

The server's deployments reach the agent the way ``POLL_TEMP_URL`` does
it: the engine PUTs the server's metadata to the server's
``metadata_put_url`` (here a small object store standing in for a Swift
TempURL) and os-collect-config's ``request`` collector polls it. Its hook
command plays heat-config-notify: for each deployment it finds, it POSTs
the outputs to the deployment resource's native signal URL (the noauth
API needs no Keystone token).
"""

from __future__ import annotations

import email.utils
import http.server
import json
import pathlib
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core.db import resource_data as data_repo
from tests.functional.software.harness import BIN, Cloud, wait_for
from tests.functional.software.test_stack_signals import (
    CTX,
    DEPLOYMENT,
    _create,
    _outputs,
    _resource,
    _state,
    _wait_state,
)

AGENT = BIN / "os-collect-config"

HOOK = """\
import json, os, sys, urllib.request

api = os.environ["KEEL_API"]
items = []
for path in os.environ["OS_CONFIG_FILES"].split(":"):
    with open(path) as f:
        found = json.load(f)
    items.extend(found.get("deployments") or [found])
for item in items:
    inputs = {i["name"]: i.get("value") for i in item.get("inputs", [])}
    if "deploy_resource_name" not in inputs:
        continue
    url = "%s/stacks/%s/resources/%s/signal" % (
        api, inputs["deploy_stack_id"], inputs["deploy_resource_name"])
    body = {
        "deploy_status_code": 0,
        "deploy_stdout": "applied " + item["config"],
        "deploy_stderr": "",
        "result": inputs.get("foo"),
    }
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json",
                 "X-Auth-Token": "agent"})
    urllib.request.urlopen(req).read()
    print("signalled", url, file=sys.stderr)
"""


class _Objects(http.server.BaseHTTPRequestHandler):
    """PUT stores a body, HEAD/GET return it with Last-Modified."""

    store: dict[str, tuple[bytes, str]] = {}

    def do_PUT(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.store[self.path] = (body, email.utils.formatdate(usegmt=True))
        self.send_response(201)
        self.end_headers()

    def _head(self) -> bytes | None:
        found = self.store.get(self.path)
        if found is None:
            self.send_response(404)
            self.end_headers()
            return None
        self.send_response(200)
        self.send_header("Last-Modified", found[1])
        self.send_header("Content-Length", str(len(found[0])))
        self.end_headers()
        return found[0]

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
        self._head()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = self._head()
        if body is not None:
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return None


@pytest.fixture
def objects() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Objects)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _row_id(cloud: Cloud, stack_id: str, name: str) -> int:
    rows = cloud.endpoint()._api.deps.resources.get_resources(stack_id)
    return max(row.id for row in rows if row.name == name)


def test_agent_polls_metadata_and_signals_back(
    cloud: Cloud, fakes: Any, objects: str, tmp_path: pathlib.Path
):
    server_only = {
        "heat_template_version": DEPLOYMENT["heat_template_version"],
        "resources": {"server": DEPLOYMENT["resources"]["server"]},
    }
    stack_id = _create(cloud, "agent", server_only)
    _wait_state(cloud, stack_id, "CREATE_COMPLETE")
    # what a POLL_TEMP_URL server stores when it is created
    url = f"{objects}/container/server-metadata"
    data_repo.set_value(
        cloud.db, _row_id(cloud, stack_id, "server"), "metadata_put_url", url
    )
    cloud.endpoint().update_stack(
        CTX, {"stack_id": stack_id}, DEPLOYMENT, {}, {}, {}
    )
    wait_for(
        lambda: (
            _resource(cloud, stack_id, "deployment")["resource_status"]
            == "IN_PROGRESS"
        ),
        what="the deployment to wait",
    )
    try:
        _run_agent(cloud, stack_id, url, tmp_path)
    finally:
        if _state(cloud, stack_id).endswith("IN_PROGRESS"):
            cloud.endpoint().delete_stack(CTX, {"stack_id": stack_id})


def _run_agent(
    cloud: Cloud, stack_id: str, url: str, tmp_path: pathlib.Path
) -> None:
    hook = tmp_path / "hook.py"
    hook.write_text(HOOK)
    conf = tmp_path / "os-collect-config.conf"
    conf.write_text("[DEFAULT]\n")
    result = subprocess.run(
        [
            str(AGENT),
            "--one-time",
            "--config-file",
            str(conf),
            "--cachedir",
            str(tmp_path / "cache"),
            "--backup-cachedir",
            str(tmp_path / "backup"),
            "--request-metadata-url",
            url,
            "--command",
            f"{sys.executable} {hook}",
            "request",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"KEEL_API": cloud.url(), "PATH": str(BIN)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "signalled" in result.stderr, result.stderr
    wait_for(
        lambda: _state(cloud, stack_id) != "UPDATE_IN_PROGRESS",
        what="the update",
    )
    assert _state(cloud, stack_id) == "UPDATE_COMPLETE"
    outputs = _outputs(cloud, stack_id)
    assert outputs == {"result": "bar", "stdout": "applied echo hi"}
    stored = json.loads(_Objects.store["/container/server-metadata"][0])
    dep_id = _resource(cloud, stack_id, "deployment")["physical_resource_id"]
    sd = cloud.endpoint().show_software_deployment(CTX, dep_id)
    assert [c["id"] for c in stored["deployments"]] == [sd["config_id"]]
    assert sd["output_values"]["deploy_stdout"] == "applied echo hi"
