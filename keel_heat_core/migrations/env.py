"""Alembic environment of keel-heat (Heat 27's revision chain).

The runner in :mod:`keel_heat_core.migrations.runner` passes an open
connection in ``config.attributes["connection"]``; a URL in
``sqlalchemy.url`` works too (for the alembic command line).
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from keel_heat_core.db import models

config = context.config
target_metadata = models.Base.metadata


def _run_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def _run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(
            connection=connection, target_metadata=target_metadata
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url")
    assert url, "sqlalchemy.url or a connection is required"
    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    _run_offline()
else:
    _run_online()
