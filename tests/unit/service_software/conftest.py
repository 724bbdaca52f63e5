"""A migrated SQLite database (``keel_soft_<random>``) per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from keel_heat_core.context import RequestContext
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner

KEY = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    name = f"keel_soft_{uuid.uuid4().hex[:12]}"
    database = Database(f"sqlite:///{tmp_path / name}.sqlite", KEY)
    runner.upgrade(database.engine)
    try:
        yield database
    finally:
        database.dispose()


def context(project: str = "project-1", admin: bool = False) -> Any:
    return RequestContext(
        user_id="user-1",
        project_id=project,
        username="demo",
        roles=["admin" if admin else "member"],
        is_admin=admin,
    )
