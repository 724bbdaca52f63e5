"""Resource data repository: key/value rows of a resource.

One row per (resource, key), enforced here. With ``redact`` the value is
encrypted and ``decrypt_method`` set; otherwise ``decrypt_method`` is
``''``. Reads return clear values.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import bindparam, insert, select
from sqlalchemy import delete as sa_delete
from sqlalchemy import update as sa_update
from sqlalchemy.engine import Connection

from keel_heat_core.db import exceptions, models
from keel_heat_core.db.database import Database, retry_on_db_error

_TABLE = models.table_of(models.ResourceData)


def _clear(db: Database, row: models.ResourceData) -> str | None:
    if row.redact:
        return db.decrypt(row.decrypt_method, row.value)
    return row.value


@retry_on_db_error
def get_all(db: Database, resource_id: int) -> dict[str, str | None]:
    """``{key: value}`` of a resource."""
    return get_all_by_resources(db, [resource_id]).get(resource_id, {})


@retry_on_db_error
def get_all_by_resources(
    db: Database, resource_ids: Iterable[int]
) -> dict[int, dict[str, str | None]]:
    """Data of many resources in one query: ``{resource_id: {key: v}}``."""
    ids = list(resource_ids)
    result: dict[int, dict[str, str | None]] = {}
    if not ids:
        return result
    with db.transaction() as session:
        rows = session.scalars(
            select(models.ResourceData)
            .where(models.ResourceData.resource_id.in_(ids))
            .order_by(models.ResourceData.id)
        )
        for row in rows:
            result.setdefault(row.resource_id, {})[str(row.key)] = _clear(
                db, row
            )
    return result


@retry_on_db_error
def get(db: Database, resource_id: int, key: str) -> str | None:
    """One value.

    :raises exceptions.NotFound: no such key.
    """
    with db.transaction() as session:
        row = session.scalars(
            select(models.ResourceData).where(
                models.ResourceData.resource_id == resource_id,
                models.ResourceData.key == key,
            )
        ).first()
        if row is None:
            raise exceptions.NotFound("No resource data found")
        return _clear(db, row)


_RESOURCE = models.table_of(models.Resource)
#: the owning resource row, locked: writers of one resource's data queue
#: here (a primary-key lock, no gap lock)
_LOCK_OWNER = (
    select(_RESOURCE.c.id)
    .where(_RESOURCE.c.id == bindparam("resource_id"))
    .with_for_update()
)
_FIND = select(_TABLE.c.id).where(
    _TABLE.c.resource_id == bindparam("resource_id"),
    _TABLE.c.key == bindparam("key"),
)
#: built once (a statement object keeps its cache key); the values come
#: as parameters
_INSERT = insert(_TABLE)
_UPDATE_BY_ID = sa_update(_TABLE).where(_TABLE.c.id == bindparam("row_id"))


@retry_on_db_error
def set_value(
    db: Database,
    resource_id: int,
    key: str,
    value: str | None,
    redact: bool = False,
) -> None:
    """Create or overwrite one key.

    The writer first locks the resource's row, then looks the key up and
    updates it by id or inserts it. An ``UPDATE ... WHERE resource_id AND
    key`` that matches nothing takes a gap lock on MariaDB/MySQL; resources
    created together then deadlocked on each other's inserts into that gap
    (each deadlock a retry after half a second).
    """
    with db.connection() as conn:
        # (Core statements: plugins write their data on every action)
        conn.execute(_LOCK_OWNER, {"resource_id": resource_id})
        set_in(db, conn, resource_id, key, value, redact)


def set_in(
    db: Database,
    conn: Connection,
    resource_id: int,
    key: str,
    value: str | None,
    redact: bool = False,
    fresh: bool = False,
) -> None:
    """:func:`set_value` on a connection whose transaction already locked
    the resource's row (its lock's compare-and-swap).

    :param fresh: the caller knows the resource has no data (it read so,
        and its compare-and-swap proved that no lock was taken since):
        the key is inserted without looking it up first.
    """
    method, stored = db.encrypt(value) if redact else ("", value)
    values = {"redact": redact, "value": stored, "decrypt_method": method}
    found = (
        None
        if fresh
        else conn.execute(
            _FIND, {"resource_id": resource_id, "key": key}
        ).first()
    )
    if found is None:
        conn.execute(
            _INSERT, {"resource_id": resource_id, "key": key, **values}
        )
    else:
        conn.execute(_UPDATE_BY_ID, {"row_id": found[0], **values})


def delete_in(conn: Connection, resource_id: int, key: str) -> bool:
    """Remove one key, if there, on the caller's connection; True when it
    was there."""
    result = conn.execute(
        sa_delete(_TABLE).where(
            _TABLE.c.resource_id == resource_id, _TABLE.c.key == key
        )
    )
    return bool(result.rowcount)


@retry_on_db_error
def delete(db: Database, resource_id: int, key: str) -> None:
    """Remove one key.

    :raises exceptions.NotFound: no such key.
    """
    with db.transaction() as session:
        result = session.execute(
            sa_delete(models.ResourceData).where(
                models.ResourceData.resource_id == resource_id,
                models.ResourceData.key == key,
            )
        )
        if not result.rowcount:  # type: ignore[attr-defined]
            raise exceptions.NotFound("No resource data found")
