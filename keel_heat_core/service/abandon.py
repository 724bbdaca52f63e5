"""Abandon, export and adopt of stacks (engine spec §2.2, §5.3).

Abandon data is the layout Heat's ``prepare_abandon`` gives (api.md
§3.12): the stack's name, id, state, user environment, files, template,
project, tags and, per resource of the current template, ``{name,
resource_id, type, action, status, metadata, resource_data}``. Snapshots
store the same layout.

Abandon removes the stack's records (the stack goes ``DELETE_COMPLETE``
and is soft-deleted, its rows purged) without touching any physical
resource; nested stacks are abandoned with it. Adopt is a create whose
resources take over the ids of the adopt data (``ADOPT`` traversal).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import yaml

from keel_heat_core import exception
from keel_heat_core.db import raw_template as template_repo
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import resource_data as data_repo
from keel_heat_core.db import snapshot as snapshot_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import ADMIN
from keel_heat_core.model import rows as r
from keel_heat_core.service import db_stores
from keel_heat_core.worker import stack_state

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


def parse_adopt_data(raw: Any) -> dict[str, Any]:
    """The adopt data of ``create_stack`` args (JSON or YAML text).

    :raises InvalidTemplateFormat: not a mapping.
    """
    data = raw
    if isinstance(raw, str):
        try:
            data = json.loads(raw)
        except ValueError:
            try:
                data = yaml.safe_load(raw)
            except yaml.YAMLError as exc:
                raise exception.StackValidationFailed(
                    message=f"Invalid adopt data: {exc}"
                ) from exc
    if not isinstance(data, Mapping):
        raise exception.StackValidationFailed(
            message="Invalid adopt data: not a mapping"
        )
    return dict(data)


def require_abandon(conf: Any) -> None:
    """:raises NotSupported: ``Stack Abandon is not supported.``"""
    if not conf.enable_stack_abandon:
        raise exception.NotSupported(feature="Stack Abandon")


def require_adopt(conf: Any) -> None:
    """:raises NotSupported: ``Stack Adopt is not supported.``"""
    if not conf.enable_stack_adopt:
        raise exception.NotSupported(feature="Stack Adopt")


class StackAbandon:
    """``abandon_stack`` and ``export_stack`` of the engine API.

    :param api: the stack lifecycle implementation
        (:class:`keel_heat_core.service.stack_api.StackAPI`).
    """

    def __init__(self, api: Any) -> None:
        self._api = api

    def export_stack(self, ctxt: Any, stack_identity: Any) -> dict[str, Any]:
        """The abandon data, the stack left as it is."""
        require_abandon(self._api.conf)
        stack = self._api.load(ctxt, stack_identity)
        return stack_data(self._api.db, stack, self._api.stored(stack))

    def abandon_stack(self, ctxt: Any, stack_identity: Any) -> dict[str, Any]:
        """Return the abandon data and drop the stack's records."""
        require_abandon(self._api.conf)
        stack = self._api.load(ctxt, stack_identity)
        if stack.status == r.IN_PROGRESS:
            self._api.stop_traversal(ctxt, stack)
            stack = self._api.load(ctxt, {"stack_id": stack.id})
        self._api.stop_all_workers(ctxt, stack)
        data = stack_data(self._api.db, stack, self._api.stored(stack))
        self._forget(ctxt, stack)
        return data

    def _forget(self, ctxt: Any, stack: r.StackRow) -> None:
        """DELETE the stack's records only, children first."""
        db = self._api.db
        deps = self._api.deps
        for child in stack_repo.get_all_by_owner_id(db, stack.id):
            self._forget(ctxt, db_stores.stack_row(child))
        old = stack.current_traversal
        stack.action = r.DELETE
        if not stack_state.set_state(
            deps,
            ctxt,
            stack,
            old,
            r.IN_PROGRESS,
            "Stack DELETE started",
            action=r.DELETE,
            current_traversal="",
            updated_at=deps.now(),
        ):
            raise exception.ActionInProgress(
                stack_name=stack.name, action=stack.action
            )
        deps.sync_points.delete_sync_points(stack.id, old)
        for snap in snapshot_repo.list_by_stack(db, stack.id, ADMIN):
            snapshot_repo.delete(db, snap.id, ADMIN)
        for row in resource_repo.get_all_by_stack(db, stack.id):
            resource_repo.delete_resource(db, row.id)
        stack_state.set_state(
            deps,
            ctxt,
            stack,
            "",
            r.COMPLETE,
            "Stack DELETE completed successfully",
            deleted_at=deps.now(),
        )
        LOG.info("Stack %s abandoned", stack.id)
