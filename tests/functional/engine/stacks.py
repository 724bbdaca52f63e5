"""A real engine on a real database, for the functional engine tests.

Engines share one migrated scratch database (``keel_eng_<random>``) and
one transport; each runs its own EngineService (its own RPC servers,
worker, listener and resume loop), as separate engine processes would.
"""

from __future__ import annotations

import contextlib
import pathlib
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import sqlalchemy as sa
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core.context import RequestContext
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from keel_heat_core.rpc import transport as shared
from keel_heat_core.service.db_backend import DatabaseBackend
from keel_heat_core.service.engine import EngineService
from keel_heat_core.service.engine_endpoint import EngineEndpoint

KEY = "0123456789abcdef0123456789abcdef"
ADMIN_URLS = {
    "mariadb": "mysql+pymysql://root@127.0.0.1:3306/",
    "postgresql": "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres",
}


@contextlib.contextmanager
def scratch_database(backend: str, tmp: pathlib.Path) -> Iterator[str]:
    """An empty database named ``keel_eng_<random>``; dropped after."""
    name = f"keel_eng_{uuid.uuid4().hex[:12]}"
    if backend == "sqlite":
        yield f"sqlite:///{tmp / name}.sqlite"
        return
    admin = sa.create_engine(ADMIN_URLS[backend], isolation_level="AUTOCOMMIT")
    if backend == "mariadb":
        url = f"mysql+pymysql://root@127.0.0.1:3306/{name}?charset=utf8mb4"
        create, drop = (
            f"CREATE DATABASE {name} CHARACTER SET utf8mb4",
            f"DROP DATABASE IF EXISTS {name}",
        )
    else:
        url = f"postgresql+psycopg2://postgres@127.0.0.1:5432/{name}"
        create, drop = (
            f"CREATE DATABASE {name}",
            f"DROP DATABASE IF EXISTS {name} WITH (FORCE)",
        )
    with admin.connect() as conn:
        conn.execute(sa.text(create))
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(drop))
        admin.dispose()


def make_conf(url: str, transport_url: str, exchange: str) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override("transport_url", transport_url)
    conf.set_override("control_exchange", exchange)
    conf.set_override("connection", url, group="database")
    conf.set_override("auth_encryption_key", KEY)
    return conf


def serialize_sqlite_writers(db: Database) -> None:
    """One transaction at a time on a shared SQLite database.

    SQLite allows one writer; under oslo.db's deferred BEGIN two threads
    that read then write fail with "database is locked" instead of
    waiting. Engines of one process share the Database object, so a lock
    around its transactions serialises them (MariaDB and PostgreSQL need
    nothing of the kind; the db layer should do this for SQLite).
    """
    if db.dialect != "sqlite":
        return
    lock = threading.RLock()
    transaction = db.transaction

    @contextlib.contextmanager
    def serialized() -> Iterator[Any]:
        with lock, transaction() as session:
            yield session

    db.transaction = serialized  # type: ignore[method-assign]


class Cloud:
    """Engines on one database and bus, and an API-side client."""

    def __init__(
        self,
        url: str,
        transport_url: str = "fake://",
        engines: int = 2,
        resume_interval: float = 1.0,
    ) -> None:
        exchange = f"keel_eng_{uuid.uuid4().hex[:8]}"
        self.conf = make_conf(url, transport_url, exchange)
        self.db = Database(url, encryption_key=KEY)
        runner.upgrade(self.db.engine)
        serialize_sqlite_writers(self.db)
        self.transport = shared.get_transport(self.conf)
        self.engines: list[EngineService] = []
        for _ in range(engines):
            engine = EngineService(
                self.conf,
                str(uuid.uuid4()),
                transport=self.transport,
                backend=DatabaseBackend(self.conf, self.db),
                resume_interval=resume_interval,
            )
            engine.start()
            self.engines.append(engine)
        self.ctxt = RequestContext(
            user_id="user-1",
            project_id="project-1",
            username="demo",
            roles=["member"],
            auth_token="SECRET-TOKEN",
        )

    def endpoint(self, index: int = 0) -> EngineEndpoint:
        endpoint = self.engines[index].engine_endpoints[0]
        assert isinstance(endpoint, EngineEndpoint)
        return endpoint

    def close(self) -> None:
        for engine in self.engines:
            engine.stop()
            engine.wait()
        shared.cleanup()
        self.db.dispose()


def wait_for(
    predicate: Callable[[], Any], timeout: float = 60.0, what: str = ""
) -> Any:
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        last = predicate()
        if last:
            return last
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}: {last!r}")
