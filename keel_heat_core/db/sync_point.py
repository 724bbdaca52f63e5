"""Sync point repository: the joins of a convergence traversal.

A sync point is keyed by (``entity_id``, ``traversal_id``, ``is_update``);
``entity_id`` is the resource row id as a string, or the stack id for the
stack's own sync point. ``input_data`` is stored as
``{"input_data": {"tuple:(42, True, 'resource')": value, ...}}`` and
``extra_data`` as ``{"extra_data": {"resource_failures": {...},
"skip_propagate": true}}`` or NULL.

Records carry ``input_data`` keyed by 3-element node tuples, whichever of
the two key forms (2-element before Heat 26, 3-element since) the row
holds; writes always use the 3-element form.

- :func:`create` inserts (a duplicate key is ignored and reported);
  :func:`create_many` inserts a traversal's points in one transaction;
- :func:`get`, :func:`list_by_traversal`; :func:`get_stored` and
  :func:`update_stored_input_data` read and write ``input_data`` in its
  stored form (the engine's hot path);
- :func:`update_input_data` is the compare-and-swap::

    UPDATE sync_point SET input_data = :d, [extra_data = :e,]
           atomic_key = :k + 1
     WHERE entity_id = :e AND traversal_id = :t AND is_update = :u
       AND atomic_key = :k

- :func:`first_write` is that swap on a row nobody wrote yet
  (``atomic_key = 0``), without reading it first;
- :func:`delete_all_by_stack_and_traversal`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from oslo_db import exception as db_exc
from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy import update as sa_update
from sqlalchemy.engine import Connection

from keel_heat_core.db import models, records, tuple_keys
from keel_heat_core.db.database import Database, retry_on_db_error

_TABLE = models.table_of(models.SyncPoint)
#: one sync point by its key (built once: it keeps its cache key)
_GET_ONE = select(_TABLE).where(
    _TABLE.c.entity_id == bindparam("e"),
    _TABLE.c.traversal_id == bindparam("t"),
    _TABLE.c.is_update == bindparam("u"),
)


#: the first write of a row as ``create_many`` left it (``atomic_key`` 0)
_FIRST_WRITE = (
    sa_update(_TABLE)
    .where(
        _TABLE.c.entity_id == bindparam("e"),
        _TABLE.c.traversal_id == bindparam("t"),
        _TABLE.c.is_update == bindparam("u"),
        _TABLE.c.atomic_key == 0,
    )
    .values(input_data=bindparam("d"), atomic_key=1)
)


def _record(row: Any) -> records.SyncPointRecord:
    extra = row.extra_data
    if isinstance(extra, dict):
        extra = extra.get("extra_data", extra)
    return records.from_row(
        records.SyncPointRecord,
        row,
        entity_id=str(row.entity_id),
        is_update=bool(row.is_update),
        input_data=tuple_keys.decode_input_data(row.input_data),
        extra_data=extra or None,
    )


@retry_on_db_error
def create(
    db: Database,
    entity_id: str | int,
    traversal_id: str,
    is_update: bool,
    stack_id: str,
    input_data: Mapping[Any, Any] | None = None,
) -> bool:
    """Insert a sync point with ``atomic_key = 0``.

    :returns: ``False`` when it already existed (insert-or-ignore).
    """
    row = models.SyncPoint(
        entity_id=str(entity_id),
        traversal_id=traversal_id,
        is_update=is_update,
        atomic_key=0,
        stack_id=stack_id,
        input_data=tuple_keys.encode_input_data(input_data or {}),
    )
    try:
        with db.transaction() as session:
            session.add(row)
    except db_exc.DBDuplicateEntry:
        return False
    return True


@retry_on_db_error
def create_many(
    db: Database,
    stack_id: str,
    traversal_id: str,
    points: Iterable[tuple[str | int, bool]],
) -> None:
    """Insert empty sync points in one transaction.

    Falls back to one insert-or-ignore per point when some already exist.
    """
    points = list(points)
    if not points:
        return
    rows = [
        {
            "entity_id": str(entity_id),
            "traversal_id": traversal_id,
            "is_update": is_update,
            "atomic_key": 0,
            "stack_id": stack_id,
            "input_data": {"input_data": {}},
        }
        for entity_id, is_update in points
    ]
    try:
        # one executemany without the ORM's unit of work (a traversal of
        # N resources has about 2N points)
        with db.connection() as conn:
            conn.execute(insert(_TABLE), rows)
    except db_exc.DBDuplicateEntry:
        for entity_id, is_update in points:
            create(db, entity_id, traversal_id, is_update, stack_id)


@retry_on_db_error
def list_by_traversal(
    db: Database, stack_id: str, traversal_id: str, stored: bool = False
) -> list[records.SyncPointRecord]:
    """Every sync point of a traversal.

    :param stored: ``input_data`` in stored form, as :func:`get_stored`.
    """
    make = _stored_record if stored else _record
    col = _TABLE.c
    with db.connection() as conn:
        rows = conn.execute(
            select(_TABLE)
            .where(col.stack_id == stack_id, col.traversal_id == traversal_id)
            .order_by(col.entity_id, col.is_update)
        )
        return [make(r) for r in rows]


def _stored_record(row: Any) -> records.SyncPointRecord:
    extra = row.extra_data
    if isinstance(extra, dict):
        extra = extra.get("extra_data", extra)
    data = row.input_data
    inner = data.get("input_data", data) if isinstance(data, dict) else {}
    return records.from_row(
        records.SyncPointRecord,
        row,
        entity_id=str(row.entity_id),
        is_update=bool(row.is_update),
        input_data={
            tuple_keys.normalize_stored_key(k): v
            for k, v in (inner or {}).items()
        },
        extra_data=extra or None,
    )


@retry_on_db_error
def get_stored(
    db: Database, entity_id: str | int, traversal_id: str, is_update: bool
) -> records.SyncPointRecord | None:
    """Like :func:`get`, but ``input_data`` as stored.

    Keys stay ``tuple:`` strings (2-element ones normalised to the
    3-element form) and values stay in their JSON form: what the engine
    merges and writes back with :func:`update_stored_input_data`, without
    decoding and re-encoding every entry of a busy row on each merge.
    """
    key = {"e": str(entity_id), "t": traversal_id, "u": is_update}
    with db.connection() as conn:
        row = conn.execute(_GET_ONE, key).first()
    return _stored_record(row) if row is not None else None


@retry_on_db_error
def get(
    db: Database, entity_id: str | int, traversal_id: str, is_update: bool
) -> records.SyncPointRecord | None:
    """A sync point, or ``None`` (the traversal was superseded)."""
    with db.transaction() as session:
        row = session.get(
            models.SyncPoint, (str(entity_id), traversal_id, is_update)
        )
        return _record(row) if row is not None else None


@retry_on_db_error
def update_input_data(
    db: Database,
    entity_id: str | int,
    traversal_id: str,
    is_update: bool,
    atomic_key: int,
    input_data: Mapping[Any, Any],
    extra_data: Mapping[str, Any] | None = None,
) -> bool:
    """Replace ``input_data`` (and ``extra_data`` when given) under CAS.

    :param input_data: the whole new mapping, keyed by node tuples.
    :param extra_data: the inner mapping (``resource_failures``,
        ``skip_propagate``); ``None`` leaves the column alone.
    :returns: ``True`` when ``atomic_key`` still matched.
    """
    stored = tuple_keys.encode_input_data(input_data)["input_data"]
    return update_stored_input_data(
        db,
        entity_id,
        traversal_id,
        is_update,
        atomic_key,
        stored,
        extra_data,
    )


@retry_on_db_error
def update_stored_input_data(
    db: Database,
    entity_id: str | int,
    traversal_id: str,
    is_update: bool,
    atomic_key: int,
    input_data: Mapping[str, Any],
    extra_data: Mapping[str, Any] | None = None,
) -> bool:
    """:func:`update_input_data` for a mapping already in stored form.

    :param input_data: ``{"tuple:(...)": JSON value}`` as returned by
        :func:`get_stored` (plus the new entries), written as it is.
    """
    with db.connection() as conn:
        return swap_stored_in(
            conn,
            entity_id,
            traversal_id,
            is_update,
            atomic_key,
            input_data,
            extra_data,
        )


def _swap_statement(
    entity_id: str | int,
    traversal_id: str,
    is_update: bool,
    atomic_key: int,
    input_data: Mapping[str, Any],
    extra_data: Mapping[str, Any] | None,
) -> Any:
    col = _TABLE.c
    values: dict[str, Any] = {
        "atomic_key": atomic_key + 1,
        "input_data": {"input_data": dict(input_data)},
    }
    if extra_data is not None:
        values["extra_data"] = {"extra_data": dict(extra_data)}
    return (
        sa_update(_TABLE)
        .where(
            col.entity_id == str(entity_id),
            col.traversal_id == traversal_id,
            col.is_update == is_update,
            col.atomic_key == atomic_key,
        )
        .values(**values)
    )


#: ``stored record -> (new stored input_data, new extra_data or None)``
Plan = Callable[
    [records.SyncPointRecord],
    tuple[Mapping[str, Any], Mapping[str, Any] | None],
]


@retry_on_db_error
def read_and_swap_stored(
    db: Database,
    entity_id: str | int,
    traversal_id: str,
    is_update: bool,
    plan: Plan,
    then: Callable[[Connection], Any] | None = None,
) -> tuple[records.SyncPointRecord, bool] | None:
    """:func:`get_stored`, then :func:`update_stored_input_data` of what
    ``plan`` makes of the row, in one transaction.

    The write is the same compare-and-swap on ``atomic_key``: a writer
    that committed between the read and the write makes it miss.
    ``then`` runs on the connection after a swap that matched, in the
    same transaction (again if the transaction is retried).

    :returns: ``None`` when the row does not exist, else the record read
        and whether the swap matched.
    """
    key = {"e": str(entity_id), "t": traversal_id, "u": is_update}
    with db.connection() as conn:
        row = conn.execute(_GET_ONE, key).first()
        if row is None:
            return None
        rec = _stored_record(row)
        input_data, extra_data = plan(rec)
        matched = swap_stored_in(
            conn,
            entity_id,
            traversal_id,
            is_update,
            rec.atomic_key,
            input_data,
            extra_data,
        )
        if matched and then is not None:
            then(conn)
        return rec, matched


_GET_MANY = select(_TABLE).where(
    _TABLE.c.traversal_id == bindparam("t"),
    _TABLE.c.entity_id.in_(bindparam("e", expanding=True)),
)


def get_many_stored_in(
    conn: Connection, traversal_id: str, entity_ids: Sequence[str | int]
) -> list[records.SyncPointRecord]:
    """The rows of a traversal for these entities (either ``is_update``),
    ``input_data`` as stored (:func:`get_stored`), on ``conn``'s
    transaction."""
    if not entity_ids:
        return []
    params = {"t": traversal_id, "e": [str(e) for e in entity_ids]}
    return [_stored_record(row) for row in conn.execute(_GET_MANY, params)]


def swap_stored_in(
    conn: Connection,
    entity_id: str | int,
    traversal_id: str,
    is_update: bool,
    atomic_key: int,
    input_data: Mapping[str, Any],
    extra_data: Mapping[str, Any] | None,
) -> bool:
    """:func:`update_stored_input_data` on ``conn``'s transaction."""
    stmt = _swap_statement(
        entity_id, traversal_id, is_update, atomic_key, input_data, extra_data
    )
    return bool(conn.execute(stmt).rowcount)


