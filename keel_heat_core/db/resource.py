"""Resource repository: the ``resource`` table and its lock.

Records are :class:`~keel_heat_core.db.records.ResourceRecord` with the
properties and attribute data already resolved; loading all resources of
a stack is a single query (two outer joins on the rpd table), whatever
the number of resources.

The lock is the pair (``engine_id``, ``atomic_key``). :func:`update` is
the compare-and-swap every locking write uses::

    UPDATE resource SET <values>, atomic_key = k + 1 (1 when k is NULL)
     WHERE id = :id AND engine_id <=> :expected AND atomic_key <=> :k

It returns ``True`` when a row matched. Acquire passes
``expected_engine_id=None`` and ``values={"engine_id": me, ...}``; release
passes ``expected_engine_id=me`` and ``values={"engine_id": None, ...}``.
:func:`update_unconditional` is for the writes that do not lock;
:func:`steal_lock` clears a dead engine's lock.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from oslo_db import exception as db_exc
from sqlalchemy import and_, bindparam, case, delete, exists, insert, select
from sqlalchemy import update as sa_update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from keel_heat_core.db import event as event_repo
from keel_heat_core.db import exceptions, models, raw_template, records
from keel_heat_core.db import resource_properties_data as rpd
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db.database import Database, retry_on_db_error
from keel_heat_core.db.scope import ADMIN, Scope

_TABLE = models.table_of(models.Resource)
_RPD_TABLE = models.table_of(models.ResourcePropertiesData)
_P = _RPD_TABLE.alias("p")
_A = _RPD_TABLE.alias("a")
_COLUMNS = frozenset(_TABLE.columns.keys())
#: a row with its property and attribute data: Core, plain table columns
#: (no ORM entity to load); the explicit left side of the joins stays (left
#: to itself, the ORM once picked it among the selected entities and a
#: worker failed every read with "Can't determine which FROM clause to
#: join from", fault suite, PostgreSQL, under load)
_SELECT = (
    select(
        _TABLE,
        _P.c.data.label("p_data"),
        _P.c.encrypted.label("p_encrypted"),
        _A.c.data.label("a_data"),
        _A.c.encrypted.label("a_encrypted"),
    )
    .select_from(_TABLE)
    .outerjoin(_P, _TABLE.c.rsrc_prop_data_id == _P.c.id)
    .outerjoin(_A, _TABLE.c.attr_data_id == _A.c.id)
)
# built once: a statement object keeps its cache key
_INSERT_IDS = insert(_TABLE).returning(
    _TABLE.c.id, sort_by_parameter_order=True
)
_GET_BY_ID = _SELECT.where(_TABLE.c.id == bindparam("id"))
_STACK_TABLE = models.table_of(models.Stack)
_DATA_TABLE = models.table_of(models.ResourceData)
#: the prefix of the stack's columns in :data:`_GET_WITH_STACK`
_S = "stack__"
#: rows and their live stack (without the graph) in one statement
_WITH_STACK = _SELECT.add_columns(
    *(c.label(_S + c.name) for c in stack_repo.NO_DEPS_COLUMNS),
    # looked at for a row not created yet only: ``resource_data`` has
    # no index on ``resource_id`` in Heat's PostgreSQL schema, and the
    # create's lookup this replaces scanned it as well
    case(
        (
            _TABLE.c.action == "INIT",
            exists().where(_DATA_TABLE.c.resource_id == _TABLE.c.id),
        ),
        else_=None,
    ).label("has_data"),
).outerjoin(
    _STACK_TABLE,
    and_(
        _STACK_TABLE.c.id == _TABLE.c.stack_id,
        _STACK_TABLE.c.deleted_at.is_(None),
    ),
)
_GET_WITH_STACK = _WITH_STACK.where(_TABLE.c.id == bindparam("id"))
_GET_MANY_WITH_STACK = _WITH_STACK.where(
    _TABLE.c.id.in_(bindparam("ids", expanding=True))
)
_GET_LOCK = select(
    _TABLE.c.engine_id, _TABLE.c.atomic_key, _TABLE.c.current_template_id
).where(_TABLE.c.id == bindparam("id"))


def _check_columns(values: Mapping[str, Any]) -> None:
    unknown = set(values) - _COLUMNS
    if unknown:
        raise ValueError(f"Unknown resource columns: {sorted(unknown)}")


def _fetch(db: Database, stmt: Any) -> list[records.ResourceRecord]:
    with db.connection() as conn:
        return [_record(db, row) for row in conn.execute(stmt)]


@retry_on_db_error
def create(db: Database, values: Mapping[str, Any]) -> records.ResourceRecord:
    """Insert a resource row; ``values`` are column values."""
    _check_columns(values)
    with db.transaction() as session:
        row = models.Resource(**values)
        session.add(row)
        session.flush()
        new_id = row.id
    found = get(db, new_id)
    assert found is not None
    return found


@retry_on_db_error
def create_many(
    db: Database, values: Sequence[Mapping[str, Any]]
) -> list[int]:
    """Insert resource rows in one transaction; their ids, in order."""
    for one in values:
        _check_columns(one)
    if not values:
        return []
    # one executemany (Core): every row with the same keys
    keys = set().union(*values)
    rows = [{key: one.get(key) for key in keys} for one in values]
    with db.connection() as conn:
        result = conn.execute(_INSERT_IDS, rows)
        return [int(new_id) for new_id in result.scalars()]


def _record(db: Database, row: Any, **more: Any) -> records.ResourceRecord:
    m = row._mapping
    if m["rsrc_prop_data_id"] is not None:
        props = rpd.decode(db, m["p_data"], m["p_encrypted"])
    else:
        props = rpd.decode(
            db, m["properties_data"], m["properties_data_encrypted"]
        )
    return records.from_mapping(
        records.ResourceRecord,
        m,
        properties_data=props,
        attr_data=rpd.decode(db, m["a_data"], m["a_encrypted"]),
        **more,
    )


@retry_on_db_error
def get(db: Database, resource_id: int) -> records.ResourceRecord | None:
    """A resource by row id, or ``None``."""
    with db.connection() as conn:
        return get_in(db, conn, resource_id)


def get_in(
    db: Database, conn: Connection, resource_id: int
) -> records.ResourceRecord | None:
    """:func:`get` inside the caller's Core transaction."""
    row = conn.execute(_GET_BY_ID, {"id": resource_id}).first()
    return None if row is None else _record(db, row)


