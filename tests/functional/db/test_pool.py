"""The connection pool's round trips, on the real MariaDB and PostgreSQL.

A connection goes back to the pool without a ROLLBACK when its
transaction was committed (also through mysqlclient, which cannot tell
whether a transaction is open), and with one when a transaction is still open;
a connection idle for longer than ``IDLE_PING_SECONDS`` is pinged before
use, so that one the server has dropped is replaced instead of failing
the caller's statement.
"""

from __future__ import annotations

import pathlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from keel_heat_core.db import database as database_module
from keel_heat_core.db.database import Database
from tests.functional.db import databases

INSERT = sa.text("INSERT INTO probe (v) VALUES (:v)")
COUNT = sa.text("SELECT COUNT(*) FROM probe")
try:
    import MySQLdb  # noqa: F401

    HAVE_MYSQLCLIENT = True
except ImportError:  # built only where libmariadb-dev is (see Makefile)
    HAVE_MYSQLCLIENT = False
BACKENDS = [
    pytest.param("mariadb", marks=pytest.mark.mariadb),
    pytest.param(
        "mysqldb",
        marks=[
            pytest.mark.mariadb,
            pytest.mark.skipif(
                not HAVE_MYSQLCLIENT, reason="mysqlclient is not installed"
            ),
        ],
    ),
    pytest.param("postgresql", marks=pytest.mark.postgresql),
]


@pytest.fixture(params=BACKENDS)
def small_db(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path
) -> Iterator[Database]:
    with databases.probe_database(
        request.param, tmp_path, max_pool_size=1, max_overflow=0
    ) as db:
        yield db


class DriverCalls:
    """Counts the DB-API rollbacks and pings of every pooled connection."""

    def __init__(self, db: Database) -> None:
        self.rollbacks = 0
        self.pings = 0
        dialect = db.engine.dialect
        original_rollback = dialect.do_rollback
        original_ping = dialect.do_ping

        def do_rollback(dbapi_connection: Any) -> None:
            self.rollbacks += 1
            original_rollback(dbapi_connection)

        def do_ping(dbapi_connection: Any) -> bool:
            self.pings += 1
            return bool(original_ping(dbapi_connection))

        dialect.do_rollback = do_rollback  # type: ignore[method-assign]
        dialect.do_ping = do_ping  # type: ignore[method-assign]


def test_a_committed_transaction_is_not_rolled_back_again(
    small_db: Database,
) -> None:
    calls = DriverCalls(small_db)
    for value in range(5):
        with small_db.connection() as conn:
            conn.execute(INSERT, {"v": value})
    assert calls.rollbacks == 0
    assert calls.pings == 0
    with small_db.connection() as conn:
        count = conn.execute(COUNT).scalar_one()
    assert count == 5


def test_a_connection_returned_inside_a_transaction_is_rolled_back(
    small_db: Database,
) -> None:
    calls = DriverCalls(small_db)
    # a raw DB-API connection bypasses SQLAlchemy's own transaction
    # bookkeeping: only the pool's reset can end what it left open
    raw = small_db.engine.raw_connection()
    cursor = raw.cursor()
    cursor.execute("INSERT INTO probe (v) VALUES (42)")
    cursor.close()
    raw.close()
    assert calls.rollbacks == 1
    with small_db.connection() as conn:
        count = conn.execute(COUNT).scalar_one()
    assert count == 0


def test_an_idle_connection_the_server_dropped_is_replaced(
    small_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database_module, "IDLE_PING_SECONDS", 0.2)
    first = databases.backend_pid(small_db)
    databases.kill_backend(small_db, first)
    time.sleep(0.5)
    calls = DriverCalls(small_db)
    # the pool holds one connection: the dropped one is found by the ping
    # and replaced, and the caller's transaction runs on the new one
    second = databases.backend_pid(small_db)
    assert second != first
    assert calls.pings == 1


def test_a_recently_used_connection_is_not_pinged(small_db: Database) -> None:
    databases.backend_pid(small_db)
    calls = DriverCalls(small_db)
    for _ in range(3):
        databases.backend_pid(small_db)
    assert calls.pings == 0
