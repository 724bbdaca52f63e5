"""Repository functions ride out a lost database for a window (issue 37)."""

from __future__ import annotations

from typing import Any

import pytest
from oslo_config import cfg
from oslo_db import exception as db_exc

from keel_heat_core import conf as keel_conf
from keel_heat_core.db import database
from keel_heat_core.db.database import (
    Database,
    OutageRetry,
    retry_on_db_error,
    retry_on_duplicate,
)


class Clock:
    """time.monotonic and time.sleep of the database module, faked."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, secs: float) -> None:
        self.sleeps.append(secs)
        self.now += secs


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(database.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(database.time, "sleep", fake.sleep)
    return fake


@pytest.fixture
def db() -> Any:
    made = Database("sqlite://", outage=OutageRetry(timeout=60))
    yield made
    made.dispose()


def _down_for(clock: Clock, secs: float) -> Any:
    """A repository function whose database is back after ``secs``."""
    calls: list[float] = []

    @retry_on_db_error
    def write(db: Database, value: str) -> str:
        calls.append(clock.now)
        if clock.now < secs:
            raise db_exc.DBConnectionError("Can't connect to MySQL server")
        return value

    write.calls = calls  # type: ignore[attr-defined]
    return write


def test_an_outage_inside_the_window_is_ridden_out(
    clock: Clock, db: Database
) -> None:
    write = _down_for(clock, 10)
    assert write(db, "done") == "done"
    assert clock.now >= 10
    # growing pauses: 1, 2, 4, 8 (oslo.db's db_retry_interval defaults)
    assert clock.sleeps == [1.0, 2.0, 4.0, 8.0]


def test_an_outage_past_the_window_raises(clock: Clock) -> None:
    short = Database("sqlite://", outage=OutageRetry(timeout=5))
    try:
        write = _down_for(clock, 100)
        with pytest.raises(db_exc.DBConnectionError):
            write(short, "never")
        assert 5 <= clock.now <= 5.001
    finally:
        short.dispose()


def test_pauses_are_capped(clock: Clock) -> None:
    slow = Database(
        "sqlite://", outage=OutageRetry(timeout=60, max_interval=4)
    )
    try:
        write = _down_for(clock, 30)
        write(slow, "done")
        assert max(clock.sleeps) == 4
    finally:
        slow.dispose()


def test_deadlocks_are_retried_three_times(clock: Clock, db: Database) -> None:
    calls = []

    @retry_on_db_error
    def write(db: Database) -> None:
        calls.append(1)
        raise db_exc.DBDeadlock()

    with pytest.raises(db_exc.DBDeadlock):
        write(db)
    assert len(calls) == 4


def test_a_duplicate_is_retried_only_where_asked(
    clock: Clock, db: Database
) -> None:
    calls = []

    def insert(db: Database) -> None:
        calls.append(1)
        raise db_exc.DBDuplicateEntry()

    with pytest.raises(db_exc.DBDuplicateEntry):
        retry_on_db_error(insert)(db)
    assert len(calls) == 1
    with pytest.raises(db_exc.DBDuplicateEntry):
        retry_on_duplicate(insert)(db)
    assert len(calls) == 5


def test_the_window_comes_from_the_configuration() -> None:
    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    conf([], project="keel-heat")
    default = OutageRetry.from_conf(conf.database)
    assert default == OutageRetry(60, 1.0, 10.0, True)
    conf.set_override("db_retry_timeout", 5, group="database")
    conf.set_override("db_retry_interval", 2, group="database")
    assert OutageRetry.from_conf(conf.database).timeout == 5
    assert OutageRetry.from_conf(conf.database).interval == 2
