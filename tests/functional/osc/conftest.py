"""One ``keel-heat-all`` per module and the real ``openstack`` CLI.

The server is the embedded mode (SQLite, ``fake://``, noauth) with stack
abandon and adopt enabled; every command runs as a subprocess of the
venv's ``openstack`` against it over real HTTP.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.functional import embedded_stubs

BIN = pathlib.Path(sys.executable).parent


class Cloud:
    """A running keel-heat-all and the commands a test sends it."""

    def __init__(self, server: embedded_stubs.Running) -> None:
        self.server = server
        marker = "--os-endpoint " + server.native_url + "/v1/"
        output = server.output()
        assert marker in output, output
        self.project = output.split(marker, 1)[1].split()[0]
        self.endpoint = f"{server.native_url}/v1/{self.project}"

    def run(
        self, *args: str, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        result = subprocess.run(
            [
                str(BIN / "openstack"),
                "--os-auth-type",
                "none",
                "--os-endpoint",
                self.endpoint,
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=180,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        if check:
            assert result.returncode == 0, (
                f"openstack {' '.join(args)}:\n{result.stdout}\n"
                f"{result.stderr}"
            )
        return result

    def osc(self, *args: str) -> str:
        """The command's standard output (it must succeed)."""
        return self.run(*args).stdout

    def json(self, *args: str) -> Any:
        """The command's ``-f json`` answer (after the event lines that
        ``--wait`` prints first)."""
        out = self.osc(*args, "-f", "json")
        lines = out.splitlines()
        start = next(
            (i for i, line in enumerate(lines) if line[:1] in ("{", "[")),
            0,
        )
        return json.loads("\n".join(lines[start:]))

    def value(self, *args: str) -> str:
        """The command's ``-f value`` answer, stripped."""
        return self.osc(*args, "-f", "value").strip()

    def http(
        self, method: str, path: str, body: Any = None
    ) -> tuple[int, Any]:
        """A raw request to the native API (for exact response shapes)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.endpoint + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as err:
            raw = err.read()
            return err.code, json.loads(raw) if raw else None

    def stack(self, name: str) -> dict[str, Any]:
        return dict(self.json("stack", "show", name))

    def wait_status(
        self, name: str, *wanted: str, timeout: float = 120
    ) -> dict[str, Any]:
        """Poll ``stack show`` until the stack's status is one of
        ``wanted`` (or fail with the last one seen)."""
        return wait_for(
            lambda: _if_status(self.stack(name), wanted),
            timeout=timeout,
            what=f"{name} in {wanted}",
        )


def _if_status(shown: dict[str, Any], wanted: tuple[str, ...]) -> Any:
    if shown["stack_status"] in wanted:
        return shown
    if shown["stack_status"].endswith("_FAILED") and not any(
        w.endswith("_FAILED") for w in wanted
    ):
        raise AssertionError(
            f"{shown['stack_status']}: {shown['stack_status_reason']}"
        )
    return None


def wait_for(
    probe: Callable[[], Any], timeout: float = 120, what: str = "condition"
) -> Any:
    """``probe()``'s first true answer, polled every 0.5 s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    directory = tmp_path_factory.mktemp("osc")
    conf = embedded_stubs.ports_config(directory)
    # Heat denies stacks:global_index to everybody by default, and
    # ``stack list --long`` asks for all projects: an operator lets
    # admins do it (clients.md, Skyline), as this deployment does
    policy = directory / "policy.yaml"
    policy.write_text('"stacks:global_index": "role:admin"\n')
    conf.write_text(
        "[DEFAULT]\nenable_stack_abandon = true\nenable_stack_adopt = true\n"
        + conf.read_text()
        + f"[oslo_policy]\npolicy_file = {policy}\n"
    )
    running = embedded_stubs.start(
        [str(BIN / "keel-heat-all"), "--config-file", str(conf)],
        directory,
        {"KEEL_HEAT_STATE_DIR": str(directory / "state")},
    )
    try:
        yield Cloud(running)
    finally:
        assert running.stop() == 0, running.output()
