"""Automatic resume of traversals that lost a node (issue #6).

Heat leaves a stack IN_PROGRESS forever when a ``check_resource`` cast is
lost (an engine died holding it, or the broker dropped it). Every engine
runs :class:`Resumer` periodically and at start-up. The traversal state
is entirely in the database, so any engine can tell which nodes were
triggered and never finished (:func:`~keel_heat_core.convergence.
sync_point.pending_nodes`) and re-cast them:

* a pending node whose row is locked by an engine that does not answer
  the listening probe is re-cast at once (the worker steals the lock);
* a pending node whose row is unlocked is re-cast when the traversal has
  made no progress (same sync point keys) across two consecutive runs and
  no node of that row runs in this engine: its cast was lost, or it is
  still queued (or slow in another engine) and the re-cast is a harmless
  duplicate;
* a node whose row is locked by a live engine is left alone;
* a stack whose timeout passed (plus :data:`TIMEOUT_GRACE`) is failed
  with ``Timed out``, as a node would fail it: no node may be running to
  notice (all of them lost, the graph never stored, or a node stuck in a
  plugin call outside the ``check_<action>_complete`` loop, which is the
  only place a running node watches the clock).

Re-driving is safe because node work is idempotent (see
``docs/design/resume.md``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from keel_heat_core.convergence.node import Node
from keel_heat_core.convergence.sync_point import (
    entity_id_of,
    pending_nodes,
    present,
)
from keel_heat_core.model import rows as r
from keel_heat_core.plugins import current_hooks
from keel_heat_core.worker import hooks, stack_state
from keel_heat_core.worker.deps import WorkerDeps
from keel_heat_core.worker.lost_writes import LostWrites

LOG = logging.getLogger(__name__)

#: seconds past a stack's timeout before a resume pass fails it; a node
#: polling a resource when the time runs out fails the stack itself within
#: a poll, and its failure (resource and stack) is the more precise one
TIMEOUT_GRACE = 5.0


class Resumer:
    """Finds and re-drives stalled traversals.

    :param deps: this engine's collaborators.
    :param working_on: whether a node of a row runs in this engine now
        (:meth:`CheckResource.working_on`); without it, every lock of this
        engine is taken as being worked on.
    :param timeout_grace: see :data:`TIMEOUT_GRACE`.
    :param lost_writes: rows whose node here gave up on the database;
        each pass fails them first (:class:`LostWrites`).
    """

    def __init__(
        self,
        deps: WorkerDeps,
        working_on: Callable[[int], bool] | None = None,
        timeout_grace: float = TIMEOUT_GRACE,
        lost_writes: LostWrites | None = None,
    ) -> None:
        self.deps = deps
        self._working_on = working_on
        self._lost_writes = lost_writes
        self.timeout_grace = timeout_grace
        self._seen: dict[str, tuple[str, frozenset[tuple[str, int]]]] = {}
        self._lock = threading.Lock()

    def run_once(self, ctxt: Any = None) -> list[Node]:
        """One pass over IN_PROGRESS stacks; returns the nodes re-cast."""
        if self._lost_writes is not None:
            self._lost_writes.release(self.deps, ctxt, self._working_on)
        recast: list[Node] = []
        live: set[str] = set()
        alive: dict[str, bool] = {}  # one probe per engine and pass
        for stack in self.deps.stacks.list_in_progress():
            if not stack.current_traversal:
                continue
            if self._time_out(ctxt, stack):
                continue
            if not stack.current_deps:
                continue
            live.add(stack.id)
            recast.extend(self._resume_stack(ctxt, stack, alive))
        with self._lock:
            for stack_id in set(self._seen) - live:
                del self._seen[stack_id]
        return recast

    def _time_out(self, ctxt: Any, stack: Any) -> bool:
        """Fail a stack whose time ran out; True when it did.

        The write is guarded by the traversal id (a new action started
        meanwhile wins); rollback follows as after any failure.
        """
        if not stack_state.timed_out(self.deps, stack, self.timeout_grace):
            return False
        LOG.info(
            "Stack %s traversal %s ran past its timeout",
            stack.id,
            stack.current_traversal,
        )
        stack_state.mark_failed(
            self.deps, ctxt, stack, stack.current_traversal, "Timed out"
        )
        return True

    def _finish(
        self, ctxt: Any, stack: Any, graph: Any, stack_point: Any
    ) -> None:
        """Complete a traversal whose every node finished.

        The engine that completed the stack's sync point may die (or lose
        its database connection) before it writes the stack's final
        state: no node is pending then, and only this finishes the stack.
        """
        if stack_point is None or stack.action == r.CHECK:
            return  # CHECK failures are collected by the last node only
        roots = {n for n in graph.nodes() if not graph.required_by(n)}
        if not roots <= present(stack_point.input_data):
            return
        LOG.info(
            "Completing stack %s: traversal %s has no node left",
            stack.id,
            stack.current_traversal,
        )
        stack_state.mark_complete(
            self.deps, ctxt, stack, stack.current_traversal
        )

    def _release_own(self, stack: Any, row: Any) -> bool:
        """Release a lock of this engine that no node here works on.

        That happens when a write failed between taking the lock and
        releasing it (a database connection died): the worker gave up,
        the engine is alive, so nobody else would ever take the lock.
        The row is failed as a dead engine's would be (one CAS on this
        engine and the row's ``atomic_key``: a node that took or released
        the lock since the row was read wins).
        """
        if self._working_on is None or self._working_on(row.id):
            return False
        action = row.action if row.action != r.INIT else r.CREATE
        reason = f"Worker went down during resource {action}"
        values = {
            "engine_id": None,
            "action": action,
            "status": r.FAILED,
            "status_reason": reason,
        }
        if not self.deps.resources.cas_update(
            row.id, self.deps.engine_id, row.atomic_key, values
        ):
            return False
        LOG.info("Released the abandoned lock of resource %s", row.id)
        self.deps.resources.add_event(
            r.EventRecord(
                stack.id, row.name, row.physical_id, "", action, r.FAILED,
                reason,
            )
        )  # fmt: skip
        return True

    def _runs_here(self, node: Node, row: Any) -> bool:
        """A node of this row runs in this engine (an unlocked row: it is
        past its action, resolving attributes or propagating)."""
        if self._working_on is None:
            return False
        ids = {int(node.entity_id)} | ({row.id} if row is not None else set())
        return any(self._working_on(i) for i in ids)

    def _parked(self, stack: Any, row: Any) -> bool:
        """The node waits at a hook for a signal (``worker/hooks.py``)."""
        read = getattr(self.deps.resources, "resource_data", None)
        if row is None or read is None:
            return False
        return hooks.is_parked(read(row.id), stack.current_traversal)

    def _is_alive(self, engine_id: str, alive: dict[str, bool]) -> bool:
        """The listener probe, asked once per engine in a pass."""
        if engine_id not in alive:
            alive[engine_id] = self.deps.liveness.is_alive(engine_id)
        return alive[engine_id]

    def _resume_stack(
        self, ctxt: Any, stack: Any, alive: dict[str, bool]
    ) -> list[Node]:
        deps = self.deps
        traversal = stack.current_traversal
        rows = deps.sync_points.list_sync_points(stack.id, traversal)
        progress = frozenset(
            (f"{r.entity_id}/{r.is_update}", r.atomic_key) for r in rows
        )
        with self._lock:
            stalled = self._seen.get(stack.id) == (traversal, progress)
            self._seen[stack.id] = (traversal, progress)
        graph = deps.cache.graph(stack)
        by_key = {(r.entity_id, r.is_update): r for r in rows}
        pending = pending_nodes(graph, rows, stack.id)
        if not pending and stalled:
            self._finish(ctxt, stack, graph, by_key.get((stack.id, True)))
            return []
        # one query for every row of the stack, not one per pending node
        resources = (
            {x.id: x for x in deps.resources.get_resources(stack.id)}
            if pending
            else {}
        )
        recast = []
        for node in pending:
            if not node.is_resource:
                continue
            row = resources.get(int(node.entity_id))
            if row is not None and row.replaced_by is not None:
                replacement = resources.get(row.replaced_by)
                if replacement is not None and node.is_update:
                    row = replacement  # the node was handed over
            holder = row.engine_id if row is not None else None
            if holder is not None:
                if holder == deps.engine_id:
                    assert row is not None
                    if not self._release_own(stack, row):
                        continue  # running here
                elif self._is_alive(holder, alive):
                    continue
            elif (
                not stalled
                or self._runs_here(node, row)
                or self._parked(stack, row)
            ):
                continue  # progress, slow here, or parked at a hook
            point = by_key.get((entity_id_of(node), node.is_update))
            data = {"input_data": dict(point.input_data) if point else {}}
            target = row.id if row is not None else node.entity_id
            LOG.info(
                "Resuming node %s of stack %s traversal %s",
                node,
                stack.id,
                traversal,
            )
            current_hooks().traversal_resume(
                ctxt,
                stack.id,
                traversal,
                "engine_down" if holder else "stalled",
            )
            deps.caster.check_resource(
                ctxt, target, traversal, data, node.is_update
            )
            recast.append(node)
        return recast
