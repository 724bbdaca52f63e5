"""Snapshot repository: ``snapshot`` and ``resource_snapshot`` rows.

A snapshot row whose ``action`` is NULL (written before Heat 27) reads as
``CREATE``. Readers get ``data["resources"]`` with the
``resource_snapshot`` rows merged in by resource name. Visibility is by
``tenant`` (the scope's project), as in Heat.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete as sa_delete
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from keel_heat_core.db import exceptions, models, records
from keel_heat_core.db.database import Database, retry_on_db_error
from keel_heat_core.db.scope import Scope

_COLUMNS = frozenset(models.Snapshot.__table__.columns.keys())


def _records(
    session: Session, rows: list[models.Snapshot]
) -> list[records.SnapshotRecord]:
    per_snapshot: dict[str, dict[str, Any]] = {}
    if rows:
        rs = models.ResourceSnapshot
        for item in session.scalars(
            select(rs)
            .where(rs.snapshot_id.in_([r.id for r in rows]))
            .order_by(rs.created_at, rs.id)
        ):
            per_snapshot.setdefault(item.snapshot_id, {})[
                item.resource_name
            ] = item.data
    result = []
    for row in rows:
        data = copy.deepcopy(row.data)
        extra = per_snapshot.get(row.id)
        if extra:
            if not isinstance(data, dict):
                data = {}
            resources = dict(data.get("resources") or {})
            resources.update(extra)
            data["resources"] = resources
        result.append(
            records.from_row(
                records.SnapshotRecord,
                row,
                action=row.action or "CREATE",
                data=data,
            )
        )
    return result


def _get(session: Session, snapshot_id: str, scope: Scope) -> models.Snapshot:
    row = session.get(models.Snapshot, snapshot_id)
    if (
        row is not None
        and not scope.is_admin
        and row.tenant != scope.project_id
    ):
        row = None
    if row is None:
        raise exceptions.NotFound(f"Snapshot with id {snapshot_id} not found")
    return row


@retry_on_db_error
def create(db: Database, values: Mapping[str, Any]) -> records.SnapshotRecord:
    """Insert a snapshot (``id`` generated when absent)."""
    unknown = set(values) - _COLUMNS
    if unknown:
        raise ValueError(f"Unknown snapshot columns: {sorted(unknown)}")
    with db.transaction() as session:
        row = models.Snapshot(**{"id": str(uuid.uuid4()), **values})
        session.add(row)
        session.flush()
        return _records(session, [row])[0]


def get(
    db: Database, snapshot_id: str, scope: Scope
) -> records.SnapshotRecord:
    """A snapshot.

    :raises exceptions.NotFound: absent or of another project.
    """
    with db.transaction() as session:
        return _records(session, [_get(session, snapshot_id, scope)])[0]


def list_by_stack(
    db: Database, stack_id: str, scope: Scope
) -> list[records.SnapshotRecord]:
    """Snapshots of a stack, oldest first."""
    snap = models.Snapshot
    stmt = select(snap).where(snap.stack_id == stack_id)
    if not scope.is_admin:
        stmt = stmt.where(snap.tenant == scope.project_id)
    with db.transaction() as session:
        rows = list(session.scalars(stmt.order_by(snap.created_at, snap.id)))
        return _records(session, rows)


def count_by_stack(db: Database, stack_id: str, scope: Scope) -> int:
    """Number of snapshots of a stack."""
    snap = models.Snapshot
    stmt = select(func.count(snap.id)).where(snap.stack_id == stack_id)
    if not scope.is_admin:
        stmt = stmt.where(snap.tenant == scope.project_id)
    with db.transaction() as session:
        return int(session.scalar(stmt) or 0)


@retry_on_db_error
def update(
    db: Database, snapshot_id: str, values: Mapping[str, Any], scope: Scope
) -> records.SnapshotRecord:
    """Write values to a snapshot and return it."""
    with db.transaction() as session:
        row = _get(session, snapshot_id, scope)
        for key, value in values.items():
            if key not in _COLUMNS:
                raise ValueError(f"Unknown snapshot column {key!r}")
            setattr(row, key, value)
        session.flush()
        return _records(session, [row])[0]


@retry_on_db_error
def add_resource_snapshot(
    db: Database, snapshot_id: str, resource_name: str, data: Any
) -> str:
    """Store one resource's part of a snapshot; returns its row id."""
    with db.transaction() as session:
        row = models.ResourceSnapshot(
            id=str(uuid.uuid4()),
            snapshot_id=snapshot_id,
            resource_name=resource_name,
            data=data,
        )
        session.add(row)
        return row.id


@retry_on_db_error
def delete(db: Database, snapshot_id: str, scope: Scope) -> None:
    """Delete a snapshot and its resource snapshots."""
    with db.transaction() as session:
        row = _get(session, snapshot_id, scope)
        session.execute(
            sa_delete(models.ResourceSnapshot).where(
                models.ResourceSnapshot.snapshot_id == snapshot_id
            )
        )
        session.delete(row)
