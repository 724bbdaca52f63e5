"""Resource properties data (rpd) repository.

An rpd row holds either a resource's resolved property values (immutable,
shared by the resource and its events; a new row per change) or its cached
attributes (updated in place). With ``encrypted`` the stored document is
``{key: [method, ciphertext-of-JSON-text]}``. Tuple keys (attribute paths)
are stored in Heat's ``tuple:`` form.

- :func:`create` / :func:`create_or_update` / :func:`get` /
  :func:`delete`;
- :func:`decode` turns a stored document back into clear data (used by the
  resource and event repositories on rows they joined).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import delete as sa_delete
from sqlalchemy import insert
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from keel_heat_core import crypt
from keel_heat_core.db import exceptions, models, records, tuple_keys
from keel_heat_core.db.database import Database, retry_on_db_error

_TABLE = models.table_of(models.ResourcePropertiesData)
#: built once (it keeps its cache key); the values come as parameters
_INSERT = insert(_TABLE)


def decode(db: Database, data: Any, encrypted: bool | None) -> Any:
    """Clear data of a stored rpd document (``None`` stays ``None``)."""
    if data is None:
        return None
    if encrypted:
        data = crypt.decrypted_dict(data, db.encryption_key)
    return tuple_keys.decode(data)


def encode(db: Database, data: Mapping[Any, Any], encrypted: bool) -> Any:
    """The stored document for ``data``."""
    stored = tuple_keys.encode(dict(data))
    if encrypted:
        stored = crypt.encrypted_dict(stored, db.encryption_key)
    return stored


def create_in_session(
    db: Database,
    session: Session,
    data: Mapping[Any, Any],
    encrypted: bool = False,
) -> models.ResourcePropertiesData:
    """Insert an rpd row inside the caller's transaction."""
    row = models.ResourcePropertiesData(
        data=encode(db, data, encrypted), encrypted=encrypted
    )
    session.add(row)
    session.flush()
    return row


def insert_in_connection(
    db: Database,
    conn: Connection,
    data: Mapping[Any, Any],
    encrypted: bool = False,
) -> int:
    """Insert an rpd row inside the caller's Core transaction; its id."""
    result = conn.execute(
        _INSERT, {"data": encode(db, data, encrypted), "encrypted": encrypted}
    )
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def _record(
    db: Database, row: models.ResourcePropertiesData
) -> records.ResourcePropertiesDataRecord:
    return records.from_row(
        records.ResourcePropertiesDataRecord,
        row,
        data=decode(db, row.data, row.encrypted),
    )


@retry_on_db_error
def create(
    db: Database, data: Mapping[Any, Any], encrypted: bool = False
) -> records.ResourcePropertiesDataRecord:
    """Store ``data`` (encrypted per key when ``encrypted``)."""
    with db.transaction() as session:
        return _record(db, create_in_session(db, session, data, encrypted))


@retry_on_db_error
def create_or_update(
    db: Database,
    data: Mapping[Any, Any],
    rpd_id: int | None = None,
    encrypted: bool = False,
) -> records.ResourcePropertiesDataRecord:
    """Rewrite row ``rpd_id`` in place, or insert when it is ``None``."""
    with db.transaction() as session:
        row = (
            session.get(models.ResourcePropertiesData, rpd_id)
            if rpd_id is not None
            else None
        )
        if row is None:
            return _record(db, create_in_session(db, session, data, encrypted))
        row.data = encode(db, data, encrypted)
        row.encrypted = encrypted
        session.flush()
        return _record(db, row)


@retry_on_db_error
def get(db: Database, rpd_id: int) -> records.ResourcePropertiesDataRecord:
    """An rpd row, decrypted.

    :raises exceptions.NotFound: no such row.
    """
    with db.transaction() as session:
        row = session.get(models.ResourcePropertiesData, rpd_id)
        if row is None:
            raise exceptions.NotFound(f"rpd with id {rpd_id} not found")
        return _record(db, row)


@retry_on_db_error
def delete(db: Database, rpd_ids: Iterable[int]) -> int:
    """Delete rows; returns how many went."""
    ids = [i for i in rpd_ids if i is not None]
    if not ids:
        return 0
    with db.transaction() as session:
        result = session.execute(
            sa_delete(models.ResourcePropertiesData).where(
                models.ResourcePropertiesData.id.in_(ids)
            )
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
