"""The engine's store protocols implemented over the repositories.

The worker and convergence layers talk to persistence through narrow
protocols (:mod:`keel_heat_core.model.rows`,
:mod:`keel_heat_core.convergence.store`) so they can be tested in memory.
These classes are the database-backed implementations:

- :class:`DbStackStore` (``StackStore``): traversal CAS on ``stack``;
- :class:`DbResourceStore` (``ResourceStore`` and the worker's
  ``ResourceLockStore``): the resource lock CAS, rows and events. Values
  use :class:`~keel_heat_core.model.rows.ResourceRow` field names:
  ``physical_id`` is stored in ``nova_instance`` and ``properties`` in a
  new (immutable) rpd row referenced by ``rsrc_prop_data_id``, written in
  the same transaction as the row;
- :class:`DbSyncPointStore` (``SyncPointStore``): sync points whose
  ``input_data`` keys are the stored ``tuple:`` strings; 2-element keys
  read from old rows come back in the 3-element form, and whatever is
  written is stored in the 3-element form.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy import update as sa_update
from sqlalchemy.orm import Session

from keel_heat_core.convergence.store import SyncPointRow
from keel_heat_core.db import (
    event,
    exceptions,
    models,
    records,
    resource,
    stack,
    sync_point,
    tuple_keys,
)
from keel_heat_core.db import resource_properties_data as rpd
from keel_heat_core.db.database import Database, retry_on_db_error
from keel_heat_core.model import rows
from keel_heat_core.worker.lock import LockState

_STACK_FIELDS = [f.name for f in dataclasses.fields(rows.StackRow)]


def _stack_row(rec: records.StackRecord) -> rows.StackRow:
    values = {name: getattr(rec, name) for name in _STACK_FIELDS}
    values["name"] = rec.name or ""
    values["action"] = rec.action or ""
    values["status"] = rec.status or ""
    values["status_reason"] = rec.status_reason or ""
    values["current_traversal"] = rec.current_traversal or ""
    values["nested_depth"] = rec.nested_depth or 0
    return rows.StackRow(**values)


def _resource_row(rec: records.ResourceRecord) -> rows.ResourceRow:
    return rows.ResourceRow(
        id=rec.id,
        name=rec.name or "",
        stack_id=rec.stack_id,
        action=rec.action or rows.INIT,
        status=rec.status or rows.COMPLETE,
        status_reason=rec.status_reason or "",
        physical_id=rec.nova_instance,
        engine_id=rec.engine_id,
        atomic_key=rec.atomic_key,
        current_template_id=rec.current_template_id,
        requires=list(rec.requires or []),
        replaces=rec.replaces,
        replaced_by=rec.replaced_by,
        uuid=rec.uuid or "",
        root_stack_id=rec.root_stack_id,
        rsrc_metadata=rec.rsrc_metadata,
        properties=rec.properties_data,
        updated_at=rec.updated_at,
        created_at=rec.created_at,
    )


class DbStackStore:
    """``StackStore`` over :mod:`keel_heat_core.db.stack`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get_stack(self, stack_id: str) -> rows.StackRow | None:
        """One live stack, or None."""
        rec = stack.get(self.db, stack_id)
        return _stack_row(rec) if rec is not None else None

    def list_in_progress(self) -> list[rows.StackRow]:
        """Live stacks whose status is IN_PROGRESS."""
        st = models.Stack
        with self.db.transaction() as session:
            ids = list(
                session.scalars(
                    select(st.id).where(
                        st.status == rows.IN_PROGRESS, st.deleted_at.is_(None)
                    )
                )
            )
        found = (stack.get(self.db, i) for i in ids)
        return [_stack_row(r) for r in found if r is not None]

    def update_stack(
        self, stack_id: str, expected_traversal: str, values: Mapping[str, Any]
    ) -> bool:
        """``UPDATE stack ... WHERE current_traversal = expected``."""
        try:
            return stack.update(
                self.db, stack_id, values, exp_trvsl=expected_traversal
            )
        except exceptions.NotFound:
            return False


class _Missed(Exception):
    """A compare-and-swap that matched no row (rolls the attempt back)."""


