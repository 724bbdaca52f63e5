"""Running keel-heat's Alembic migrations.

The revision chain starts with Heat's own four revisions, with Heat's
ids, so a Heat 27 database (at ``97b2a986f922``) is already up to date
and :func:`upgrade` on it is a no-op (or applies only later keel-heat
revisions). A database still under sqlalchemy-migrate (a
``migrate_version`` table and no Alembic revision) is first stamped with
Heat's initial revision ``c6214ca60943``, as Heat does.
"""

from __future__ import annotations

import pathlib
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlalchemy.engine import Connection, Engine

from keel_heat_core.db import models

#: Heat's first Alembic revision.
HEAT_INITIAL = "c6214ca60943"
#: Heat 27's head; keel-heat's head is this or a descendant of it.
HEAT_HEAD = "97b2a986f922"

_HERE = pathlib.Path(__file__).resolve().parent


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(_HERE))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def heads() -> list[str]:
    """The head revision(s) of the scripts (exactly one)."""
    return list(ScriptDirectory.from_config(_config()).get_heads())


def current(engine: Engine) -> str | None:
    """The database's revision, or ``None`` when not under Alembic."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def _under_migrate_only(conn: Connection) -> bool:
    tables = set(inspect(conn).get_table_names())
    if "migrate_version" not in tables:
        return False
    context = MigrationContext.configure(conn)
    return context.get_current_revision() is None


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` (default: the head)."""
    with engine.begin() as conn:
        if _under_migrate_only(conn):
            command.stamp(_config(conn), HEAT_INITIAL)
    with engine.begin() as conn:
        command.upgrade(_config(conn), revision)


def stamp(engine: Engine, revision: str) -> None:
    """Record ``revision`` without running anything."""
    with engine.begin() as conn:
        command.stamp(_config(conn), revision)


def differences(engine: Engine) -> list[Any]:
    """Differences between the models and the database's schema.

    Empty when the database matches the models (what ``alembic check``
    verifies). Items are Alembic's autogenerate diff tuples.
    """
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": False}
        )
        diffs = compare_metadata(context, models.Base.metadata)
    return [d for d in diffs if not _ignored(d)]


def _ignored(diff: Any) -> bool:
    # Tables outside Heat's schema (sqlalchemy-migrate's bookkeeping) are
    # not ours to drop.
    if isinstance(diff, tuple) and diff and diff[0] == "remove_table":
        return bool(diff[1].name == "migrate_version")
    return False
