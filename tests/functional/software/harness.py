"""One engine, the native API and SQLite in this process, on ``fake://``.

Requests go the whole way: HTTP (python-heatclient, OSC or urllib) → the
native API → RPC → the engine → the database (``keel_soft_<random>``).
Two API applications serve two projects (neither admin) so that project
scoping can be seen from outside.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any

from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core import plugins
from keel_heat_core.cmd.wsgi_server import WSGIServer
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from keel_heat_core.rpc import transport as shared
from keel_heat_core.service.db_backend import DatabaseBackend
from keel_heat_core.service.engine import EngineService
from keel_heat_core.service.engine_endpoint import EngineEndpoint
from tests.functional.engine.stacks import serialize_sqlite_writers

KEY = "0123456789abcdef0123456789abcdef"
BIN = pathlib.Path(sys.executable).parent
PROJECTS = ("project-a", "project-b")


def _conf(url: str) -> cfg.ConfigOpts:
    from keel_heat_api import opts as api_opts

    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    api_opts.register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override("transport_url", "fake://")
    conf.set_override("control_exchange", f"keel_soft_{uuid.uuid4().hex[:8]}")
    conf.set_override("connection", url, group="database")
    conf.set_override("auth_encryption_key", KEY)
    conf.set_override("auth_strategy", "noauth", group="api")
    conf.set_override("noauth_roles", ["member", "reader"], group="api")
    return conf


class Cloud:
    """The engine and one native API per project of :data:`PROJECTS`."""

    def __init__(self, tmp: pathlib.Path) -> None:
        from keel_heat_api.app import setup_app

        url = f"sqlite:///{tmp / ('keel_soft_' + uuid.uuid4().hex[:12])}.db"
        self.conf = _conf(url)
        plugins.load_plugins(self.conf)
        self.db = Database(url, encryption_key=KEY)
        runner.upgrade(self.db.engine)
        serialize_sqlite_writers(self.db)
        self.transport = shared.get_transport(self.conf)
        self.engine = EngineService(
            self.conf,
            str(uuid.uuid4()),
            transport=self.transport,
            backend=DatabaseBackend(self.conf, self.db),
            resume_interval=1.0,
        )
        self.engine.start()
        self.servers: dict[str, WSGIServer] = {}
        for project in PROJECTS:
            self.conf.set_override("noauth_project_id", project, group="api")
            server = WSGIServer(
                f"native API {project}", setup_app(self.conf), "127.0.0.1", 0
            )
            server.start()
            self.servers[project] = server

    def endpoint(self) -> EngineEndpoint:
        found = self.engine.engine_endpoints[0]
        assert isinstance(found, EngineEndpoint)
        return found

    def url(self, project: str = PROJECTS[0]) -> str:
        """The orchestration endpoint of a project (``…/v1/<project>``)."""
        return f"{self.servers[project].url}/v1/{project}"

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        project: str = PROJECTS[0],
    ) -> tuple[int, Any]:
        """One JSON request; returns (status, decoded body or None)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.url(project) + path,
            data=data,
            method=method,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json",
                "X-Auth-Token": "anything",
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                raw = resp.read()
                status = resp.status
        except urllib.error.HTTPError as err:
            raw = err.read()
            status = err.code
        return status, json.loads(raw) if raw else None

    def openstack(self, *args: str, project: str = PROJECTS[0]) -> str:
        """Run OSC against a project; returns stdout (asserts success)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        result = subprocess.run(
            [
                str(BIN / "openstack"),
                "--os-auth-type",
                "none",
                "--os-endpoint",
                self.url(project),
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def close(self) -> None:
        for server in self.servers.values():
            server.stop()
        self.engine.stop()
        self.engine.wait()
        shared.cleanup()
        self.db.dispose()


def wait_for(
    predicate: Callable[[], Any], timeout: float = 60.0, what: str = ""
) -> Any:
    """Poll until ``predicate()`` is truthy; return it."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = predicate()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")
