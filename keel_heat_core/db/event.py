"""Event repository.

- :func:`create` / :func:`create_many` insert events (one transaction for a
  batch). ``resource_status_reason`` is cut to 255 characters and ``None``
  is stored as ``''``. With a ``max_events_per_stack`` limit, an insert
  purges, on average once every ``purge_batch_size / 2`` inserts, the
  oldest ``purge_batch_size`` events of a stack at or over the limit, with
  the rpd rows nothing references any more.
- :func:`get_by_uuid`, :func:`list_by_stack`, :func:`list_by_project`,
  :func:`count_by_stack`.

:class:`~keel_heat_core.db.records.EventRecord.resource_properties` comes
from the rpd row, or for very old rows from the legacy pickled column
(unpickled with a loader that accepts only plain data).
"""

from __future__ import annotations

import io
import pickle
import random
import uuid as uuidlib
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import delete, func, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Query, Session

from keel_heat_core.db import _query, models, records
from keel_heat_core.db import resource_properties_data as rpd
from keel_heat_core.db.database import Database, retry_on_db_error
from keel_heat_core.db.scope import Scope

_TABLE = models.table_of(models.Event)
_COLUMNS = frozenset(_TABLE.columns.keys())
#: built once (it keeps its cache key); the values come as parameters
_INSERT = insert(_TABLE)

#: API sort keys of events and their columns.
SORT_KEYS = {"event_time": "created_at", "resource_type": "resource_type"}


class _PlainUnpickler(pickle.Unpickler):
    """Loads dicts, lists, strings and numbers; refuses any class."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing {module}.{name}")


def _legacy_properties(blob: bytes | None) -> dict[str, Any] | None:
    if not blob:
        return None
    try:
        value = _PlainUnpickler(io.BytesIO(blob)).load()
    except (pickle.UnpicklingError, EOFError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _record(db: Database, row: Any) -> records.EventRecord:
    event, props_row = row
    if props_row is not None:
        props = rpd.decode(db, props_row.data, props_row.encrypted)
    else:
        props = _legacy_properties(event.resource_properties)
    return records.from_row(
        records.EventRecord, event, resource_properties=props
    )


def _query_with_rpd(session: Session) -> Query[Any]:
    props = models.ResourcePropertiesData
    query: Query[Any] = session.query(models.Event, props).outerjoin(
        props, models.Event.rsrc_prop_data_id == props.id
    )
    return query


def _prepare(values: Mapping[str, Any]) -> models.Event:
    unknown = set(values) - _COLUMNS
    if unknown:
        raise ValueError(f"Unknown event columns: {sorted(unknown)}")
    row = models.Event(**values)
    row.uuid = row.uuid or str(uuidlib.uuid4())
    reason = row.resource_status_reason
    row.resource_status_reason = (reason or "")[:255]
    return row


def insert_in_connection(
    conn: Connection, events: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Insert events inside the caller's Core transaction (no purge);
    their uuids."""
    rows = []
    for values in events:
        unknown = set(values) - _COLUMNS
        if unknown:
            raise ValueError(f"Unknown event columns: {sorted(unknown)}")
        row = dict(values)
        row["uuid"] = row.get("uuid") or str(uuidlib.uuid4())
        row["resource_status_reason"] = (
            row.get("resource_status_reason") or ""
        )[:255]
        rows.append(row)
    if len({frozenset(row) for row in rows}) == 1:
        # one statement for all (the drivers send one multi-row INSERT;
        # ids follow the order of the rows)
        conn.execute(_INSERT, rows)
    else:
        for row in rows:
            conn.execute(_INSERT, row)
    return [str(row["uuid"]) for row in rows]


def _purge(session: Session, stack_id: str, batch: int) -> None:
    ev = models.Event
    oldest = session.execute(
        select(ev.id, ev.rsrc_prop_data_id)
        .where(ev.stack_id == stack_id)
        .order_by(ev.id)
        .limit(batch)
    ).all()
    if not oldest:
        return
    max_id = oldest[-1].id
    session.execute(delete(ev).where(ev.stack_id == stack_id, ev.id <= max_id))
    candidates = {r.rsrc_prop_data_id for r in oldest} - {None}
    if not candidates:
        return
    res = models.Resource
    used = set(
        session.scalars(
            select(ev.rsrc_prop_data_id).where(
                ev.rsrc_prop_data_id.in_(candidates)
            )
        )
    ) | set(
        session.scalars(
            select(res.rsrc_prop_data_id).where(
                res.rsrc_prop_data_id.in_(candidates)
            )
        )
    )
    unused = candidates - used
    if unused:
        session.execute(
            delete(models.ResourcePropertiesData).where(
                models.ResourcePropertiesData.id.in_(unused)
            )
        )


