"""Scratch databases for the persistence tests.

Each database is named ``keel_db_<random>`` and dropped afterwards.
MariaDB runs on 127.0.0.1:3306 (root, no password), PostgreSQL on
127.0.0.1:5432 (user postgres, trust); SQLite uses a file under the test's
temporary directory.
"""

from __future__ import annotations

import contextlib
import pathlib
import uuid
from collections.abc import Iterator

import sqlalchemy as sa

MARIADB_ADMIN = "mysql+pymysql://root@127.0.0.1:3306/"
POSTGRES_ADMIN = "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres"

ALL_BACKENDS = ("sqlite", "mariadb", "postgresql")
SERVER_BACKENDS = ("mariadb", "postgresql")


@contextlib.contextmanager
def scratch_url(backend: str, tmp_dir: pathlib.Path) -> Iterator[str]:
    """Create an empty database; yield its URL; drop it."""
    name = f"keel_db_{uuid.uuid4().hex[:12]}"
    if backend == "sqlite":
        yield f"sqlite:///{tmp_dir / name}.sqlite"
        return
    if backend == "mariadb":
        admin = sa.create_engine(MARIADB_ADMIN, isolation_level="AUTOCOMMIT")
        url = f"mysql+pymysql://root@127.0.0.1:3306/{name}?charset=utf8mb4"
        create = f"CREATE DATABASE {name} CHARACTER SET utf8mb4"
        drop = f"DROP DATABASE IF EXISTS {name}"
    elif backend == "postgresql":
        admin = sa.create_engine(POSTGRES_ADMIN, isolation_level="AUTOCOMMIT")
        url = f"postgresql+psycopg2://postgres@127.0.0.1:5432/{name}"
        create = f"CREATE DATABASE {name}"
        drop = f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    else:
        raise ValueError(backend)
    with admin.connect() as conn:
        conn.execute(sa.text(create))
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(drop))
        admin.dispose()
