"""Scratch databases for the persistence tests.

Each database is named ``keel_db_<random>`` and dropped afterwards.
MariaDB runs on 127.0.0.1:3306 (root, no password), PostgreSQL on
127.0.0.1:5432 (user postgres, trust); SQLite uses a file under the test's
temporary directory.
"""

from __future__ import annotations

import contextlib
import pathlib

from keel_heat_core.testing.cloud import scratch_database

ALL_BACKENDS = ("sqlite", "mariadb", "postgresql")
SERVER_BACKENDS = ("mariadb", "postgresql")


def scratch_url(
    backend: str, tmp_dir: pathlib.Path
) -> contextlib.AbstractContextManager[str]:
    """Create an empty database; yield its URL; drop it."""
    return scratch_database(backend, tmp_dir, prefix="keel_db_")