def get_with_stack_in(
    db: Database, conn: Connection, resource_id: int
) -> tuple[records.ResourceRecord | None, records.StackRecord | None]:
    """A resource and its live stack (``current_deps`` left out), read by
    one statement in the caller's Core transaction. For a row still in
    INIT, the record says whether the resource had any data then
    (``has_data``; None for other rows).

    :returns: ``(None, None)`` without the row, ``(record, None)`` when
        its stack is gone or soft-deleted.
    """
    row = conn.execute(_GET_WITH_STACK, {"id": resource_id}).first()
    if row is None:
        return None, None
    return _split(db, row)


def get_many_with_stack_in(
    db: Database, conn: Connection, resource_ids: Sequence[int]
) -> dict[int, tuple[records.ResourceRecord, records.StackRecord | None]]:
    """:func:`get_with_stack_in` of several rows by one statement: the
    rows that exist, by id."""
    if not resource_ids:
        return {}
    rows = conn.execute(_GET_MANY_WITH_STACK, {"ids": list(resource_ids)})
    return {pair[0].id: pair for pair in (_split(db, row) for row in rows)}


def _split(
    db: Database, row: Any
) -> tuple[records.ResourceRecord, records.StackRecord | None]:
    """A row of ``_GET_WITH_STACK`` as its resource and stack records."""
    m = row._mapping
    has = m["has_data"]
    rec = _record(db, row, has_data=None if has is None else bool(has))
    if m[_S + "id"] is None:
        return rec, None
    cut = len(_S)
    stack = stack_repo.record_without_deps(
        {key[cut:]: value for key, value in m.items() if key.startswith(_S)}
    )
    return rec, stack


