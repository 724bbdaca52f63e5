"""The database check behind ``/healthcheck``.

The API processes never touch the database otherwise; their WSGI entry
points (the composition roots) hand this check to the application.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import text

from keel_heat_core.db.database import Database


def database_check(conf: Any) -> Callable[[], str | None]:
    """Return a check that answers ``None`` when the database answers.

    The connection pool is made on the first check, not at start-up, so
    that an API whose database is down still starts and reports it.

    :param conf: configuration with ``[database] connection``.
    :returns: a callable giving ``None`` or the reason for failure.
    """
    if not conf.database.connection:
        # An API without a database of its own has nothing to check.
        return lambda: None
    lock = threading.Lock()
    holder: list[Database] = []

    def check() -> str | None:
        try:
            with lock:
                if not holder:
                    holder.append(
                        Database(
                            conf.database.connection,
                            conf.auth_encryption_key,
                            max_retries=0,
                        )
                    )
            with holder[0].engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except Exception as exc:  # noqa: BLE001 - reported, not raised
            return f"database unreachable: {type(exc).__name__}"
        return None

    return check
