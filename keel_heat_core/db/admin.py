"""Operator maintenance on the database (behind ``keel-heat-manage``).

- :func:`purge_deleted` removes stacks soft-deleted before a cut-off with
  every row that depends on them, then templates, files, credentials and
  rpd rows nothing references any more, and old soft-deleted services.
- :func:`reset_stack_status` marks a stuck stack tree FAILED (Heat's
  ``reset_stack_status``): IN_PROGRESS resources become FAILED "Stack
  status manually reset" with no lock holder, hook markers go, IN_PROGRESS
  stacks become FAILED and their legacy locks are deleted. Traversal ids
  and sync points are left alone.
- :func:`migrate_convergence` turns a legacy (convergence = 0) stack tree
  into convergence stacks.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from keel_heat_core.db import exceptions, models, raw_template, stack_lock
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db.database import Database

HOOK_TYPES = (
    "pre-create",
    "pre-update",
    "pre-delete",
    "post-create",
    "post-update",
    "post-delete",
)
RESET_REASON = "Stack status manually reset"
_SECONDS = {"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}


def _positive(value: Any, name: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} should be an integer") from None
    if number < 0:
        raise ValueError(f"{name} should be a positive integer")
    return number


def _unreferenced(
    session: Session, candidates: set[int], *columns: Any
) -> set[int]:
    used: set[Any] = set()
    for column in columns:
        used |= set(
            session.scalars(select(column).where(column.in_(candidates)))
        )
    return candidates - used


def _purge_stacks(session: Session, ids: Sequence[str]) -> None:
    st, res, ev = models.Stack, models.Resource, models.Event
    rows = session.execute(
        select(
            st.raw_template_id, st.prev_raw_template_id, st.user_creds_id
        ).where(st.id.in_(ids))
    ).all()
    res_rows = session.execute(
        select(
            res.id,
            res.rsrc_prop_data_id,
            res.attr_data_id,
            res.current_template_id,
        ).where(res.stack_id.in_(ids))
    ).all()
    rpd_ids = {r.rsrc_prop_data_id for r in res_rows}
    rpd_ids |= {r.attr_data_id for r in res_rows}
    rpd_ids |= set(
        session.scalars(
            select(ev.rsrc_prop_data_id).where(ev.stack_id.in_(ids))
        )
    )
    resource_repo.delete_in_session(session, [r.id for r in res_rows])
    snaps = list(
        session.scalars(
            select(models.Snapshot.id).where(models.Snapshot.stack_id.in_(ids))
        )
    )
    if snaps:
        session.execute(
            delete(models.ResourceSnapshot).where(
                models.ResourceSnapshot.snapshot_id.in_(snaps)
            )
        )
    for table in (
        models.Event,
        models.SyncPoint,
        models.StackTag,
        models.StackLock,
        models.Snapshot,
    ):
        session.execute(delete(table).where(table.stack_id.in_(ids)))
    session.execute(delete(st).where(st.id.in_(ids)))
    session.flush()
    templates = {r.raw_template_id for r in rows}
    templates |= {r.prev_raw_template_id for r in rows}
    templates |= {r.current_template_id for r in res_rows}
    templates.discard(None)
    raw_template.delete_in_session(
        session,
        _unreferenced(
            session,
            templates,
            st.raw_template_id,
            st.prev_raw_template_id,
            res.current_template_id,
        ),
    )
    creds = {r.user_creds_id for r in rows} - {None}
    for creds_id in _unreferenced(session, creds, st.user_creds_id):
        session.execute(
            delete(models.UserCreds).where(models.UserCreds.id == creds_id)
        )
    rpd_ids.discard(None)
    unused = _unreferenced(
        session,
        rpd_ids,
        res.rsrc_prop_data_id,
        res.attr_data_id,
        ev.rsrc_prop_data_id,
    )
    if unused:
        session.execute(
            delete(models.ResourcePropertiesData).where(
                models.ResourcePropertiesData.id.in_(unused)
            )
        )


def purge_deleted(
    db: Database,
    age: int | str,
    granularity: str = "days",
    project_id: str | None = None,
    batch_size: int | str = 20,
) -> int:
    """Purge stacks soft-deleted more than ``age`` granularity units ago.

    :returns: the number of stacks removed.
    :raises ValueError: bad age, granularity or batch size.
    """
    age = _positive(age, "age")
    batch = _positive(batch_size, "batch_size") or 20
    if granularity not in _SECONDS:
        raise ValueError(
            "granularity should be days, hours, minutes, or seconds"
        )
    cutoff = models.utcnow() - datetime.timedelta(
        seconds=age * _SECONDS[granularity]
    )
    st = models.Stack
    with db.transaction() as session:
        session.execute(
            delete(models.Service).where(models.Service.deleted_at < cutoff)
        )
    query = select(st.id).where(st.deleted_at < cutoff)
    if project_id:
        query = query.where(st.tenant == project_id)
    with db.transaction() as session:
        ids = list(session.scalars(query))
    for start in range(0, len(ids), batch):
        with db.transaction() as session:
            _purge_stacks(session, ids[start : start + batch])
    return len(ids)


def _tree(session: Session, stack_id: str, backups: bool = True) -> list[str]:
    ids, level = [stack_id], [stack_id]
    st = models.Stack
    while level:
        query = select(st.id).where(
            st.owner_id.in_(level), st.deleted_at.is_(None)
        )
        if not backups:
            query = query.where(or_(st.backup.is_(None), ~st.backup))
        level = list(session.scalars(query))
        ids.extend(level)
    return ids


def reset_stack_status(db: Database, stack_id: str) -> list[str]:
    """Reset a stuck stack tree; returns the ids of the stacks visited.

    :raises exceptions.NotFound: no such stack.
    """
    res, st = models.Resource, models.Stack
    with db.transaction() as session:
        if session.get(st, stack_id) is None:
            raise exceptions.NotFound(f"Stack with id {stack_id} not found")
        ids = _tree(session, stack_id)
        session.execute(
            update(res)
            .where(res.stack_id.in_(ids), res.status == "IN_PROGRESS")
            .values(
                status="FAILED",
                status_reason=RESET_REASON,
                engine_id=None,
                updated_at=models.utcnow(),
            )
        )
        hooks = select(res.id).where(res.stack_id.in_(ids))
        session.execute(
            delete(models.ResourceData).where(
                models.ResourceData.resource_id.in_(hooks),
                models.ResourceData.key.in_(HOOK_TYPES),
            )
        )
        session.execute(
            update(st)
            .where(st.id.in_(ids), st.status == "IN_PROGRESS")
            .values(status="FAILED", status_reason=RESET_REASON)
        )
        session.execute(
            delete(models.StackLock).where(models.StackLock.stack_id.in_(ids))
        )
    return ids


class NotComplete(exceptions.DBError):
    """Heat's ``ActionNotComplete``: a stack of the tree is not COMPLETE."""

    def __init__(self, stack_name: str | None, action: str | None) -> None:
        self.stack_name, self.action = stack_name, action
        super().__init__(
            f"Stack {stack_name} has an action ({action}) in progress or "
            "failed state."
        )


