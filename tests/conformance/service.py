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
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

# The threading backend of oslo.service, before oslo.messaging loads it.
import tests.functional.engine.conftest  # noqa: F401
from keel_heat_core.db.database import Database
from keel_heat_core.testing.cloud import InProcessCloud, NoauthAPI

TENANT = "00000000000000000000000000000001"


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


class InProcessHeat:
    """The native API and one engine in this process.

    :param state: directory for the SQLite database
    """

    def __init__(self, state: pathlib.Path) -> None:
        self.state = state
        self._cloud: InProcessCloud | None = None

    @property
    def cloud(self) -> InProcessCloud:
        """The running cloud (after :meth:`start`)."""
        assert self._cloud is not None, "not started"
        return self._cloud

    @property
    def db(self) -> Database:
        return self.cloud.db

    def start(self) -> None:
        self._cloud = InProcessCloud(
            database_url=f"sqlite:///{self.state / 'keel-heat.sqlite'}",
            prefix="keel_vec_",
            resume_interval=None,
            apis={"vectors": NoauthAPI(TENANT)},
            # A scratch database: no fsync per commit.
            options={("database", "sqlite_synchronous"): False},
        )

    def stop(self) -> None:
        self.cloud.close()

    def request(
        self, method: str, path: str, body: Any = None, timeout: float = 60
    ) -> Response:
        """Send ``method /v1/{tenant}{path}`` with a JSON body."""
        server = self.cloud.server
        conn = http.client.HTTPConnection(
            server.host, server.port, timeout=timeout
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
