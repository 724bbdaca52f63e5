"""Scratch databases for the persistence tests, and what the tests watch
on them (a server connection's id, the commits and SELECTs of a block).

Each database is named ``keel_db_<random>`` and dropped afterwards.
MariaDB runs on 127.0.0.1:3306 (root, no password), PostgreSQL on
127.0.0.1:5432 (user postgres, trust); SQLite uses a file under the test's
temporary directory.
"""

from __future__ import annotations

import contextlib
import pathlib
from collections.abc import Callable, Iterator
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


@contextlib.contextmanager
def collected(
    db: Database, event: str, pick: Callable[..., object | None]
) -> Iterator[list[object]]:
    """What ``pick`` makes of each ``event`` of the engine in the block
    (None: nothing)."""
    items: list[object] = []

    def seen(*args: object) -> None:
        item = pick(*args)
        if item is not None:
            items.append(item)

    sa.event.listen(db.engine, event, seen)
    try:
        yield items
    finally:
        sa.event.remove(db.engine, event, seen)


def commits_of(
    db: Database,
) -> contextlib.AbstractContextManager[list[object]]:
    """The connections of every commit made inside the block."""
    return collected(db, "commit", lambda conn: conn)


def selects_of(
    db: Database,
) -> contextlib.AbstractContextManager[list[object]]:
    """The SELECT statements run inside the block."""

    def select(_c: object, _cur: object, stmt: str, *_: object) -> object:
        return stmt if stmt.lstrip().upper().startswith("SELECT") else None

    return collected(db, "before_cursor_execute", select)
