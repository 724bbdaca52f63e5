"""The migrations build Heat 27's schema, and the models agree with them."""

from __future__ import annotations

import json
import pathlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from keel_heat_core.migrations import runner
from tests.functional.db import databases

DATA = pathlib.Path(__file__).parent / "data"

BACKENDS = [
    "sqlite",
    pytest.param("mariadb", marks=pytest.mark.mariadb),
    pytest.param("postgresql", marks=pytest.mark.postgresql),
]


@pytest.fixture
def empty_engine(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path
) -> Iterator[sa.Engine]:
    with databases.scratch_url(request.param, tmp_path) as url:
        engine = sa.create_engine(url)
        try:
            yield engine
        finally:
            engine.dispose()


def _type_name(type_: Any) -> str:
    """One spelling for a type, whether reflected or read from the data."""
    text = type_ if isinstance(type_, str) else repr(type_)
    text = text.upper().replace("()", "")
    text = text.replace("LENGTH=", "").replace("DISPLAY_WIDTH=", "")
    text = re.sub(r"^INTEGER\(\d+\)$", "INTEGER", text)
    return re.sub(r"^VARCHAR\((\d+), COLLATION=.*\)$", r"VARCHAR(\1)", text)


def _describe(engine: sa.Engine) -> dict[str, Any]:
    inspector = sa.inspect(engine)
    tables: dict[str, Any] = {}
    for table in sorted(inspector.get_table_names()):
        columns = {
            c["name"]: {
                "nullable": c["nullable"],
                "type": _type_name(c["type"]),
            }
            for c in inspector.get_columns(table)
        }
        tables[table] = {
            "columns": columns,
            "primary_key": inspector.get_pk_constraint(table)[
                "constrained_columns"
            ],
            "foreign_keys": sorted(
                [
                    fk["constrained_columns"],
                    fk["referred_table"],
                    fk["referred_columns"],
                ]
                for fk in inspector.get_foreign_keys(table)
            ),
            "indexes": sorted(
                [ix["column_names"], bool(ix["unique"])]
                for ix in inspector.get_indexes(table)
            ),
            "unique": sorted(
                uc["column_names"]
                for uc in inspector.get_unique_constraints(table)
            ),
        }
    return tables


def _expected(name: str) -> dict[str, Any]:
    data = json.loads((DATA / name).read_text())
    assert data["alembic_version"] == [runner.HEAT_HEAD]
    tables = data["tables"]
    for table in tables.values():
        for column in table["columns"].values():
            column["type"] = _type_name(column["type"])
        table["foreign_keys"] = sorted(table["foreign_keys"])
        table["indexes"] = sorted(table["indexes"])
        table["unique"] = sorted(table["unique"])
    return dict(tables)


def test_single_head_is_heats() -> None:
    assert runner.heads() == [runner.HEAT_HEAD]


@pytest.mark.parametrize("empty_engine", BACKENDS, indirect=True)
def test_fresh_database_ends_at_heat_head(empty_engine: sa.Engine) -> None:
    runner.upgrade(empty_engine)
    assert runner.current(empty_engine) == runner.HEAT_HEAD
    assert runner.differences(empty_engine) == []
    # A second sync is a no-op.
    runner.upgrade(empty_engine)
    assert runner.current(empty_engine) == runner.HEAT_HEAD


@pytest.mark.parametrize(
    ("empty_engine", "data"),
    [
        ("sqlite", "heat27_schema_sqlite.json"),
        pytest.param(
            "mariadb",
            "heat27_schema_mysql.json",
            marks=pytest.mark.mariadb,
        ),
    ],
    indirect=["empty_engine"],
)
def test_schema_equals_heat27(empty_engine: sa.Engine, data: str) -> None:
    runner.upgrade(empty_engine)
    assert _describe(empty_engine) == _expected(data)


@pytest.mark.postgresql
@pytest.mark.parametrize("empty_engine", ["postgresql"], indirect=True)
def test_postgresql_schema_has_heat27_structure(
    empty_engine: sa.Engine,
) -> None:
    """No PostgreSQL dump of Heat exists: compare all but the types."""
    runner.upgrade(empty_engine)
    found = _describe(empty_engine)
    expected = _expected("heat27_schema_sqlite.json")
    assert set(found) == set(expected)
    for name, table in expected.items():
        got = found[name]
        assert {c: v["nullable"] for c, v in got["columns"].items()} == {
            c: v["nullable"] for c, v in table["columns"].items()
        }, name
        assert got["primary_key"] == table["primary_key"], name
        assert got["foreign_keys"] == table["foreign_keys"], name
        assert got["unique"] == table["unique"], name


@pytest.mark.parametrize("empty_engine", BACKENDS, indirect=True)
def test_migrate_version_database_is_stamped_then_upgraded(
    empty_engine: sa.Engine,
) -> None:
    """A pre-Alembic Heat database: the initial tables, migrate_version."""
    runner.upgrade(empty_engine, runner.HEAT_INITIAL)
    with empty_engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE alembic_version"))
        conn.execute(
            sa.text(
                "CREATE TABLE migrate_version (repository_id VARCHAR(250) "
                "NOT NULL PRIMARY KEY, repository_path TEXT, version INT)"
            )
        )
        conn.execute(
            sa.text("INSERT INTO migrate_version VALUES ('heat', 'x', 86)")
        )
    assert runner.current(empty_engine) is None
    runner.upgrade(empty_engine)
    assert runner.current(empty_engine) == runner.HEAT_HEAD
    assert runner.differences(empty_engine) == []


@pytest.mark.parametrize("empty_engine", BACKENDS, indirect=True)
def test_snapshot_action_backfilled(empty_engine: sa.Engine) -> None:
    runner.upgrade(empty_engine, "88be64598c0f")
    with empty_engine.begin() as conn:
        conn.execute(
            sa.text("INSERT INTO raw_template (id, template) VALUES (1, '{}')")
        )
        conn.execute(
            sa.text(
                "INSERT INTO stack (id, raw_template_id, disable_rollback) "
                "VALUES ('s1', 1, :f)"
            ),
            {"f": False},
        )
        conn.execute(
            sa.text(
                "INSERT INTO snapshot (id, stack_id, tenant, status) "
                "VALUES ('snap', 's1', 'p', 'COMPLETE')"
            )
        )
    runner.upgrade(empty_engine)
    with empty_engine.connect() as conn:
        action = conn.execute(
            sa.text("SELECT action FROM snapshot WHERE id = 'snap'")
        ).scalar()
    assert action == "CREATE"
