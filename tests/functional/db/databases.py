"""Scratch databases for the persistence tests.

Each database is named ``keel_db_<random>`` and dropped afterwards.
MariaDB runs on 127.0.0.1:3306 (root, no password), PostgreSQL on
127.0.0.1:5432 (user postgres, trust); SQLite uses a file under the test's
temporary directory.
"""

from __future__ import annotations

import contextlib
import pathlib
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa

from keel_heat_core.db.database import Database
from keel_heat_core.testing.cloud import scratch_database

ALL_BACKENDS = ("sqlite", "mariadb", "postgresql")
SERVER_BACKENDS = ("mariadb", "postgresql")


def scratch_url(
    backend: str, tmp_dir: pathlib.Path
) -> contextlib.AbstractContextManager[str]:
    """Create an empty database; yield its URL; drop it."""
    return scratch_database(backend, tmp_dir, prefix="keel_db_")


@contextlib.contextmanager
def probe_database(
    backend: str, tmp_dir: pathlib.Path, **options: Any
) -> Iterator[Database]:
    """A scratch database with one table, ``probe (v INTEGER)``, opened
    with ``options`` (``Database``'s keyword arguments)."""
    with scratch_url(backend, tmp_dir) as url:
        db = Database(url, **options)
        with db.connection() as conn:
            conn.execute(sa.text("CREATE TABLE probe (v INTEGER)"))
        try:
            yield db
        finally:
            db.dispose()


def backend_pid(db: Database) -> int:
    """The server-side id of the connection the pool hands out next."""
    with db.connection() as conn:
        return connection_pid(conn)


def connection_pid(conn: sa.Connection) -> int:
    """The server-side id of ``conn``."""
    query = (
        "SELECT CONNECTION_ID()"
        if conn.dialect.name == "mysql"
        else "SELECT pg_backend_pid()"
    )
    return int(conn.execute(sa.text(query)).scalar_one())


def kill_backend(db: Database, pid: int) -> None:
    """End a server connection from another one, as a restart would."""
    other = Database(str(db.engine.url.render_as_string(hide_password=False)))
    try:
        with other.connection() as conn:
            if db.dialect == "mysql":
                conn.execute(sa.text(f"KILL {pid}"))
            else:
                conn.execute(
                    sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}
                )
    finally:
        other.dispose()