class DbResourceStore:
    """``ResourceStore`` and ``ResourceLockStore`` over the repositories.

    :param encrypt_properties: ``encrypt_parameters_and_properties``.
    """

    def __init__(self, db: Database, encrypt_properties: bool = False) -> None:
        self.db = db
        self.encrypt_properties = encrypt_properties

    def _columns(
        self, session: Session, values: Mapping[str, Any]
    ) -> dict[str, Any]:
        columns = dict(values)
        columns.pop("id", None)
        if "physical_id" in columns:
            columns["nova_instance"] = columns.pop("physical_id")
        if "properties" in columns:
            props = columns.pop("properties")
            columns["rsrc_prop_data_id"] = (
                None
                if props is None
                else rpd.create_in_session(
                    self.db, session, props, self.encrypt_properties
                ).id
            )
        return columns

    @retry_on_db_error
    def cas_update(
        self,
        resource_id: int,
        expected_engine_id: str | None,
        expected_atomic_key: int | None,
        values: Mapping[str, Any],
    ) -> bool:
        """The lock compare-and-swap; bumps ``atomic_key``."""
        try:
            with self.db.transaction() as session:
                columns = self._columns(session, values)
                columns.pop("atomic_key", None)
                if not resource.update_in_session(
                    session,
                    resource_id,
                    columns,
                    expected_atomic_key,
                    expected_engine_id,
                ):
                    # Undo the rpd row written for this attempt.
                    raise _Missed()
        except _Missed:
            return False
        return True

    def read_lock(self, resource_id: int) -> LockState | None:
        """The lock columns, or None when the row is gone."""
        res = models.Resource
        with self.db.transaction() as session:
            found = session.execute(
                select(
                    res.engine_id, res.atomic_key, res.current_template_id
                ).where(res.id == resource_id)
            ).first()
        if found is None:
            return None
        return LockState(found[0], found[1], found[2])

    def get_resource(self, resource_id: int) -> rows.ResourceRow | None:
        """One row, or None."""
        rec = resource.get(self.db, resource_id)
        return _resource_row(rec) if rec is not None else None

    def get_resources(self, stack_id: str) -> list[rows.ResourceRow]:
        """Every row of a stack (one query)."""
        return [
            _resource_row(r)
            for r in resource.get_all_by_stack(self.db, stack_id)
        ]

    @retry_on_db_error
    def insert_resource(self, row: rows.ResourceRow) -> int:
        """Insert a row; returns its id."""
        values = {
            f.name: getattr(row, f.name) for f in dataclasses.fields(row)
        }
        values["uuid"] = values.get("uuid") or str(uuid.uuid4())
        values["needed_by"] = []
        for stamp in ("created_at", "updated_at"):
            if values.get(stamp) is None:
                values.pop(stamp)
        with self.db.transaction() as session:
            new = models.Resource(**self._columns(session, values))
            session.add(new)
            session.flush()
            return new.id

    @retry_on_db_error
    def update_resource(
        self, resource_id: int, values: Mapping[str, Any]
    ) -> None:
        """An unconditional write (no lock)."""
        with self.db.transaction() as session:
            columns = self._columns(session, values)
            session.execute(
                sa_update(models.Resource)
                .where(models.Resource.id == resource_id)
                .values(**columns)
                .execution_options(synchronize_session=False)
            )

    def delete_resource(self, resource_id: int) -> None:
        """Hard-delete a row with its data and cached attributes."""
        resource.delete_resource(self.db, resource_id)

    def add_event(self, record: rows.EventRecord) -> None:
        """Insert one event."""
        event.create_many(self.db, [dataclasses.asdict(record)])


def _sync_row(rec: records.SyncPointRecord) -> SyncPointRow:
    stored = tuple_keys.encode_input_data(rec.input_data)["input_data"]
    return SyncPointRow(
        entity_id=rec.entity_id,
        traversal_id=rec.traversal_id,
        is_update=rec.is_update,
        stack_id=rec.stack_id,
        atomic_key=rec.atomic_key,
        input_data=stored,
        extra_data=rec.extra_data,
    )


class DbSyncPointStore:
    """``SyncPointStore`` over :mod:`keel_heat_core.db.sync_point`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create_sync_points(
        self,
        stack_id: str,
        traversal_id: str,
        points: Iterable[tuple[str, bool]],
    ) -> None:
        """Insert one empty row per ``(entity_id, is_update)``."""
        sync_point.create_many(self.db, stack_id, traversal_id, points)

    def get_sync_point(
        self, entity_id: str, traversal_id: str, is_update: bool
    ) -> SyncPointRow | None:
        """One row with ``tuple:`` string keys, or None."""
        rec = sync_point.get(self.db, entity_id, traversal_id, is_update)
        return _sync_row(rec) if rec is not None else None

    def update_sync_point(
        self,
        row: SyncPointRow,
        input_data: dict[str, Any],
        extra_data: dict[str, Any] | None,
    ) -> bool:
        """Compare-and-swap on ``row.atomic_key``."""
        return sync_point.update_input_data(
            self.db,
            row.entity_id,
            row.traversal_id,
            row.is_update,
            row.atomic_key,
            tuple_keys.decode_input_data({"input_data": input_data}),
            extra_data,
        )

    def list_sync_points(
        self, stack_id: str, traversal_id: str
    ) -> list[SyncPointRow]:
        """Every row of a traversal."""
        return [
            _sync_row(r)
            for r in sync_point.list_by_traversal(
                self.db, stack_id, traversal_id
            )
        ]

    def delete_sync_points(self, stack_id: str, traversal_id: str) -> int:
        """Delete a traversal's rows."""
        return sync_point.delete_all_by_stack_and_traversal(
            self.db, stack_id, traversal_id
        )
