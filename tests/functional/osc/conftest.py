"""One ``keel-heat-all`` per module and the real ``openstack`` CLI.

The server is the embedded mode (SQLite, ``fake://``, noauth) with stack
abandon and adopt enabled; every command runs as a subprocess of the
venv's ``openstack`` against it over real HTTP.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from keel_heat_core.testing import cloud as kit
from keel_heat_core.testing.cloud import BIN
from tests.functional import embedded_stubs


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
        return kit.run_openstack(
            self.endpoint, *args, check=check, timeout=180
        )

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
        return kit.json_request(self.endpoint + path, method, body)

    def stack(self, name: str) -> dict[str, Any]:
        return dict(self.json("stack", "show", name))

    def wait_status(
        self, name: str, *wanted: str, timeout: float = 120
    ) -> dict[str, Any]:
        """Poll ``stack show`` until the stack's status is one of
        ``wanted`` (or fail on a failed one not wanted)."""

        def reached() -> dict[str, Any] | None:
            shown = self.stack(name)
            return shown if kit.state_reached(shown, wanted) else None

        return wait_for(reached, timeout=timeout, what=f"{name} in {wanted}")


def wait_for(
    probe: Callable[[], Any], timeout: float = 120, what: str = "condition"
) -> Any:
    """``probe()``'s first true answer, polled every 0.5 s."""
    return kit.wait_for(probe, timeout, what, interval=0.5)


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    directory = tmp_path_factory.mktemp("osc")
    conf = embedded_stubs.ports_config(directory)
    # Heat denies stacks:global_index to everybody by default, and
    # ``stack list --long`` asks for all projects: an operator lets
    # admins do it (Skyline's stack list needs it too), as this deployment does
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
