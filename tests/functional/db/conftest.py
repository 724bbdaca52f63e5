"""Fixtures: one migrated database per backend and test session."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest

from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from tests.functional.db import databases

KEY = "0123456789abcdef0123456789abcdef"


def _migrated(
    backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    yield from _migrated_in(backend, tmp_path_factory.mktemp(backend))


def _migrated_in(backend: str, tmp: pathlib.Path) -> Iterator[Database]:
    with databases.scratch_url(backend, tmp) as url:
        db = Database(url, encryption_key=KEY)
        runner.upgrade(db.engine)
        try:
            yield db
        finally:
            db.dispose()


@pytest.fixture(scope="session")
def sqlite_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    yield from _migrated("sqlite", tmp_path_factory)


@pytest.fixture(scope="session")
def mariadb_db(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Database]:
    yield from _migrated("mariadb", tmp_path_factory)


@pytest.fixture(scope="session")
def postgresql_db(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Database]:
    yield from _migrated("postgresql", tmp_path_factory)


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("mariadb", marks=pytest.mark.mariadb),
        pytest.param("postgresql", marks=pytest.mark.postgresql),
    ]
)
def db(request: pytest.FixtureRequest) -> Database:
    """A migrated database of each backend (shared within the session)."""
    fixture: Database = request.getfixturevalue(f"{request.param}_db")
    return fixture


@pytest.fixture(
    params=[
        pytest.param("mariadb", marks=pytest.mark.mariadb),
        pytest.param("postgresql", marks=pytest.mark.postgresql),
    ]
)
def server_db(request: pytest.FixtureRequest) -> Database:
    """A migrated MariaDB or PostgreSQL database."""
    fixture: Database = request.getfixturevalue(f"{request.param}_db")
    return fixture


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("mariadb", marks=pytest.mark.mariadb),
        pytest.param("postgresql", marks=pytest.mark.postgresql),
    ]
)
def fresh_db(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path
) -> Iterator[Database]:
    """A new migrated database of each backend, for one test (``KEY``)."""
    yield from _migrated_in(request.param, tmp_path)