class NestedMigration(exceptions.DBError):
    """A nested stack migrates with its root only (Heat's NotSupported)."""

    def __init__(self, stack_id: str) -> None:
        super().__init__(f"Migration of nested stack {stack_id}")


class StackLocked(exceptions.DBError):
    """Heat's ``ActionInProgress``: a live engine holds a stack's lock."""

    def __init__(self, stack_name: str | None, action: str | None) -> None:
        self.stack_name, self.action = stack_name, action
        super().__init__(
            f"Stack {stack_name} already has an action ({action}) in progress."
        )


#: ``(stack id, stored template) -> {resource name: names it needs}``
DependencyFunc = Callable[[str, Any], Mapping[str, Iterable[str]]]


def _migrate_one(
    session: Session,
    row: models.Stack,
    deps: Mapping[str, Iterable[str]],
) -> None:
    res = models.Resource
    rows = session.scalars(
        select(res).where(
            res.stack_id == row.id,
            ~((res.action == "DELETE") & (res.status == "COMPLETE")),
        )
    ).all()
    by_name = {r.name: r.id for r in rows}
    for rsrc in rows:
        wanted = deps.get(rsrc.name or "")
        if wanted is None:
            resource_repo.delete_in_session(session, [rsrc.id])
            continue
        needs = {by_name[n] for n in wanted if n in by_name}
        rsrc.current_template_id = row.raw_template_id
        rsrc.requires = sorted(needs, reverse=True)
    prev = row.prev_raw_template_id
    row.current_traversal = str(uuid.uuid4())
    row.convergence = True
    row.prev_raw_template_id = None
    session.flush()
    if prev is not None:
        raw_template.delete_in_session(
            session,
            _unreferenced(
                session,
                {prev},
                models.Stack.raw_template_id,
                models.Stack.prev_raw_template_id,
                res.current_template_id,
            ),
        )