def first_write_in(
    conn: Any,
    entity_id: str | int,
    traversal_id: str,
    is_update: bool,
    input_data: Mapping[str, Any],
) -> bool:
    """Write stored ``input_data`` into an unwritten row, unread.

    The compare-and-swap of :func:`update_stored_input_data` with the key
    a new row has (0), on ``conn``'s transaction: a delivery that must be
    the row's first (its only predecessor's) costs one statement.

    :returns: ``False`` when the row is missing or was written already.
    """
    params = {
        "e": str(entity_id),
        "t": traversal_id,
        "u": is_update,
        "d": {"input_data": dict(input_data)},
    }
    return bool(conn.execute(_FIRST_WRITE, params).rowcount)


@retry_on_db_error
def first_write(
    db: Database,
    entity_id: str | int,
    traversal_id: str,
    is_update: bool,
    input_data: Mapping[str, Any],
) -> bool:
    """:func:`first_write_in` in a transaction of its own."""
    with db.connection() as conn:
        return first_write_in(
            conn, entity_id, traversal_id, is_update, input_data
        )


@retry_on_db_error
def delete_all_by_stack_and_traversal(
    db: Database, stack_id: str, traversal_id: str
) -> int:
    """Delete a traversal's sync points; returns how many went."""
    sp = models.SyncPoint
    with db.transaction() as session:
        result = session.execute(
            delete(sp).where(
                sp.stack_id == stack_id, sp.traversal_id == traversal_id
            )
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
