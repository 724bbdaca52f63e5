"""Locks of nodes that gave up on the database (issue 37).

Every statement rides out a database outage shorter than ``[database]
db_retry_timeout``. A node whose statement still fails ends where it
was, possibly holding its row's lock: the engine is alive, so nobody
would take that lock from it. :class:`LostWrites` remembers such rows;
once the database is back, every resume pass of the engine fails each
of them (``<A>_FAILED``, "database unreachable") with a compare-and-swap
on this engine and the row's ``atomic_key``, and then their stack if
the traversal is still running: an outage longer than the window fails
the stack, it never leaves it IN_PROGRESS nor a resource locked, also
when the stack was failed meanwhile by another node.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.worker import stack_state
from keel_heat_core.worker.deps import WorkerDeps

LOG = logging.getLogger(__name__)


class LostWrites:
    """Rows whose last node here gave up on the database, and why."""

    def __init__(self) -> None:
        self._rows: dict[int, str] = {}
        self._lock = threading.Lock()

    def note(self, resource_id: int, reason: str) -> None:
        """A node of ``resource_id`` gave up with ``reason``."""
        with self._lock:
            self._rows[resource_id] = reason

    def forget(self, resource_id: int) -> None:
        """A node of ``resource_id`` starts again (or was dealt with)."""
        with self._lock:
            self._rows.pop(resource_id, None)

    def reason(self, resource_id: int) -> str | None:
        """Why the last node of ``resource_id`` gave up, if it did."""
        with self._lock:
            return self._rows.get(resource_id)

    def release(
        self,
        deps: WorkerDeps,
        ctxt: Any,
        working_on: Callable[[int], bool] | None = None,
    ) -> int:
        """Fail the rows still locked by this engine and their stacks.

        :returns: how many rows were failed.
        """
        with self._lock:
            lost = dict(self._rows)
        failed = 0
        for resource_id, why in sorted(lost.items()):
            if working_on is not None and working_on(resource_id):
                continue
            if self._fail(deps, ctxt, resource_id, why):
                failed += 1
        return failed

    def _fail(
        self, deps: WorkerDeps, ctxt: Any, resource_id: int, why: str
    ) -> bool:
        row = deps.resources.get_resource(resource_id)
        if row is None or row.engine_id != deps.engine_id:
            self.forget(resource_id)
            return False
        action = row.action if row.action != r.INIT else r.CREATE
        reason = f"Resource {action} failed: database unreachable: {why}"
        event = r.EventRecord(
            row.stack_id,
            row.name,
            row.physical_id,
            "",
            action,
            r.FAILED,
            reason,
        )
        values = {"engine_id": None, "action": action, "status": r.FAILED}
        values["status_reason"] = reason
        if not deps.resources.cas_update(
            resource_id, deps.engine_id, row.atomic_key, values, [event]
        ):
            return False  # a node took it meanwhile; next pass looks again
        self.forget(resource_id)
        LOG.info("Failed resource %s: %s", resource_id, reason)
        stack = deps.stacks.get_stack(row.stack_id)
        if (
            stack is not None
            and stack.status == r.IN_PROGRESS
            and stack.current_traversal
        ):
            stack_state.mark_failed(
                deps, ctxt, stack, stack.current_traversal, reason
            )
        return True