def _lock(
    db: Database,
    stack: tuple[str, str | None, str | None],
    engine_id: str,
    is_alive: Callable[[str], bool] | None,
) -> None:
    """Take the lock of ``(id, name, action)``, stealing it from a dead
    engine (when ``is_alive`` can tell) as Heat's ``StackLock.acquire``
    does."""
    sid, name, action = stack
    holder = stack_lock.create(db, sid, engine_id)
    if holder is None:
        return
    if holder == engine_id or is_alive is None or is_alive(holder):
        raise StackLocked(name, action)
    if stack_lock.steal(db, sid, holder, engine_id) is not None:
        raise StackLocked(name, action)


def migrate_convergence(
    db: Database,
    stack_id: str,
    dependencies: DependencyFunc,
    engine_id: str | None = None,
    is_alive: Callable[[str], bool] | None = None,
) -> bool:
    """Make a legacy stack tree a convergence one (Heat's
    ``migrate_convergence_1``).

    Every non-backup stack of the tree is locked; then, in one
    transaction, each legacy stack's live resources get the stack's
    template as ``current_template_id`` and the ids of what they need as
    ``requires`` (rows the template lost are deleted), the stack gets a
    new traversal id, ``convergence`` and no previous template (which is
    deleted). Sync points are made by the next traversal.

    :param dependencies: ``(stack id, stored template) -> {resource name:
        names it depends on}``; resources missing from it are deleted.
    :param is_alive: tells whether the engine holding a lock lives; a
        dead engine's lock is stolen. Without it any lock refuses.
    :returns: ``False`` when the stack already was a convergence stack.
    :raises NestedMigration: ``stack_id`` is a nested stack.
    :raises NotComplete: some stack of the tree is not COMPLETE.
    :raises StackLocked: a stack of the tree is locked.
    :raises exceptions.NotFound: no such live stack.
    """
    engine_id = engine_id or str(uuid.uuid4())
    st = models.Stack
    with db.transaction() as session:
        root = session.get(st, stack_id)
        if root is None or root.deleted_at is not None:
            raise exceptions.NotFound(f"Stack with id {stack_id} not found")
        if root.owner_id is not None:
            raise NestedMigration(stack_id)
        if root.status != "COMPLETE":
            raise NotComplete(root.name, root.action)
        if root.convergence:
            return False
        ids = _tree(session, stack_id, backups=False)
        stacks = list(session.scalars(select(st).where(st.id.in_(ids))))
        for row in stacks:
            if row.status != "COMPLETE":
                raise NotComplete(row.name, row.action)
        legacy = {
            row.id: row.raw_template_id
            for row in stacks
            if not row.convergence
        }
        tree = [(row.id, row.name, row.action) for row in stacks]
        templates = {
            tmpl.id: tmpl.template
            for tmpl in session.scalars(
                select(models.RawTemplate).where(
                    models.RawTemplate.id.in_(set(legacy.values()))
                )
            )
        }
    locked: list[str] = []
    try:
        for item in tree:
            _lock(db, item, engine_id, is_alive)
            locked.append(item[0])
        plans = {
            sid: dependencies(sid, templates.get(tid) or {})
            for sid, tid in legacy.items()
        }
        with db.transaction() as session:
            rows = session.scalars(
                select(st).where(
                    st.id.in_(list(plans)),
                    or_(st.convergence.is_(None), ~st.convergence),
                )
            ).all()
            for row in rows:
                _migrate_one(session, row, plans[row.id])
    finally:
        for sid in locked:
            stack_lock.release(db, sid, engine_id)
    return True