@retry_on_db_error
def create_many(
    db: Database,
    events: Sequence[Mapping[str, Any]],
    max_events_per_stack: int = 0,
    purge_batch_size: int = 200,
) -> list[str]:
    """Insert events in one transaction; returns their uuids.

    :param max_events_per_stack: 0 disables purging.
    """
    with db.transaction() as session:
        return add_in_session(
            session, events, max_events_per_stack, purge_batch_size
        )


def add_in_session(
    session: Session,
    events: Sequence[Mapping[str, Any]],
    max_events_per_stack: int = 0,
    purge_batch_size: int = 200,
) -> list[str]:
    """:func:`create_many` inside the caller's transaction."""
    rows = [_prepare(values) for values in events]
    if max_events_per_stack:
        for stack_id in {r.stack_id for r in rows}:
            if 2.0 / purge_batch_size <= random.uniform(0, 1):
                continue
            if _count(session, stack_id) >= max_events_per_stack:
                _purge(session, stack_id, purge_batch_size)
    session.add_all(rows)
    return [str(r.uuid) for r in rows]


@retry_on_db_error
def create(
    db: Database,
    values: Mapping[str, Any],
    max_events_per_stack: int = 0,
    purge_batch_size: int = 200,
) -> records.EventRecord:
    """Insert one event and return it."""
    (event_uuid,) = create_many(
        db, [values], max_events_per_stack, purge_batch_size
    )
    found = get_by_uuid(db, event_uuid)
    assert found is not None
    return found


def get_by_uuid(db: Database, event_uuid: str) -> records.EventRecord | None:
    """An event by its public id."""
    with db.transaction() as session:
        row = (
            _query_with_rpd(session)
            .filter(models.Event.uuid == event_uuid)
            .first()
        )
        return _record(db, row) if row is not None else None


def _count(session: Session, stack_id: str) -> int:
    return int(
        session.scalar(
            select(func.count(models.Event.id)).where(
                models.Event.stack_id == stack_id
            )
        )
        or 0
    )


def count_by_stack(db: Database, stack_id: str) -> int:
    """Number of events of a stack."""
    with db.transaction() as session:
        return _count(session, stack_id)


def _page(
    db: Database,
    session: Session,
    query: Query[Any],
    *,
    limit: int | None,
    marker: str | None,
    sort_keys: str | Sequence[str] | None,
    sort_dir: str | None,
    filters: Mapping[str, Any] | None,
) -> list[records.EventRecord]:
    query = _query.exact_filter(query, models.Event, filters)
    marker_row = None
    if marker:
        marker_row = session.scalars(
            select(models.Event).where(models.Event.uuid == marker)
        ).first()
    query = _query.paginate(
        query,
        models.Event,
        limit=limit,
        sort_keys=_query.sort_columns(sort_keys, SORT_KEYS),
        marker_row=marker_row,
        sort_dir=sort_dir,
    )
    return [_record(db, row) for row in query.all()]


def list_by_stack(
    db: Database,
    stack_id: str | Sequence[str],
    *,
    limit: int | None = None,
    marker: str | None = None,
    sort_keys: str | Sequence[str] | None = None,
    sort_dir: str | None = None,
    filters: Mapping[str, Any] | None = None,
) -> list[records.EventRecord]:
    """Events of a stack (or of several: a list of ids); the marker is an
    event uuid.

    Default order: newest first (``created_at`` then ``id`` descending).
    """
    ids = [stack_id] if isinstance(stack_id, str) else list(stack_id)
    with db.transaction() as session:
        query = _query_with_rpd(session).filter(
            models.Event.stack_id == ids[0]
            if len(ids) == 1
            else models.Event.stack_id.in_(ids)
        )
        return _page(
            db,
            session,
            query,
            limit=limit,
            marker=marker,
            sort_keys=sort_keys,
            sort_dir=sort_dir,
            filters=filters,
        )


def list_by_project(
    db: Database,
    scope: Scope,
    *,
    limit: int | None = None,
    marker: str | None = None,
    sort_keys: str | Sequence[str] | None = None,
    sort_dir: str | None = None,
    filters: Mapping[str, Any] | None = None,
) -> list[records.EventRecord]:
    """Events of the live stacks of the scope's project."""
    with db.transaction() as session:
        query = (
            _query_with_rpd(session)
            .join(models.Stack, models.Stack.id == models.Event.stack_id)
            .filter(
                models.Stack.tenant == scope.project_id,
                models.Stack.deleted_at.is_(None),
            )
        )
        return _page(
            db,
            session,
            query,
            limit=limit,
            marker=marker,
            sort_keys=sort_keys,
            sort_dir=sort_dir,
            filters=filters,
        )
