"""Stack snapshots: create, show, list, delete, restore (docs/design/engine.md,
"Snapshots").

A snapshot is a ``SNAPSHOT`` traversal of the stack's current template
whose traversal id is the snapshot id: every update node runs the
plugin's ``handle_snapshot`` (plugins keep what they need with
``data_set``). When the traversal completes, :class:`SnapshotFinisher`
(called by the worker just before the stack's ``SNAPSHOT_COMPLETE``)
writes one ``resource_snapshot`` row per resource with its abandon data
and moves the snapshot row to ``CREATE_COMPLETE``; a failed traversal
leaves it ``CREATE_FAILED``. Restore converges the stack to the
snapshot's template and environment (``RESTORE``), each resource's
definition first passed through its plugin's ``handle_restore(defn,
data)`` when it has one, with its part of the snapshot (as Heat's
``Stack.restore_data``: a volume restores from its backup, a server from
its image). Not done yet: ``handle_delete_snapshot`` runs when a
snapshot is deleted through the API, not when its stack is.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core.db import exceptions as db_exceptions
from keel_heat_core.db import raw_template as template_repo
from keel_heat_core.db import records
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import resource_data as data_repo
from keel_heat_core.db import snapshot as snapshot_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import ADMIN
from keel_heat_core.model import rows as r
from keel_heat_core.model.definitions import StoredTemplate
from keel_heat_core.service import views
from keel_heat_core.service.stack_api import scope_of
from keel_heat_core.template.protocols import PendingStackView
from keel_heat_core.worker.action import run_action
from keel_heat_core.worker.converge import converge_stack
from keel_heat_core.worker.deps import TemplateStore

LOG = logging.getLogger(__name__)


def _current_rows(db: Database, stack: r.StackRow) -> dict[str, Any]:
    """One row per resource name, preferring the current template's."""
    chosen: dict[str, Any] = {}
    for rec in resource_repo.get_all_active_by_stack(db, stack.id):
        if rec.name is None:
            continue
        old = chosen.get(rec.name)
        current = rec.current_template_id == stack.raw_template_id
        if old is None or (
            current and old.current_template_id != stack.raw_template_id
        ):
            chosen[rec.name] = rec
    return chosen


def stack_data(
    db: Database,
    stack: r.StackRow,
    definitions: Mapping[str, Any],
    with_resources: bool = True,
) -> dict[str, Any]:
    """The abandon data of a stack (Heat's ``prepare_abandon`` layout).

    :param definitions: the resource definitions of the stack's template
        (for the resource types).
    :param with_resources: fill ``resources``; snapshots start empty.
    """
    tmpl = template_repo.get(db, stack.raw_template_id)
    rec = stack_repo.get(db, stack.id, ADMIN)
    resources: dict[str, Any] = {}
    if with_resources:
        rows = _current_rows(db, stack)
        datas = data_repo.get_all_by_resources(
            db, [row.id for row in rows.values()]
        )
        for name, row in rows.items():
            if name not in definitions:
                continue
            resources[name] = {
                "name": name,
                "resource_id": row.nova_instance,
                "type": definitions[name].resource_type,
                "action": row.action,
                "status": row.status,
                "metadata": row.rsrc_metadata or {},
                "resource_data": datas.get(row.id, {}),
            }
    return {
        "name": stack.name,
        "id": stack.id,
        "action": stack.action,
        "environment": dict(tmpl.environment or {}),
        "files": dict(tmpl.files or {}),
        "status": stack.status,
        "template": tmpl.template,
        "resources": resources,
        "project_id": stack.tenant,
        "stack_user_project_id": stack.stack_user_project_id,
        "tags": list(rec.tags) if rec is not None else [],
    }


def format_snapshot(snap: records.SnapshotRecord) -> dict[str, Any]:
    """A snapshot as the engine API returns it."""
    return {
        "id": snap.id,
        "name": snap.name,
        "action": snap.action,
        "status": snap.status,
        "status_reason": snap.status_reason,
        "data": snap.data,
        "creation_time": views.timestamp(snap.created_at),
    }


