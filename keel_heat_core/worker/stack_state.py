"""Stack state changes a traversal makes (docs/design/engine.md,
"Completion, failure, rollback, cancel").

Every stack write of a traversal is guarded by its traversal id; a write
that misses means a newer traversal owns the stack.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.plugins import current_hooks
from keel_heat_core.worker.deps import WorkerDeps

LOG = logging.getLogger(__name__)

#: actions after whose failure rollback applies (unless disabled)
ROLLBACK_ACTIONS = frozenset({r.CREATE, r.ADOPT, r.UPDATE, r.RESTORE})


def stack_event(deps: WorkerDeps, ctxt: Any, stack: r.StackRow) -> None:
    """Record the stack's state as an event and send the notification."""
    deps.resources.add_event(
        r.EventRecord(
            stack_id=stack.id,
            resource_name=stack.name,
            physical_resource_id=stack.id,
            resource_type="OS::Heat::Stack",
            resource_action=stack.action,
            resource_status=stack.status,
            resource_status_reason=stack.status_reason[:255],
        )
    )
    deps.notifier.stack_state(ctxt, stack)


def set_state(
    deps: WorkerDeps,
    ctxt: Any,
    stack: r.StackRow,
    traversal: str,
    status: str,
    reason: str,
    **values: Any,
) -> bool:
    """Write ``<action>_<status>``; the event goes out even on a miss."""
    new = dataclasses.replace(stack, status=status, status_reason=reason)
    stack_event(deps, ctxt, new)
    values.update(status=status, status_reason=reason)
    if not deps.stacks.update_stack(stack.id, traversal, values):
        return False
    stack.status, stack.status_reason = status, reason
    for key, value in values.items():
        setattr(stack, key, value)
    if status != r.IN_PROGRESS:
        current_hooks().stack_post_operation(ctxt, stack, stack.action, status)
    return True


def timed_out(deps: WorkerDeps, stack: r.StackRow, grace: float = 0) -> bool:
    """True when the stack's action ran past its timeout (plus ``grace``
    seconds)."""
    start = stack.updated_at or stack.created_at
    if start is None:
        return False
    limit = stack.timeout * 60 if stack.timeout else deps.stack_action_timeout
    return (deps.now() - start).total_seconds() > limit + grace


def purge_deleted_rows(deps: WorkerDeps, stack_id: str) -> None:
    """Remove ``DELETE_COMPLETE`` rows left by the traversal (one
    transaction: a deleted stack of N rows is not N commits in a row)."""
    deps.resources.delete_finished(stack_id)


def _traversal_end(
    deps: WorkerDeps,
    ctxt: Any,
    stack: r.StackRow,
    traversal: str,
    status: str,
    reason: str,
) -> Callable[[], None]:
    """Run the end-of-traversal hook; returns what is left of it for
    after the final state is written."""
    if deps.on_traversal_end is None or stack.current_traversal != traversal:
        return _nothing
    try:
        later = deps.on_traversal_end(ctxt, stack, status, reason)
    except Exception:
        LOG.exception("End of traversal %s of %s", traversal, stack.id)
        return _nothing
    if later is None:
        return _nothing

    def run_later() -> None:
        try:
            later()
        except Exception:
            LOG.exception("After traversal %s of %s", traversal, stack.id)

    return run_later


def _nothing() -> None:
    return None


def wake_parent(deps: WorkerDeps, ctxt: Any, stack: r.StackRow) -> None:
    """A nested stack's state is final: wake the parent resource's poll
    in this engine and, by a fanout cast, in the others
    (:mod:`keel_heat_core.worker.wake`). A lost wake costs one poll."""
    if not stack.owner_id:
        return
    deps.waiters.wake(stack.id)
    finished = getattr(deps.caster, "stack_finished", None)
    if finished is None:
        return
    try:
        finished(ctxt, stack.id)
    except Exception:
        LOG.warning("Could not announce the end of stack %s", stack.id)


def mark_complete(
    deps: WorkerDeps, ctxt: Any, stack: r.StackRow, traversal: str
) -> bool:
    """The traversal finished: ``<ACTION>_COMPLETE`` and clean up."""
    reason = f"Stack {stack.action} completed successfully"
    # Purge first, so that nobody sees the stack COMPLETE with rows the
    # traversal deleted still in place (Heat purges just after).
    purge_deleted_rows(deps, stack.id)
    later = _traversal_end(deps, ctxt, stack, traversal, r.COMPLETE, reason)
    # one write: nobody reads DELETE_COMPLETE on a row not yet deleted
    values: dict[str, Any] = {"prev_raw_template_id": None}
    if stack.action == r.DELETE:
        values["deleted_at"] = deps.now()
    if not set_state(
        deps, ctxt, stack, traversal, r.COMPLETE, reason, **values
    ):
        later()
        return False
    deps.sync_points.delete_sync_points(stack.id, traversal)
    LOG.info("Stack %s %s complete", stack.id, stack.action)
    wake_parent(deps, ctxt, stack)
    later()
    return True


def mark_failed(
    deps: WorkerDeps, ctxt: Any, stack: r.StackRow, traversal: str, reason: str
) -> bool:
    """``<ACTION>_FAILED``, then rollback or stop the traversal.

    :returns: False when a newer traversal owns the stack.
    """
    if not set_state(deps, ctxt, stack, traversal, r.FAILED, reason):
        return False
    wake_parent(deps, ctxt, stack)
    _traversal_end(deps, ctxt, stack, traversal, r.FAILED, reason)()
    if stack.action in ROLLBACK_ACTIONS and not stack.disable_rollback:
        from keel_heat_core.worker.converge import rollback

        rollback(deps, ctxt, stack)
        return True
    deps.stacks.update_stack(stack.id, traversal, {"current_traversal": ""})
    deps.sync_points.delete_sync_points(stack.id, traversal)
    stack.current_traversal = ""
    return True