_GET_MANY = _SELECT.where(_TABLE.c.id.in_(bindparam("ids", expanding=True)))


def get_many_in(
    db: Database, conn: Connection, resource_ids: Sequence[int]
) -> dict[int, records.ResourceRecord]:
    """The rows of these ids that exist, by id, read by one statement in
    the caller's Core transaction (``has_data`` unknown: None)."""
    if not resource_ids:
        return {}
    rows = conn.execute(_GET_MANY, {"ids": list(resource_ids)})
    return {rec.id: rec for rec in (_record(db, row) for row in rows)}


@retry_on_db_error
def get_by_name_and_stack(
    db: Database, name: str, stack_id: str
) -> records.ResourceRecord | None:
    """The resource of a stack with this name (the newest row)."""
    res = _TABLE.c
    stmt = (
        _SELECT.where(res.name == name, res.stack_id == stack_id)
        .order_by(res.id.desc())
        .limit(1)
    )
    rows = _fetch(db, stmt)
    return rows[0] if rows else None


@retry_on_db_error
def get_by_physical_resource_id(
    db: Database, physical_id: str, scope: Scope = ADMIN
) -> list[records.ResourceRecord]:
    """Resources whose ``nova_instance`` is ``physical_id``, in stacks the
    scope can see."""
    res, stack = _TABLE.c, models.table_of(models.Stack)
    stmt = _SELECT.join(stack, stack.c.id == res.stack_id).where(
        res.nova_instance == physical_id
    )
    if not scope.is_admin:
        stmt = stmt.where(stack.c.tenant == scope.project_id)
    return _fetch(db, stmt.order_by(res.id))


@retry_on_db_error
def get_all_by_stack(
    db: Database, stack_id: str, filters: Mapping[str, Any] | None = None
) -> list[records.ResourceRecord]:
    """All rows of a stack in id order (one query).

    :param filters: exact matches on columns; a list value means ``IN``.
    """
    res = _TABLE.c
    stmt = _SELECT.where(res.stack_id == stack_id)
    for key, value in (filters or {}).items():
        if key not in _COLUMNS:
            raise exceptions.Invalid(f"Unknown filter key {key!r}")
        column = getattr(res, key)
        if isinstance(value, list | tuple | set | frozenset):
            stmt = stmt.where(column.in_(list(value)))
        else:
            stmt = stmt.where(column == value)
    return _fetch(db, stmt.order_by(res.id))


#: a row its traversal deleted, left for the stack's end to remove
_DELETE_COMPLETE = and_(
    _TABLE.c.action == "DELETE", _TABLE.c.status == "COMPLETE"
)


#: the columns of a row that traversal planning looks at
_SUMMARY = select(
    _TABLE.c.id,
    _TABLE.c.name,
    _TABLE.c.action,
    _TABLE.c.status,
    _TABLE.c.current_template_id,
    _TABLE.c.requires,
    _TABLE.c.replaces,
    _TABLE.c.replaced_by,
    _TABLE.c.updated_at,
    _TABLE.c.created_at,
)


@retry_on_db_error
def get_summaries(db: Database, stack_id: str) -> list[Any]:
    """Every row of a stack in id order, only :data:`_SUMMARY`'s columns
    (no data joined or decoded): rows with those attributes."""
    stmt = _SUMMARY.where(_TABLE.c.stack_id == stack_id).order_by(_TABLE.c.id)
    with db.connection() as conn:
        return list(conn.execute(stmt))


@retry_on_db_error
def get_all_active_by_stack(
    db: Database, stack_id: str
) -> list[records.ResourceRecord]:
    """Rows of a stack except ``DELETE_COMPLETE`` ones (one query)."""
    res = _TABLE.c
    stmt = _SELECT.where(res.stack_id == stack_id, ~_DELETE_COMPLETE)
    return _fetch(db, stmt.order_by(res.id))