class SnapshotFinisher:
    """What the worker does when a traversal ends, for snapshots.

    * ``SNAPSHOT`` complete: store the resources' data, snapshot
      ``CREATE_COMPLETE``; failed: snapshot ``CREATE_FAILED``;
    * ``DELETE`` complete: the stack's snapshots are deleted with it.

    :param db: the database.
    :param templates: the engine's template store (resource types).
    """

    def __init__(self, db: Database, templates: TemplateStore) -> None:
        self.db = db
        self.templates = templates

    def __call__(
        self, ctxt: Any, stack: r.StackRow, status: str, reason: str
    ) -> None:
        if stack.action == r.SNAPSHOT:
            self._snapshot_done(stack, status, reason)
        elif stack.action == r.DELETE and status == r.COMPLETE:
            delete_all(self.db, stack.id)

    def _snapshot_done(
        self, stack: r.StackRow, status: str, reason: str
    ) -> None:
        snapshot_id = stack.current_traversal
        try:
            snap = snapshot_repo.get(self.db, snapshot_id, ADMIN)
        except db_exceptions.NotFound:
            LOG.warning("Snapshot %s of %s is gone", snapshot_id, stack.id)
            return
        values: dict[str, Any] = {"status": status, "status_reason": reason}
        if status == r.COMPLETE:
            definitions = self.templates.definitions(
                stack.raw_template_id, stack
            )
            data = stack_data(self.db, stack, definitions)
            for name, part in data.pop("resources").items():
                snapshot_repo.add_resource_snapshot(
                    self.db, snapshot_id, name, part
                )
            data.update(resources={}, status=status)
            values["data"] = data
        snapshot_repo.update(self.db, snap.id, values, ADMIN)


def delete_all(db: Database, stack_id: str) -> None:
    """Delete every snapshot of a stack (its rows)."""
    for snap in snapshot_repo.list_by_stack(db, stack_id, ADMIN):
        snapshot_repo.delete(db, snap.id, ADMIN)


