"""One engine and the native API in this process, on ``fake://`` + SQLite.

Requests go the whole way: the real ``openstack`` CLI (OSC +
python-heatclient) or urllib → HTTP → the native API (noauth) → RPC →
the engine → the database (``keel_typ_<random>``).  Two API applications
serve the same project, one with the admin role and one with member
roles only, so that per-type policy can be seen from outside.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
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
from tests.functional.engine.stacks import serialize_sqlite_writers

KEY = "0123456789abcdef0123456789abcdef"
BIN = pathlib.Path(sys.executable).parent
PROJECT = "embedded"
ROLES = {
    "admin": ["admin", "member", "reader"],
    "member": ["member", "reader"],
}


def _conf(url: str) -> cfg.ConfigOpts:
    from keel_heat_api import opts as api_opts

    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    api_opts.register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override("transport_url", "fake://")
    conf.set_override("control_exchange", f"keel_typ_{uuid.uuid4().hex[:8]}")
    conf.set_override("connection", url, group="database")
    conf.set_override("auth_encryption_key", KEY)
    conf.set_override("auth_strategy", "noauth", group="api")
    conf.set_override("noauth_project_id", PROJECT, group="api")
    return conf


class Cloud:
    """The engine and one native API per role set of :data:`ROLES`."""

    def __init__(self, tmp: pathlib.Path) -> None:
        from keel_heat_api.app import setup_app

        url = f"sqlite:///{tmp / ('keel_typ_' + uuid.uuid4().hex[:12])}.db"
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
        for who, roles in ROLES.items():
            self.conf.set_override("noauth_roles", roles, group="api")
            server = WSGIServer(
                f"native API {who}", setup_app(self.conf), "127.0.0.1", 0
            )
            server.start()
            self.servers[who] = server

    def url(self, who: str = "admin") -> str:
        """The orchestration endpoint (``…/v1/<project>``)."""
        return f"{self.servers[who].url}/v1/{PROJECT}"

    def request(
        self, method: str, path: str, body: Any = None, who: str = "admin"
    ) -> tuple[int, Any]:
        """One JSON request; returns (status, decoded body or None)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.url(who) + path,
            data=data,
            method=method,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                raw, status = resp.read(), resp.status
        except urllib.error.HTTPError as err:
            raw, status = err.read(), err.code
        return status, json.loads(raw) if raw else None

    def openstack(
        self, *args: str, who: str = "admin", ok: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run the ``openstack`` CLI against the API of ``who``."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
        result = subprocess.run(
            [
                str(BIN / "openstack"),
                "--os-auth-type",
                "none",
                "--os-endpoint",
                self.url(who),
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if ok:
            assert result.returncode == 0, result.stderr
        return result

    def close(self) -> None:
        for server in self.servers.values():
            server.stop()
        self.engine.stop()
        self.engine.wait()
        shared.cleanup()
