"""Adapters from the engine's store protocols to ``keel_heat_core.db``.

The convergence and worker layers speak in :mod:`keel_heat_core.model.rows`
and :mod:`keel_heat_core.convergence.store` terms; these classes map them
onto the repositories (one module per table) with as few round trips as
the repositories allow.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import threading
import time
from collections.abc import (
    Callable,
    Collection,
    Iterable,
    Mapping,
    Sequence,
)
from typing import Any

from keel_heat_core.convergence.store import (
    FirstWrite,
    InRelease,
    ReadAhead,
    SwapPlan,
    SyncPointRow,
)
from keel_heat_core.db import event as event_repo
from keel_heat_core.db import exceptions as db_exceptions
from keel_heat_core.db import raw_template as template_repo
from keel_heat_core.db import records
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import resource_data as data_repo
from keel_heat_core.db import resource_properties_data as rpd_repo
from keel_heat_core.db import service as service_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db import sync_point as sync_repo
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import ADMIN
from keel_heat_core.model import rows as r
from keel_heat_core.model.definitions import StoredTemplate
from keel_heat_core.model.identifier import StackIdentifier
from keel_heat_core.plugins import current_hooks
from keel_heat_core.worker.lock import LockState

_STACK_FIELDS = {f.name for f in dataclasses.fields(r.StackRow)}


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def stack_row(rec: records.StackRecord) -> r.StackRow:
    """A stack record as the engine's row."""
    return r.StackRow(
        id=rec.id,
        name=rec.name or "",
        action=rec.action or "",
        status=rec.status or "",
        status_reason=rec.status_reason or "",
        raw_template_id=rec.raw_template_id,
        current_traversal=rec.current_traversal or "",
        prev_raw_template_id=rec.prev_raw_template_id,
        current_deps=rec.current_deps or None,
        disable_rollback=bool(rec.disable_rollback),
        timeout=rec.timeout,
        owner_id=rec.owner_id,
        tenant=rec.tenant,
        user_creds_id=rec.user_creds_id,
        nested_depth=rec.nested_depth or 0,
        stack_user_project_id=rec.stack_user_project_id,
        parent_resource_name=rec.parent_resource_name,
        username=rec.username,
        convergence=bool(rec.convergence),
        created_at=rec.created_at,
        updated_at=rec.updated_at,
        deleted_at=rec.deleted_at,
    )


def _read_ahead_in(
    stacks: DbStackStore | None, ahead: ReadAhead
) -> Callable[[Any], None]:
    """The step that makes ``ahead``'s read on a writer's connection: in
    a release once its first write matched, in a read and swap (no
    ``after``) once the swap matched. Without a stack store it reads
    nothing, and the node reads for itself."""

    def read(conn: Any) -> None:
        if stacks is None or not (ahead.after is None or ahead.after.matched):
            return
        ahead.found = stacks.read_ahead_in(conn, ahead.resource_id, ahead.line)
        if ahead.follow is not None and ahead.after is None:
            ahead.follow(ahead, _InTransaction(stacks, conn))

    return read


class _InTransaction:
    """:class:`~keel_heat_core.convergence.store.InTransaction` on
    ``conn``."""

    def __init__(self, stacks: DbStackStore, conn: Any) -> None:
        self.stacks = stacks
        self.conn = conn

    def resources(self, resource_ids: Sequence[int]) -> dict[int, Any]:
        found = resource_repo.get_many_in(
            self.stacks.db, self.conn, resource_ids
        )
        return {key: resource_row(rec) for key, rec in found.items()}

    def sync_points(
        self, traversal_id: str, entity_ids: Sequence[str]
    ) -> dict[tuple[str, bool], SyncPointRow]:
        rows = sync_repo.get_many_stored_in(
            self.conn, traversal_id, entity_ids
        )
        return {
            (rec.entity_id, rec.is_update): DbSyncPointStore._row(rec)
            for rec in rows
        }

    def swap(
        self,
        row: SyncPointRow,
        input_data: dict[str, Any],
        extra_data: dict[str, Any] | None,
    ) -> bool:
        return sync_repo.swap_stored_in(
            self.conn, *_swap_key(row), input_data, extra_data
        )


def _swap_key(row: SyncPointRow) -> tuple[str, str, bool, int]:
    """What a compare-and-swap of ``row`` matches on."""
    return row.entity_id, row.traversal_id, row.is_update, row.atomic_key