@retry_on_db_error
def get_all_by_root_stack(
    db: Database, root_stack_id: str
) -> list[records.ResourceRecord]:
    """Every resource of a stack tree (one query)."""
    res = _TABLE.c
    stmt = _SELECT.where(res.root_stack_id == root_stack_id)
    return _fetch(db, stmt.order_by(res.id))


def _cas_where(match_engine: bool, match_key: bool) -> Any:
    col = _TABLE.c
    return sa_update(_TABLE).where(
        col.id == bindparam("cas_id"),
        col.engine_id == bindparam("cas_engine")
        if match_engine
        else col.engine_id.is_(None),
        col.atomic_key == bindparam("cas_key")
        if match_key
        else col.atomic_key.is_(None),
    )


#: the compare-and-swap statements, built once (they keep their cache
#: key); the new column values come as execution parameters
_CAS = {(e, k): _cas_where(e, k) for e in (False, True) for k in (False, True)}


def _cas_statement(
    resource_id: int,
    values: Mapping[str, Any],
    atomic_key: int | None,
    expected_engine_id: str | None,
) -> tuple[Any, dict[str, Any]]:
    """The CAS statement and its parameters (see the module docstring)."""
    params = dict(values)
    params["atomic_key"] = 1 if atomic_key is None else atomic_key + 1
    params["cas_id"] = resource_id
    if expected_engine_id is not None:
        params["cas_engine"] = expected_engine_id
    if atomic_key is not None:
        params["cas_key"] = atomic_key
    stmt = _CAS[(expected_engine_id is not None, atomic_key is not None)]
    return stmt, params


def update_in_session(
    session: Session,
    resource_id: int,
    values: Mapping[str, Any],
    atomic_key: int | None,
    expected_engine_id: str | None = None,
) -> bool:
    """:func:`update` inside the caller's transaction."""
    _check_columns(values)
    stmt, params = _cas_statement(
        resource_id, values, atomic_key, expected_engine_id
    )
    return bool(session.execute(stmt, params).rowcount)  # type: ignore[attr-defined]


@retry_on_db_error
def update(
    db: Database,
    resource_id: int,
    values: Mapping[str, Any],
    atomic_key: int | None,
    expected_engine_id: str | None = None,
) -> bool:
    """Compare-and-swap write; see the module docstring.

    :returns: ``True`` when the row matched (the new ``atomic_key`` is then
        ``atomic_key + 1``, or 1 when it was ``None``).
    """
    _check_columns(values)
    stmt, params = _cas_statement(
        resource_id, values, atomic_key, expected_engine_id
    )
    with db.connection() as conn:
        return bool(conn.execute(stmt, params).rowcount)


@retry_on_db_error
def get_lock(
    db: Database, resource_id: int
) -> tuple[str | None, int | None, int | None] | None:
    """``(engine_id, atomic_key, current_template_id)``, or ``None`` when
    the row is gone: the lock columns alone, without the row's data."""
    with db.connection() as conn:
        found = conn.execute(_GET_LOCK, {"id": resource_id}).first()
    return None if found is None else (found[0], found[1], found[2])


class _Missed(Exception):  # noqa: N818 - rolls a missed CAS back
    """The compare-and-swap matched no row."""


@retry_on_db_error
def update_with_properties(
    db: Database,
    resource_id: int,
    values: Mapping[str, Any],
    properties: Mapping[str, Any] | None,
    encrypted: bool,
    atomic_key: int | None,
    expected_engine_id: str | None = None,
    events: Sequence[Mapping[str, Any]] = (),
    then: Sequence[Callable[[Connection], Any]] = (),
    defer: bool = False,
) -> bool:
    """:func:`update` that also stores new property values and events, in
    one transaction: the rpd row is inserted and referenced by
    ``rsrc_prop_data_id``, the events (``event`` column values) inserted,
    and all of it rolled back when the compare-and-swap misses.

    :param then: more writes of the caller's, each called with the
        connection after the compare-and-swap matched (in the same
        transaction; called again if the transaction is retried).
    :param defer: the commit may wait for the next releases of this
        thread (``Database.connection``); a miss then raises
        :class:`~keel_heat_core.exception.RunLost` when earlier releases
        are rolled back with it.
    """
    _check_columns(values)
    try:
        with db.connection(defer=defer) as conn:
            columns = dict(values)
            if properties is not None:
                columns["rsrc_prop_data_id"] = rpd.insert_in_connection(
                    db, conn, properties, encrypted
                )
            stmt, params = _cas_statement(
                resource_id, columns, atomic_key, expected_engine_id
            )
            if not conn.execute(stmt, params).rowcount:
                raise _Missed()
            if events:
                event_repo.insert_in_connection(conn, events)
            for write in then:
                write(conn)
    except _Missed:
        return False
    return True


