"""keel-heat in-process, as ``keel-heat-all`` runs it, for the vectors.

One :class:`InProcessHeat` serves the whole suite: the native API
application in noauth mode (project ``00000000000000000000000000000001``,
roles member and reader, as the vectors were recorded) behind a real
HTTP server on a free loopback port, and the real
:class:`~keel_heat_core.service.engine.EngineService` on the in-process
``fake://`` transport with SQLite in a temporary directory.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import pathlib
import tempfile
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from oslo_config import cfg

# The threading backend of oslo.service, before oslo.messaging loads it.
import tests.functional.engine.conftest  # noqa: F401
from keel_heat_api import app as api_app
from keel_heat_api import opts as api_opts
from keel_heat_core import conf as keel_conf
from keel_heat_core import plugins
from keel_heat_core.cmd.wsgi_server import WSGIServer
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from keel_heat_core.rpc import transport as shared
from keel_heat_core.service.db_backend import DatabaseBackend
from keel_heat_core.service.engine import EngineService
from tests.functional.engine.stacks import serialize_sqlite_writers

TENANT = "00000000000000000000000000000001"
KEY = "0123456789abcdef0123456789abcdef"


class Response:
    """An HTTP answer: status and decoded JSON body (``None`` if empty)."""

    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body

    @property
    def error(self) -> dict[str, Any]:
        """The ``error`` object of a heat-api fault body."""
        if isinstance(self.body, dict):
            return dict(self.body.get("error") or {})
        return {}


def _conf(url: str) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    api_opts.register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override("transport_url", "fake://")
    conf.set_override("control_exchange", f"keel_vec_{uuid.uuid4().hex[:8]}")
    conf.set_override("connection", url, group="database")
    # A scratch database: no fsync per commit.
    conf.set_override("sqlite_synchronous", False, group="database")
    conf.set_override("auth_encryption_key", KEY)
    conf.set_override("auth_strategy", "noauth", group="api")
    conf.set_override("noauth_project_id", TENANT, group="api")
    conf.set_override("noauth_roles", ["member", "reader"], group="api")
    return conf


class InProcessHeat:
    """The native API and one engine in this process.

    :param state: directory for the SQLite database
    """

    def __init__(self, state: pathlib.Path) -> None:
        url = f"sqlite:///{state / 'keel-heat.sqlite'}"
        self.conf = _conf(url)
        plugins.load_plugins(self.conf)
        self.db = Database(url, encryption_key=KEY, sqlite_synchronous=False)
        runner.upgrade(self.db.engine)
        # Threads of this process queue on a lock rather than in SQLite's
        # busy handler, which sleeps up to 100 ms between tries.
        serialize_sqlite_writers(self.db)
        self.transport = shared.get_transport(self.conf)
        self.engine = EngineService(
            self.conf,
            str(uuid.uuid4()),
            transport=self.transport,
            backend=DatabaseBackend(self.conf, self.db),
        )
        self.server = WSGIServer(
            "native API", api_app.setup_app(self.conf), "127.0.0.1", 0
        )

    def start(self) -> None:
        self.engine.start()
        self.server.start()

    def stop(self) -> None:
        self.server.stop()
        self.engine.stop()
        self.engine.wait()
        shared.cleanup()
        self.db.dispose()

    def request(
        self, method: str, path: str, body: Any = None, timeout: float = 60
    ) -> Response:
        """Send ``method /v1/{tenant}{path}`` with a JSON body."""
        conn = http.client.HTTPConnection(
            self.server.host, self.server.port, timeout=timeout
        )
        try:
            data = None if body is None else json.dumps(body)
            headers = {"Accept": "application/json"}
            if data is not None:
                headers["Content-Type"] = "application/json"
            conn.request(method, f"/v1/{TENANT}{path}", data, headers)
            answer = conn.getresponse()
            raw = answer.read()
        finally:
            conn.close()
        # heat-api writes non-finite floats as bare NaN/Infinity, which
        # json.loads reads back.
        return Response(answer.status, json.loads(raw) if raw else None)

    @staticmethod
    def stack_path(name: str, stack_id: str) -> str:
        return f"/stacks/{quote(name, safe='')}/{stack_id}"


@contextlib.contextmanager
def running() -> Iterator[InProcessHeat]:
    """Start keel-heat in a temporary state directory; stop it after."""
    # On tmpfs when there is one: the suite commits thousands of times.
    shm = pathlib.Path("/dev/shm")
    where = str(shm) if shm.is_dir() else None
    with tempfile.TemporaryDirectory(prefix="keel_vec_", dir=where) as state:
        heat = InProcessHeat(pathlib.Path(state))
        heat.start()
        try:
            yield heat
        finally:
            heat.stop()