def _first_write_in(write: FirstWrite) -> Callable[[Any], None]:
    """``write`` as a statement on another write's connection."""

    def run(conn: Any) -> None:
        write.matched = sync_repo.first_write_in(
            conn,
            write.entity_id,
            write.traversal_id,
            write.is_update,
            write.input_data,
        )

    return run


#: a resource row and its live stack, as a node reads them
_Pair = tuple[r.ResourceRow | None, r.StackRow | None]


class DbStackStore:
    """:class:`~keel_heat_core.model.rows.StackStore` over the database."""

    #: parsed ``current_deps`` kept per store (stacks being traversed)
    DEPS_CACHE_SIZE = 256
    #: how long rows read with a line answer their own read ahead
    #: (seconds); older ones are read again
    LINE_FRESH_S = 0.1

    def __init__(
        self, db: Database, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.db = db
        #: ``(stack id, traversal) -> parsed current_deps``
        self._deps: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()
        self._clock = clock
        #: per thread: rows read with a line, ``{id: (when, pair)}``
        self._lines = threading.local()

    def get_stack(self, stack_id: str) -> r.StackRow | None:
        with self.db.connection() as conn:
            return self._stack_in(conn, stack_id)

    def get_resource_and_stack(
        self, resource_id: int
    ) -> tuple[r.ResourceRow | None, r.StackRow | None]:
        # every node starts with these: one statement reads both
        with self.db.connection() as conn:
            return self.resource_and_stack_in(conn, resource_id)

    def resource_and_stack_in(
        self, conn: Any, resource_id: int
    ) -> tuple[r.ResourceRow | None, r.StackRow | None]:
        """:meth:`get_resource_and_stack` on ``conn``'s transaction (that
        of a predecessor's release: ``ReadAhead``)."""
        rec, stack = resource_repo.get_with_stack_in(
            self.db, conn, resource_id
        )
        if rec is None:
            return None, None
        return self._pair(conn, rec, stack)

    def _pair(
        self,
        conn: Any,
        rec: records.ResourceRecord,
        stack: records.StackRecord | None,
    ) -> _Pair:
        """A row and its stack as a node reads them (graph included)."""
        return (
            resource_row(rec),
            None if stack is None else self._with_deps(conn, stack),
        )

    def read_ahead_in(
        self, conn: Any, resource_id: int, line: Sequence[int] = ()
    ) -> tuple[r.ResourceRow | None, r.StackRow | None]:
        """A node's read ahead (``ReadAhead``) on ``conn``'s transaction,
        with the rows of its ``line`` when it has one.

        Rows read with a line answer their own read ahead, in the same
        thread, while no older than :attr:`LINE_FRESH_S`; that answer
        takes no statement (``docs/design/resume.md``, "Reading a line
        ahead"). Any other read forgets what the line left.
        """
        spare: dict[int, tuple[float, _Pair]] | None = getattr(
            self._lines, "rows", None
        )
        if spare:
            kept = spare.pop(resource_id, None)
            if kept is not None and (
                self._clock() - kept[0] <= self.LINE_FRESH_S
            ):
                return kept[1]
            spare.clear()
        if not line:
            return self.resource_and_stack_in(conn, resource_id)
        read_at = self._clock()
        found = resource_repo.get_many_with_stack_in(
            self.db, conn, [resource_id, *line]
        )
        pairs = {
            key: self._pair(conn, rec, stack)
            for key, (rec, stack) in found.items()
        }
        self._lines.rows = {
            key: (read_at, pairs[key]) for key in line if key in pairs
        }
        return pairs.get(resource_id, (None, None))

    def _stack_in(self, conn: Any, stack_id: str) -> r.StackRow | None:
        rec = stack_repo.get_without_deps_in(conn, stack_id)
        return None if rec is None else self._with_deps(conn, rec)

    def _with_deps(self, conn: Any, rec: records.StackRecord) -> r.StackRow:
        # Every node reads its stack. A traversal's graph is written once
        # (converge_stack pairs a new traversal id with no graph, then
        # stores the graph), so it is fetched and parsed once per
        # traversal: the graph of a big stack is most of the row.
        stack_id = rec.id
        row = stack_row(rec)
        key = (rec.id, rec.current_traversal or "")
        with self._lock:
            parsed = self._deps.get(key)
        if parsed is None:
            text = stack_repo.deps_text_in(conn, stack_id)
            parsed = (json.loads(text) or None) if text is not None else None
            if parsed is not None and rec.current_traversal:
                with self._lock:
                    if len(self._deps) >= self.DEPS_CACHE_SIZE:
                        self._deps.pop(next(iter(self._deps)))
                    self._deps[key] = parsed
        # shared between readers, who never mutate it
        row.current_deps = parsed
        return row

    def list_in_progress(self) -> list[r.StackRow]:
        recs = stack_repo.list_stacks(
            self.db,
            ADMIN,
            filters={"status": "IN_PROGRESS", "convergence": True},
            show_nested=True,
        )
        return [stack_row(rec) for rec in recs]

    def update_stack(
        self,
        stack_id: str,
        expected_traversal: str,
        values: Mapping[str, Any],
    ) -> bool:
        unknown = set(values) - _STACK_FIELDS
        if unknown:
            raise ValueError(f"unknown stack fields {sorted(unknown)}")
        try:
            return stack_repo.update(
                self.db, stack_id, dict(values), exp_trvsl=expected_traversal
            )
        except db_exceptions.NotFound:
            return False


def _emitted(events: Sequence[r.EventRecord]) -> None:
    """Hand stored events to the plugins (``emit_event``); the writes
    carry no request context."""
    hooks = current_hooks()
    for event in events:
        hooks.emit_event(None, dataclasses.asdict(event))


def resource_row(rec: records.ResourceRecord) -> r.ResourceRow:
    """A resource record as the engine's row."""
    return r.ResourceRow(
        id=rec.id,
        name=rec.name or "",
        stack_id=rec.stack_id,
        action=rec.action or r.INIT,
        status=rec.status or r.COMPLETE,
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
        has_data=rec.has_data,
    )


class DbResourceStore:
    """:class:`~keel_heat_core.model.rows.ResourceStore` over the database.

    ``physical_id`` maps to ``nova_instance``; ``properties`` become a new
    ``resource_properties_data`` row (as Heat, one per change), written in
    the transaction of the compare-and-swap that references it.
    """

    def __init__(
        self,
        db: Database,
        encrypt_properties: bool = False,
        stacks: DbStackStore | None = None,
    ) -> None:
        self.db = db
        self.encrypt_properties = encrypt_properties
        #: reads a ``ReadAhead`` of a release (none without it)
        self.stacks = stacks

    @property
    def retry_timeout(self) -> float:
        """Seconds a lock write rides out a lost database
        (``worker.lock.retry_secs``)."""
        return self.db.outage.timeout

    def _columns(self, values: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(values)
        if "physical_id" in out:
            out["nova_instance"] = out.pop("physical_id")
        if "properties" in out:
            data = out.pop("properties")
            if data is not None:
                rec = rpd_repo.create(self.db, data, self.encrypt_properties)
                out["rsrc_prop_data_id"] = rec.id
        if "status" in out:
            out["updated_at"] = _utcnow()
        return out

    def get_resource(self, resource_id: int) -> r.ResourceRow | None:
        rec = resource_repo.get(self.db, resource_id)
        return None if rec is None else resource_row(rec)

    def get_resources(
        self, stack_id: str, names: Collection[str] | None = None
    ) -> list[r.ResourceRow]:
        filters = None if names is None else {"name": sorted(names)}
        return [
            resource_row(rec)
            for rec in resource_repo.get_all_by_stack(
                self.db, stack_id, filters
            )
        ]

    def get_summaries(self, stack_id: str) -> list[r.RowSummary]:
        return [
            r.RowSummary.of(rec)
            for rec in resource_repo.get_summaries(self.db, stack_id)
        ]

    def insert_resource(self, row: r.ResourceRow) -> int:
        return resource_repo.create(self.db, self._insert_values(row)).id

    def insert_resources(self, rows: Iterable[r.ResourceRow]) -> list[int]:
        return resource_repo.create_many(
            self.db, [self._insert_values(row) for row in rows]
        )

    def _insert_values(self, row: r.ResourceRow) -> dict[str, Any]:
        values = {
            "uuid": row.uuid,
            "name": row.name,
            "stack_id": row.stack_id,
            "action": row.action,
            "status": row.status,
            "status_reason": row.status_reason,
            "physical_id": row.physical_id,
            "current_template_id": row.current_template_id,
            "requires": list(row.requires),
            "needed_by": [],
            "replaces": row.replaces,
            "replaced_by": row.replaced_by,
            "root_stack_id": row.root_stack_id,
            "rsrc_metadata": row.rsrc_metadata,
            "properties": row.properties,
        }
        return self._columns(values)

    def insert_replacement(
        self, old_id: int, atomic_key: int | None, row: r.ResourceRow
    ) -> int | None:
        values = self._columns(
            {
                "uuid": row.uuid,
                "name": row.name,
                "stack_id": row.stack_id,
                "action": row.action,
                "status": row.status,
                "status_reason": row.status_reason,
                "current_template_id": row.current_template_id,
                "requires": list(row.requires),
                "needed_by": [],
                "replaces": old_id,
                "root_stack_id": row.root_stack_id,
            }
        )
        rec = resource_repo.create_replacement(
            self.db, old_id, values, atomic_key, None
        )
        return None if rec is None else rec.id

    def update_resource(
        self, resource_id: int, values: Mapping[str, Any]
    ) -> None:
        resource_repo.update_unconditional(
            self.db, resource_id, self._columns(values)
        )

    def delete_resource(self, resource_id: int) -> None:
        resource_repo.delete_resource(self.db, resource_id)

    def delete_finished(self, stack_id: str) -> int:
        return resource_repo.delete_finished(self.db, stack_id)

    def add_event(self, event: r.EventRecord) -> None:
        event_repo.create_many(self.db, [dataclasses.asdict(event)])
        _emitted([event])

    def resource_data(self, resource_id: int) -> dict[str, str]:
        """The row's ``resource_data`` items (hook markers, for resume)."""
        values = data_repo.get_all(self.db, resource_id)
        return {k: v for k, v in values.items() if v is not None}

    def cas_update(
        self,
        resource_id: int,
        expected_engine_id: str | None,
        expected_atomic_key: int | None,
        values: Mapping[str, Any],
        events: Sequence[r.EventRecord] = (),
        then: Sequence[InRelease] = (),
        data: Sequence[r.DataWrite] = (),
        defer: bool = False,
    ) -> bool:
        if "properties" not in values and not (events or then or data):
            return resource_repo.update(
                self.db,
                resource_id,
                self._columns(values),
                expected_atomic_key,
                expected_engine_id,
            )
        # the new rpd row and the events go in the transaction of the CAS
        rest = dict(values)
        properties = rest.pop("properties", None)
        written = resource_repo.update_with_properties(
            self.db,
            resource_id,
            self._columns(rest),
            properties,
            self.encrypt_properties,
            expected_atomic_key,
            expected_engine_id,
            [dataclasses.asdict(e) for e in events],
            [
                *(self._data_write(resource_id, item) for item in data),
                *(self._in_release(item) for item in then),
            ],
            defer=defer,
        )
        if written:
            _emitted(events)
        return written

    def _data_write(
        self, resource_id: int, item: r.DataWrite
    ) -> Callable[[Any], object]:
        """One resource-data change as a step on the CAS's connection."""
        db = self.db
        if item.value is None:
            return lambda conn: data_repo.delete_in(
                conn, resource_id, item.key
            )
        return lambda conn: data_repo.set_in(
            db,
            conn,
            resource_id,
            item.key,
            item.value,
            item.redact,
            fresh=item.fresh,
        )

    def _in_release(self, item: InRelease) -> Callable[[Any], None]:
        """One ``then`` item as a step on the release's connection."""
        if isinstance(item, FirstWrite):
            return _first_write_in(item)
        return _read_ahead_in(self.stacks, item)

    def read_lock(self, resource_id: int) -> LockState | None:
        found = resource_repo.get_lock(self.db, resource_id)
        return None if found is None else LockState(*found)


class DbSyncPointStore:
    """:class:`~keel_heat_core.convergence.store.SyncPointStore` over the
    database. The convergence layer keys ``input_data`` by ``tuple:``
    strings and keeps values in their JSON form; the repository decodes
    both, so this adapter re-encodes what it reads."""

    def __init__(
        self, db: Database, stacks: DbStackStore | None = None
    ) -> None:
        self.db = db
        #: reads a node ahead in a read and swap (none without)
        self.stacks = stacks

    @staticmethod
    def _row(rec: records.SyncPointRecord) -> SyncPointRow:
        # from get_stored/list: keys are tuple: strings, values JSON
        return SyncPointRow(
            entity_id=rec.entity_id,
            traversal_id=rec.traversal_id,
            is_update=rec.is_update,
            stack_id=rec.stack_id,
            atomic_key=rec.atomic_key,
            input_data=rec.input_data,
            extra_data=rec.extra_data,
        )

    def create_sync_points(
        self,
        stack_id: str,
        traversal_id: str,
        points: Iterable[tuple[str, bool]],
    ) -> None:
        # one transaction for the whole traversal
        sync_repo.create_many(self.db, stack_id, traversal_id, points)

    def get_sync_point(
        self, entity_id: str, traversal_id: str, is_update: bool
    ) -> SyncPointRow | None:
        rec = sync_repo.get_stored(self.db, entity_id, traversal_id, is_update)
        return None if rec is None else self._row(rec)

    def update_sync_point(
        self,
        row: SyncPointRow,
        input_data: dict[str, Any],
        extra_data: dict[str, Any] | None,
    ) -> bool:
        return sync_repo.update_stored_input_data(
            self.db, *_swap_key(row), input_data, extra_data
        )

    def read_and_swap(
        self,
        entity_id: str,
        traversal_id: str,
        is_update: bool,
        plan: SwapPlan,
        ahead: ReadAhead | None = None,
    ) -> tuple[SyncPointRow, bool] | None:
        def stored_plan(
            rec: records.SyncPointRecord,
        ) -> tuple[dict[str, Any], dict[str, Any] | None]:
            return plan(self._row(rec))

        then = None if ahead is None else _read_ahead_in(self.stacks, ahead)
        found = sync_repo.read_and_swap_stored(
            self.db, entity_id, traversal_id, is_update, stored_plan, then
        )
        return None if found is None else (self._row(found[0]), found[1])

    def first_write(
        self,
        entity_id: str,
        traversal_id: str,
        is_update: bool,
        input_data: dict[str, Any],
    ) -> bool:
        return sync_repo.first_write(
            self.db, entity_id, traversal_id, is_update, input_data
        )

    def list_sync_points(
        self, stack_id: str, traversal_id: str
    ) -> list[SyncPointRow]:
        return [
            self._row(rec)
            for rec in sync_repo.list_by_traversal(
                self.db, stack_id, traversal_id, stored=True
            )
        ]

    def delete_sync_points(self, stack_id: str, traversal_id: str) -> int:
        return sync_repo.delete_all_by_stack_and_traversal(
            self.db, stack_id, traversal_id
        )


class DbTemplateStore:
    """Stored templates, parsed as :class:`StoredTemplate`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def definitions(self, template_id: int, stack: r.StackRow) -> Any:
        rec = template_repo.get(self.db, template_id)
        ident = StackIdentifier(stack.tenant or "", stack.name, stack.id)
        return StoredTemplate(rec.template, rec.environment, rec.files, ident)

    def store_empty_like(self, template_id: int) -> int:
        rec = template_repo.get(self.db, template_id)
        tmpl = rec.template or {}
        empty = {
            k: v
            for k, v in tmpl.items()
            if k
            in (
                "heat_template_version",
                "HeatTemplateFormatVersion",
                "AWSTemplateFormatVersion",
            )
        }
        return template_repo.create(
            self.db, empty, rec.environment, files_id=rec.files_id
        ).id


class DbServiceStore:
    """The ``service`` heartbeat rows."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def heartbeat(
        self,
        engine_id: str,
        host: str,
        hostname: str,
        binary: str,
        topic: str,
        report_interval: int,
    ) -> None:
        service_repo.heartbeat(
            self.db,
            engine_id,
            engine_id=engine_id,
            host=host,
            hostname=hostname,
            binary=binary,
            topic=topic,
            report_interval=report_interval,
        )

    def soft_delete(self, engine_id: str) -> None:
        with contextlib.suppress(db_exceptions.DBError):
            service_repo.soft_delete(self.db, engine_id)

    def last_seen(self, engine_id: str) -> datetime.datetime | None:
        """When the engine last wrote its heartbeat (None: no live row)."""
        try:
            row = service_repo.get(self.db, engine_id)
        except db_exceptions.EntityNotFound:
            return None
        if row.deleted_at is not None:
            return None
        return row.updated_at or row.created_at

    def soft_delete_stale(
        self, host: str, hostname: str, binary: str, older_than: int
    ) -> None:
        service_repo.clean_stale(self.db)