@retry_on_db_error
def update_unconditional(
    db: Database, resource_id: int, values: Mapping[str, Any]
) -> bool:
    """Write values without touching the lock; ``True`` if the row exists."""
    _check_columns(values)
    with db.connection() as conn:
        result = conn.execute(
            sa_update(_TABLE)
            .where(_TABLE.c.id == resource_id)
            .values(**values)
        )
        return bool(result.rowcount)


@retry_on_db_error
def steal_lock(
    db: Database, resource_id: int, values: Mapping[str, Any] | None = None
) -> bool:
    """Clear ``engine_id`` (a dead engine's lock) and write ``values``."""
    return update_unconditional(
        db, resource_id, {**(values or {}), "engine_id": None}
    )


class ReferenceMissing(exceptions.DBError):
    """A row the new resource refers to (its template) has gone."""


@retry_on_db_error
def create_replacement(
    db: Database,
    existing_id: int,
    new_values: Mapping[str, Any],
    atomic_key: int | None,
    expected_engine_id: str | None = None,
) -> records.ResourceRecord | None:
    """Insert a replacement row and point the old row's ``replaced_by`` to it.

    Both writes happen in one transaction; when the compare-and-swap on the
    old row misses, nothing is kept and ``None`` is returned (the caller
    raises ``UpdateInProgress``).

    :raises ReferenceMissing: the replacement's template no longer exists.
    """
    _check_columns(new_values)

    class _Missed(Exception):
        pass

    try:
        with db.transaction() as session:
            row = models.Resource(**new_values)
            session.add(row)
            session.flush()
            new_id = row.id
            if not update_in_session(
                session,
                existing_id,
                {"replaced_by": new_id},
                atomic_key,
                expected_engine_id,
            ):
                raise _Missed()
    except _Missed:
        return None
    except db_exc.DBReferenceError as exc:
        raise ReferenceMissing(str(exc)) from exc
    return get(db, new_id)