class StackSnapshots:
    """The snapshot calls of the engine API.

    :param api: the stack lifecycle implementation
        (:class:`keel_heat_core.service.stack_api.StackAPI`).
    """

    def __init__(self, api: Any) -> None:
        self._api = api

    def _get(
        self, ctxt: Any, stack: r.StackRow, snapshot_id: str
    ) -> records.SnapshotRecord:
        try:
            snap = snapshot_repo.get(self._api.db, snapshot_id, scope_of(ctxt))
        except db_exceptions.NotFound:
            snap = None
        if snap is None or snap.stack_id != stack.id:
            raise exception.SnapshotNotFound(
                snapshot=snapshot_id, stack=stack.name
            )
        return snap

    def stack_snapshot(
        self, ctxt: Any, stack_identity: Any, name: Any
    ) -> dict[str, Any]:
        """Start a snapshot of the stack; returns it ``IN_PROGRESS``.

        :raises ActionInProgress: the stack is ``IN_PROGRESS``.
        :raises RequestLimitExceeded: ``max_snapshots_per_stack`` reached
            (not for admins).
        """
        api = self._api
        stack = api.load(ctxt, stack_identity)
        if stack.status == r.IN_PROGRESS:
            raise exception.ActionInProgress(
                stack_name=stack.name, action=stack.action
            )
        if not getattr(ctxt, "is_admin", False):
            limit = api.conf.max_snapshots_per_stack
            count = snapshot_repo.count_by_stack(api.db, stack.id, ADMIN)
            if limit >= 0 and count >= limit:
                raise exception.RequestLimitExceeded(
                    message=(
                        "You have reached the maximum snapshots per stack, "
                        f"{limit}. Please delete some snapshots."
                    )
                )
        data = stack_data(
            api.db, stack, api.stored(stack), with_resources=False
        )
        snap = snapshot_repo.create(
            api.db,
            {
                "id": str(uuid.uuid4()),
                "tenant": getattr(ctxt, "project_id", None) or stack.tenant,
                "name": name,
                "stack_id": stack.id,
                "action": "CREATE",
                "status": r.IN_PROGRESS,
                "status_reason": "",
                "data": data,
            },
        )
        started = converge_stack(
            api.deps,
            ctxt,
            stack,
            stack.raw_template_id,
            r.SNAPSHOT,
            traversal=snap.id,
        )
        if started is None:
            snap = snapshot_repo.update(
                api.db,
                snap.id,
                {"status": r.FAILED, "status_reason": "Stack busy"},
                ADMIN,
            )
        return format_snapshot(snap)

    def show_snapshot(
        self, ctxt: Any, stack_identity: Any, snapshot_id: str
    ) -> dict[str, Any]:
        """One snapshot of the stack."""
        stack = self._api.load(ctxt, stack_identity)
        return format_snapshot(self._get(ctxt, stack, snapshot_id))

    def stack_list_snapshots(
        self, ctxt: Any, stack_identity: Any
    ) -> list[dict[str, Any]]:
        """The snapshots of the stack, oldest first."""
        stack = self._api.load(ctxt, stack_identity)
        return [
            format_snapshot(snap)
            for snap in snapshot_repo.list_by_stack(
                self._api.db, stack.id, scope_of(ctxt)
            )
        ]

    def delete_snapshot(
        self, ctxt: Any, stack_identity: Any, snapshot_id: str
    ) -> None:
        """Delete a snapshot and its resource parts.

        :raises NotSupported: the snapshot is still being taken.
        """
        stack = self._api.load(ctxt, stack_identity)
        snap = self._get(ctxt, stack, snapshot_id)
        if snap.status == r.IN_PROGRESS:
            raise exception.NotSupported(
                feature="Deleting in-progress snapshot"
            )
        try:
            self._delete_backups(stack, snap)
        except Exception as exc:
            LOG.warning("Deleting snapshot %s failed: %s", snap.id, exc)
            snapshot_repo.update(
                self._api.db,
                snap.id,
                {
                    "action": "DELETE",
                    "status": r.FAILED,
                    "status_reason": str(exc),
                },
                ADMIN,
            )
            return
        snapshot_repo.delete(self._api.db, snap.id, ADMIN)

    def _delete_backups(
        self, stack: r.StackRow, snap: records.SnapshotRecord
    ) -> None:
        """``handle_delete_snapshot(part)`` of each resource that has it."""
        deps = self._api.deps
        parts = (snap.data or {}).get("resources") or {}
        stored = self._api.stored(stack)
        rows = {
            row.name: row
            for row in deps.resources.get_resources(stack.id)
            if row.replaced_by is None
        }
        for name, part in parts.items():
            row = rows.get(name)
            if row is None or name not in stored:
                continue
            plugin = deps.plugins(
                stored[name], row, dict(row.properties or {}), stack
            )
            if hasattr(plugin, "handle_delete_snapshot"):
                run_action(
                    plugin,
                    "DELETE_SNAPSHOT",
                    (part,),
                    interval=deps.poll_interval,
                )

    def stack_restore(
        self, ctxt: Any, stack_identity: Any, snapshot_id: str
    ) -> None:
        """Converge the stack back to a snapshot (``RESTORE``).

        :raises NotSupported: the snapshot is not ``COMPLETE``.
        """
        api = self._api
        stack = api.load(ctxt, stack_identity)
        snap = self._get(ctxt, stack, snapshot_id)
        if snap.status != r.COMPLETE:
            raise exception.NotSupported(
                feature="Restoring incomplete snapshot"
            )
        data: Mapping[str, Any] = snap.data or {}
        stored = api.parse(
            ctxt,
            stack.name,
            data.get("template") or {},
            data.get("environment") or {},
            data.get("files") or {},
            stack.id,
        )
        self._restore_definitions(stack, stored, data.get("resources") or {})
        template_id = template_repo.create(
            api.db,
            stored.t.t,
            stored.env.env_as_dict(),
            dict(data.get("files") or {}),
        ).id
        converge_stack(api.deps, ctxt, stack, template_id, r.RESTORE)

    def _restore_definitions(
        self,
        stack: r.StackRow,
        stored: StoredTemplate,
        parts: Mapping[str, Any],
    ) -> None:
        """Let each plugin with ``handle_restore(defn, data)`` adjust its
        definition in the snapshot's template (``stored.t``).

        The plugin sees the snapshot's definition and properties, and the
        current row of its resource (its physical id), or a new INIT row
        for a resource the stack has lost since.
        """
        deps = self._api.deps
        rows = {
            row.name: row
            for row in deps.resources.get_resources(stack.id)
            if row.replaced_by is None
        }
        definitions = stored.stack_definition(PendingStackView())
        for name, defn in stored.items():
            cls = stored.env.get_class_to_instantiate(defn.resource_type, name)
            if not callable(getattr(cls, "handle_restore", None)):
                continue
            row = rows.get(name) or r.ResourceRow(
                id=0,
                name=name,
                stack_id=stack.id,
                current_template_id=stack.raw_template_id,
                uuid=str(uuid.uuid4()),
                root_stack_id=stack.id,
            )
            props = defn.resolve_properties(PendingStackView())
            plugin = deps.plugins(defn, row, props, stack)
            restored = plugin.handle_restore(
                definitions.resource_definition(name), parts.get(name)
            )
            stored.t.add_resource(restored)
