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
  made no progress (same sync point keys) across two consecutive runs:
  its cast was lost, or it is still queued and the re-cast is a harmless
  duplicate;
* a node whose row is locked by a live engine is left alone.

Re-driving is safe because node work is idempotent (see
``docs/design/resume.md``).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from keel_heat_core.convergence.node import Node
from keel_heat_core.convergence.sync_point import entity_id_of, pending_nodes
from keel_heat_core.worker.deps import WorkerDeps

LOG = logging.getLogger(__name__)


class Resumer:
    """Finds and re-drives stalled traversals.

    :param deps: this engine's collaborators.
    """

    def __init__(self, deps: WorkerDeps) -> None:
        self.deps = deps
        self._seen: dict[str, tuple[str, frozenset[tuple[str, int]]]] = {}
        self._lock = threading.Lock()

    def run_once(self, ctxt: Any = None) -> list[Node]:
        """One pass over IN_PROGRESS stacks; returns the nodes re-cast."""
        recast: list[Node] = []
        live: set[str] = set()
        alive: dict[str, bool] = {}  # one probe per engine and pass
        for stack in self.deps.stacks.list_in_progress():
            if not stack.current_traversal or not stack.current_deps:
                continue
            live.add(stack.id)
            recast.extend(self._resume_stack(ctxt, stack, alive))
        with self._lock:
            for stack_id in set(self._seen) - live:
                del self._seen[stack_id]
        return recast

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
                    continue  # running here
                if self._is_alive(holder, alive):
                    continue
            elif not stalled:
                continue
            point = by_key.get((entity_id_of(node), node.is_update))
            data = {"input_data": dict(point.input_data) if point else {}}
            target = row.id if row is not None else node.entity_id
            LOG.info(
                "Resuming node %s of stack %s traversal %s",
                node,
                stack.id,
                traversal,
            )
            deps.caster.check_resource(
                ctxt, target, traversal, data, node.is_update
            )
            recast.append(node)
        return recast
