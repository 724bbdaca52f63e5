"""Releases that share one commit (``keel_heat_core.db.commit_runs``), on
the real MariaDB and PostgreSQL, and switched off on SQLite.

Another connection stands for every other reader (the API, another
engine): it sees a run's writes only once the run committed, and sees
none of them when the run was rolled back.
"""

from __future__ import annotations

import contextlib
import pathlib
import threading
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from keel_heat_core.db.database import Database
from keel_heat_core.exception import RunLost
from tests.functional.db import databases

INSERT = sa.text("INSERT INTO probe (v) VALUES (:v)")
COUNT = sa.text("SELECT COUNT(*) FROM probe")


@pytest.fixture(
    params=[
        pytest.param("mariadb", marks=pytest.mark.mariadb),
        pytest.param("postgresql", marks=pytest.mark.postgresql),
    ]
)
def db(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path
) -> Iterator[Database]:
    with databases.probe_database(request.param, tmp_path) as db:
        yield db


@contextlib.contextmanager
def running(db: Database) -> Iterator[None]:
    """This thread's releases may share commits in the block; what is
    open at its end commits then."""
    assert db.runs.start()
    try:
        yield
    finally:
        db.runs.stop()


def seen_elsewhere(db: Database) -> int:
    """Rows another connection sees (committed ones)."""
    with db.engine.connect() as conn:
        return int(conn.execute(COUNT).scalar_one())


def release(db: Database, value: int) -> None:
    with db.connection(defer=True) as conn:
        conn.execute(INSERT, {"v": value})


def test_releases_share_a_commit_up_to_the_run_length(db: Database) -> None:
    with databases.commits_of(db) as commits:
        with running(db):
            for value in range(db.runs.limit - 1):
                release(db, value)
            assert seen_elsewhere(db) == 0
            assert len(commits) == 0
            assert db.runs.serial() is not None
            release(db, 99)  # the run's last: it commits
            assert seen_elsewhere(db) == db.runs.limit
            assert len(commits) == 1
            assert db.runs.serial() is None
            release(db, 100)
            assert seen_elsewhere(db) == db.runs.limit
        assert seen_elsewhere(db) == db.runs.limit + 1
        assert len(commits) == 2


def test_any_other_statement_of_the_thread_commits_the_run_first(
    db: Database,
) -> None:
    with running(db):
        release(db, 1)
        release(db, 2)
        with db.connection() as conn:  # not a release: sees both
            assert conn.execute(COUNT).scalar_one() == 2
        assert seen_elsewhere(db) == 2
        release(db, 3)
        with db.transaction() as session:
            assert session.execute(COUNT).scalar_one() == 3


def test_a_run_is_its_threads_own(db: Database) -> None:
    with running(db):
        release(db, 1)
        counted: list[int] = []

        def other_thread() -> None:
            release(db, 2)  # no run in that thread: commits at once
            with db.connection() as conn:
                counted.append(conn.execute(COUNT).scalar_one())

        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        assert counted == [1]  # this thread's run is still open
    assert seen_elsewhere(db) == 2


def test_a_run_older_than_its_age_commits_at_the_next_release(
    db: Database,
) -> None:
    now = [0.0]
    db.runs._clock = lambda: now[0]  # noqa: SLF001 - the run's clock
    with running(db):
        release(db, 1)
        now[0] += db.runs.max_age / 2
        release(db, 2)
        assert seen_elsewhere(db) == 0
        now[0] += db.runs.max_age
        release(db, 3)
        assert seen_elsewhere(db) == 3


def test_a_release_failing_in_a_run_rolls_the_whole_run_back(
    db: Database,
) -> None:
    with running(db):
        release(db, 1)
        release(db, 2)
        with pytest.raises(RunLost), db.connection(defer=True) as conn:
            conn.execute(INSERT, {"v": 3})
            raise ValueError("the release's compare-and-swap missed")
        assert db.runs.lost()
        # nothing of the thread goes on until the driver re-runs the nodes
        with pytest.raises(RunLost), db.connection() as conn:
            conn.execute(INSERT, {"v": 4})
        with pytest.raises(RunLost), db.transaction() as session:
            session.execute(COUNT)
        with pytest.raises(RunLost):
            db.runs.flush()
        db.runs.recover()
        assert not db.runs.lost()
        release(db, 5)
    assert seen_elsewhere(db) == 1  # only the release after the recovery


def test_a_runs_first_release_fails_as_any_transaction(db: Database) -> None:
    with running(db):
        with (
            pytest.raises(ValueError, match="missed"),
            db.connection(defer=True) as conn,
        ):
            conn.execute(INSERT, {"v": 1})
            raise ValueError("missed")
        assert not db.runs.lost()
        assert db.runs.serial() is None
        release(db, 2)
    assert seen_elsewhere(db) == 1


def test_a_run_whose_connection_died_is_lost_not_half_written(
    db: Database,
) -> None:
    with running(db):
        release(db, 1)
        with db.connection(defer=True) as conn:
            conn.execute(INSERT, {"v": 2})
            pid = databases.connection_pid(conn)
        databases.kill_backend(db, pid)
        with pytest.raises(RunLost):
            db.runs.flush()
        assert db.runs.lost()
        db.runs.recover()
    assert seen_elsewhere(db) == 0
    release(db, 3)  # no run now: the pool gives a live connection
    assert seen_elsewhere(db) == 1


def test_runs_are_off_on_sqlite(tmp_path: pathlib.Path) -> None:
    with databases.probe_database("sqlite", tmp_path) as sqlite:
        assert not sqlite.runs.start()
        release(sqlite, 1)
        assert seen_elsewhere(sqlite) == 1
        assert sqlite.runs.serial() is None


def test_a_transaction_inside_a_release_stands_apart(db: Database) -> None:
    with running(db):
        release(db, 1)
        with db.connection(defer=True) as conn:
            conn.execute(INSERT, {"v": 2})
            with db.connection() as inner:  # commits by itself
                inner.execute(INSERT, {"v": 3})
            assert seen_elsewhere(db) == 1  # not the run's two
        assert db.runs.serial() is not None
    assert seen_elsewhere(db) == 3
