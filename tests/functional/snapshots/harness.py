"""One engine, the native API and SQLite in this process, on ``fake://``.

The software harness's cloud (HTTP → API → RPC → engine → database) with
this suite's database prefix (``keel_snp_``) and abandon/adopt enabled.
"""

from __future__ import annotations

import json
import pathlib
import uuid
from typing import Any

from keel_heat_core import plugins
from keel_heat_core.cmd.wsgi_server import WSGIServer
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from keel_heat_core.rpc import transport as shared
from keel_heat_core.service.db_backend import DatabaseBackend
from keel_heat_core.service.engine import EngineService
from tests.functional.engine.stacks import serialize_sqlite_writers
from tests.functional.software import harness

PREFIX = "keel_snp_"

TEMPLATE = {
    "heat_template_version": "2016-10-14",
    "parameters": {
        "val": {"type": "string", "default": "one"},
        "len": {"type": "number", "default": 8},
    },
    "resources": {
        "test": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "val"}},
        },
        "rand": {
            "type": "OS::Heat::RandomString",
            "properties": {"length": {"get_param": "len"}},
        },
    },
    "outputs": {
        "val": {"value": {"get_attr": ["test", "output"]}},
        "rand": {"value": {"get_attr": ["rand", "value"]}},
    },
}


class SnapshotCloud(harness.Cloud):
    """:class:`harness.Cloud` on a ``keel_snp_`` database."""

    def __init__(self, tmp: pathlib.Path) -> None:
        from keel_heat_api.app import setup_app

        url = f"sqlite:///{tmp / (PREFIX + uuid.uuid4().hex[:12])}.db"
        self.conf = harness._conf(url)
        self.conf.set_override(
            "control_exchange", f"{PREFIX}{uuid.uuid4().hex[:8]}"
        )
        self.conf.set_override("enable_stack_abandon", True)
        self.conf.set_override("enable_stack_adopt", True)
        self.conf.set_override("max_snapshots_per_stack", 3)
        plugins.load_plugins(self.conf)
        self.db = Database(url, encryption_key=harness.KEY)
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
        for project in harness.PROJECTS:
            self.conf.set_override("noauth_project_id", project, group="api")
            server = WSGIServer(
                f"native API {project}", setup_app(self.conf), "127.0.0.1", 0
            )
            server.start()
            self.servers[project] = server

    def create(self, name: str, **params: Any) -> dict[str, Any]:
        """Create a stack of :data:`TEMPLATE` and wait for it."""
        status, body = self.request(
            "POST",
            "/stacks",
            {
                "stack_name": name,
                "template": TEMPLATE,
                "parameters": params,
            },
        )
        assert status == 201, body
        self.wait_state(name, "CREATE_COMPLETE")
        return dict(body["stack"])

    def show(self, name: str) -> dict[str, Any]:
        """``openstack stack show -f json``."""
        return dict(
            json.loads(self.openstack("stack", "show", name, "-f", "json"))
        )

    def wait_state(self, name: str, state: str) -> dict[str, Any]:
        """Wait until the stack shows ``state``; returns the stack."""

        def reached() -> Any:
            status, body = self.request("GET", f"/stacks/{name}")
            if status != 200:
                return None
            stack = body["stack"]
            assert not stack["stack_status"].endswith("FAILED"), stack
            return stack if stack["stack_status"] == state else None

        return dict(harness.wait_for(reached, what=f"{name} {state}"))

    def outputs(self, name: str) -> dict[str, Any]:
        """Output values of a stack by key."""
        status, body = self.request("GET", f"/stacks/{name}")
        assert status == 200, body
        return {
            o["output_key"]: o.get("output_value")
            for o in body["stack"]["outputs"]
        }