@retry_on_db_error
def store_attributes(
    db: Database,
    resource_id: int,
    atomic_key: int | None,
    attr_data: Mapping[Any, Any],
    attr_id: int | None = None,
) -> int | None:
    """Cache resolved attributes of an unlocked resource.

    Writes the rpd row (in place when ``attr_id`` is given), then sets
    ``attr_data_id`` under ``engine_id IS NULL AND atomic_key <=> k AND
    (attr_data_id = new OR attr_data_id IS NULL)``; on a miss the new rpd
    row is deleted.

    :returns: the rpd id, or ``None`` when the swap missed.
    """
    stored = rpd.create_or_update(db, attr_data, attr_id)
    res = models.Resource
    key_match = (
        res.atomic_key.is_(None)
        if atomic_key is None
        else res.atomic_key == atomic_key
    )
    new_key = 1 if atomic_key is None else atomic_key + 1
    with db.transaction() as session:
        result = session.execute(
            sa_update(res)
            .where(
                res.id == resource_id,
                key_match,
                res.engine_id.is_(None),
                (res.attr_data_id == stored.id) | res.attr_data_id.is_(None),
            )
            .values(attr_data_id=stored.id, atomic_key=new_key)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount:  # type: ignore[attr-defined]
            return stored.id
        session.execute(
            delete(models.ResourcePropertiesData).where(
                models.ResourcePropertiesData.id == stored.id
            )
        )
        return None


@retry_on_db_error
def delete_attr_data(db: Database, resource_id: int, attr_id: int) -> None:
    """Drop the cached attributes of a resource."""
    with db.transaction() as session:
        session.execute(
            sa_update(models.Resource)
            .where(
                models.Resource.id == resource_id,
                models.Resource.attr_data_id == attr_id,
            )
            .values(attr_data_id=None)
            .execution_options(synchronize_session=False)
        )
        session.execute(
            delete(models.ResourcePropertiesData).where(
                models.ResourcePropertiesData.id == attr_id
            )
        )


def delete_in_session(session: Session, resource_ids: Sequence[int]) -> None:
    """Hard-delete rows, their ``resource_data`` and attribute rpd rows."""
    ids = list(resource_ids)
    if not ids:
        return
    res = models.Resource
    attr_ids = [
        a
        for a in session.scalars(
            select(res.attr_data_id).where(res.id.in_(ids))
        )
        if a is not None
    ]
    session.execute(
        delete(models.ResourceData).where(
            models.ResourceData.resource_id.in_(ids)
        )
    )
    session.execute(delete(res).where(res.id.in_(ids)))
    if attr_ids:
        session.execute(
            delete(models.ResourcePropertiesData).where(
                models.ResourcePropertiesData.id.in_(attr_ids)
            )
        )


@retry_on_db_error
def delete_resource(db: Database, resource_id: int) -> None:
    """Hard-delete one resource row (with its data and cached attributes)."""
    with db.transaction() as session:
        delete_in_session(session, [resource_id])


#: rows per statement of :func:`delete_finished` (bound parameters)
DELETE_BATCH = 500


@retry_on_db_error
def delete_finished(db: Database, stack_id: str) -> int:
    """:func:`delete_resource` of a stack's ``DELETE_COMPLETE`` rows, in
    one transaction (their ids read with it, nothing else of them);
    how many went."""
    res = _TABLE.c
    with db.transaction() as session:
        ids = list(
            session.scalars(
                select(res.id).where(
                    res.stack_id == stack_id, _DELETE_COMPLETE
                )
            )
        )
        for start in range(0, len(ids), DELETE_BATCH):
            delete_in_session(session, ids[start : start + DELETE_BATCH])
    return len(ids)


@retry_on_db_error
def purge_deleted(db: Database, stack_id: str) -> None:
    """Remove a stack's ``DELETE_COMPLETE`` rows and what only they used.

    Deletes the rows, their attribute rpd rows and every template that was
    their ``current_template_id`` and that no stack (current or previous
    template) nor remaining resource still references.
    """
    res, stack = models.Resource, models.Stack
    with db.transaction() as session:
        gone = session.execute(
            select(res.id, res.current_template_id).where(
                res.stack_id == stack_id, _DELETE_COMPLETE
            )
        ).all()
        if not gone:
            return
        delete_in_session(session, [r.id for r in gone])
        candidates = {r.current_template_id for r in gone} - {None}
        if not candidates:
            return
        used = set(
            session.scalars(
                select(stack.raw_template_id).where(
                    stack.raw_template_id.in_(candidates)
                )
            )
        )
        used |= set(
            session.scalars(
                select(stack.prev_raw_template_id).where(
                    stack.prev_raw_template_id.in_(candidates)
                )
            )
        )
        used |= set(
            session.scalars(
                select(res.current_template_id).where(
                    res.current_template_id.in_(candidates)
                )
            )
        )
        raw_template.delete_in_session(session, candidates - used)


@retry_on_db_error
def get_locking_engines(db: Database, stack_id: str) -> set[str]:
    """Engines holding a lock on some resource of the stack."""
    res = models.Resource
    with db.transaction() as session:
        return set(
            session.scalars(
                select(res.engine_id)
                .where(res.stack_id == stack_id, res.engine_id.is_not(None))
                .distinct()
            )
        )
