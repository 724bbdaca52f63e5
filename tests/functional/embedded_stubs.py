"""Stand-ins for the engine and the API apps, to test keel-heat-all alone.

``python -m tests.functional.embedded_stubs [keel-heat-all arguments]``
runs :func:`keel_heat_core.cmd.all.main` with :class:`FakeEngine` and the
stub applications below. The stub API answers the few requests the
client tests need, the way Heat's API does, and nothing else.
"""

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


class FakeEngine:
    """An engine service that only logs its life."""

    def __init__(self, conf: Any, engine_id: str) -> None:
        self.engine_id = engine_id

    def start(self) -> None:
        LOG.info("fake engine %s started", self.engine_id)

    def stop(self) -> None:
        LOG.info("fake engine %s stopped", self.engine_id)

    def wait(self) -> None:
        pass


def _json(
    start_response: StartResponse, status: str, body: object
) -> Iterable[bytes]:
    data = json.dumps(body).encode()
    start_response(
        status,
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
        ],
    )
    return [data]


def native_app(environ: dict[str, Any], start_response: StartResponse):
    """GET /, /v1/<project>/build_info and /template_versions."""
    path = environ["PATH_INFO"]
    host = environ.get("HTTP_HOST", "127.0.0.1")
    LOG.info("stub API %s %s", environ["REQUEST_METHOD"], path)
    parts = [p for p in path.split("/") if p]
    if not parts:
        return _json(
            start_response,
            "300 Multiple Choices",
            {
                "versions": [
                    {
                        "id": "v1.0",
                        "status": "CURRENT",
                        "links": [
                            {"rel": "self", "href": f"http://{host}/v1/"}
                        ],
                    }
                ]
            },
        )
    if parts[0] == "v1" and parts[2:] == ["build_info"]:
        return _json(
            start_response,
            "200 OK",
            {"api": {"revision": "stub"}, "engine": {"revision": "stub"}},
        )
    if parts[0] == "v1" and parts[2:] == ["template_versions"]:
        return _json(
            start_response,
            "200 OK",
            {
                # heatclient reads the second entry's aliases: a list
                # of one makes `template version list` fail.
                "template_versions": [
                    {
                        "version": "AWSTemplateFormatVersion.2010-09-09",
                        "type": "cfn",
                        "aliases": [],
                    },
                    {
                        "version": "heat_template_version.2013-05-23",
                        "type": "hot",
                        "aliases": [],
                    },
                ]
            },
        )
    return _json(start_response, "404 Not Found", {"error": path})


def setup_native(conf: Any) -> Any:
    return native_app


def setup_cfn(conf: Any) -> Any:
    return native_app


def main(argv: list[str]) -> int:
    from keel_heat_core.cmd import all as keel_all

    keel_all.NATIVE_APP = (__name__, "setup_native")
    keel_all.CFN_APP = (__name__, "setup_cfn")
    return keel_all.main(argv, factory=FakeEngine)


READY = re.compile(
    r"keel-heat-all ready: native API (http://\S+)/ "
    r"CFN API (?:(http://\S+)/|not installed)"
)


class Running:
    """A keel-heat-all subprocess and the URLs it serves."""

    def __init__(self, proc: subprocess.Popen[str], log: pathlib.Path) -> None:
        self.proc = proc
        self.log = log
        self.native_url = ""
        self.cfn_url = ""

    def output(self) -> str:
        return self.log.read_text()

    def stop(self, timeout: float = 20) -> int:
        """SIGTERM the process and return its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


def ports_config(directory: pathlib.Path) -> pathlib.Path:
    """Write a configuration that only asks for free ports."""
    path = directory / "ports.conf"
    path.write_text(
        "[heat_api]\nbind_port = 0\n[heat_api_cfn]\nbind_port = 0\n"
    )
    return path


def start(
    command: list[str],
    directory: pathlib.Path,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> Running:
    """Start keel-heat-all (or the stub runner) and wait until it serves.

    :raises AssertionError: with the output when it exits or times out
    """
    log = directory / "keel-heat-all.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=directory,
            env={**os.environ, **(env or {})},
            text=True,
        )
    running = Running(proc, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = READY.search(log.read_text())
        if match:
            running.native_url = match.group(1)
            running.cfn_url = match.group(2) or ""
            return running
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    running.stop()
    raise AssertionError(f"keel-heat-all did not start:\n{log.read_text()}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
