"""Getting a traversal going again after something went wrong.

The parts of ``check_resource`` that deal with other traversals and other
engines: re-triggering a node into the newest traversal, messages of
superseded traversals, failing the stack, and contention on the resource
lock (stealing the locks of dead engines, yielding to live ones).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from keel_heat_core.convergence import sync_point
from keel_heat_core.convergence.node import Node, cleanup_node, update_node
from keel_heat_core.convergence.traversal import retrigger_key
from keel_heat_core.model import rows as r
from keel_heat_core.model.node_data import NodeDataView, node_data_by_name
from keel_heat_core.plugin_api import protocol as lifecycle
from keel_heat_core.plugins import current_hooks
from keel_heat_core.worker import stack_state
from keel_heat_core.worker.deps import WorkerDeps
from keel_heat_core.worker.lost_writes import LostWrites

LOG = logging.getLogger(__name__)


class NodeRecovery:
    """Re-triggering, stale messages, failures and lock contention.

    :param deps: the engine's collaborators.
    """

    def __init__(self, deps: WorkerDeps) -> None:
        self.deps = deps
        #: rows whose node here gave up on the database (resume fails them)
        self.lost_writes = LostWrites()

    @contextlib.contextmanager
    def lost_database(self, resource_id: int) -> Iterator[None]:
        """Note a node of ``resource_id`` that gave up on the database
        (:mod:`keel_heat_core.worker.lost_writes`)."""
        self.lost_writes.forget(resource_id)
        try:
            yield
        except Exception as exc:
            # a lost database past the window; a deadlock that outlasted
            # its retries is re-driven as before (the resume pass)
            if any(
                cls.__name__ == "DBConnectionError"
                for cls in type(exc).__mro__
            ):
                reason = str(exc).splitlines()[0] if str(exc) else repr(exc)
                self.lost_writes.note(resource_id, reason)
            raise

    def _cast(
        self,
        ctxt: Any,
        traversal: str,
        ready: sync_point.Ready,
        abandon: bool = False,
        adopt_stack_data: Any = None,
    ) -> None:
        node = ready.node
        assert node is not None
        self.deps.caster.check_resource(
            ctxt,
            node.entity_id,
            traversal,
            {"input_data": ready.input_data},
            node.is_update,
            adopt_stack_data=adopt_stack_data,
            skip_propagate=ready.skip_propagate,
            accumulated_failures=ready.resource_failures or None,
            node_type=node.node_type,
            abandon=abandon,
        )

    def _stack_with_graph(
        self, stack_id: str, attempts: int = 50
    ) -> r.StackRow | None:
        """The stack once its current traversal's graph is stored.

        A new traversal stores its graph just after its id; wait a little
        for it (resume covers the rest).
        """
        for _ in range(attempts):
            stack = self.deps.stacks.get_stack(stack_id)
            if stack is None or not stack.current_traversal:
                return None
            if stack.current_deps:
                return stack
            self.deps.sleep(0.1)
        return None

    def _retrigger_latest(self, ctxt: Any, stack_id: str, row_id: int) -> None:
        """Re-enter the row into whatever traversal is now current."""
        stack = self._stack_with_graph(stack_id)
        if stack is None:
            return
        graph = self.deps.cache.graph(stack)
        key = retrigger_key(graph, row_id)
        if key is None:
            self._drop_late_replacement(ctxt, stack, row_id)
            return
        try:
            ready = sync_point.retrigger(
                self.deps.sync_points,
                graph,
                stack.current_traversal,
                key,
                self.deps.sleep,
            )
        except sync_point.SyncPointNotFound:
            return
        if ready is not None:
            self._cast(ctxt, stack.current_traversal, ready)

    def _drop_late_replacement(
        self, ctxt: Any, stack: r.StackRow, row_id: int
    ) -> None:
        """A row the current traversal does not know (overridden by
        :class:`~keel_heat_core.worker.check_resource.CheckResource`,
        which can delete it)."""

    # -- failure paths --------------------------------------------------------

    def _failed(
        self,
        ctxt: Any,
        stack: r.StackRow,
        traversal: str,
        node: Node,
        reason: str,
    ) -> None:
        if not stack_state.mark_failed(
            self.deps, ctxt, stack, traversal, reason
        ):
            self._retrigger_latest(ctxt, stack.id, int(node.entity_id))

    def _stale(self, ctxt: Any, row: r.ResourceRow, stack: r.StackRow) -> None:
        """A message of a superseded traversal: the row it replaced
        is triggered again (docs/design/engine.md, "One node")."""
        if row.replaces is None:
            return
        latest = self._stack_with_graph(stack.id)
        if latest is None:
            return
        graph = self.deps.cache.graph(latest)
        if update_node(row.id) in graph or cleanup_node(row.id) in graph:
            return
        self.deps.resources.update_resource(row.id, {"action": r.DELETE})
        self._retrigger_latest(ctxt, stack.id, row.replaces)

    def _contended(
        self,
        ctxt: Any,
        row: r.ResourceRow,
        stack: r.StackRow,
        data: dict[str, Any],
        is_update: bool,
    ) -> None:
        """The row is locked: steal from the dead, yield to the living."""
        deps = self.deps
        state = deps.resources.read_lock(row.id)
        if state is None:
            return
        holder = state.engine_id
        if holder is None:
            if state.current_template_id == row.current_template_id:
                self._recast(ctxt, row.id, stack, data, is_update)
            return
        if holder != deps.engine_id and not deps.liveness.is_alive(holder):
            self._steal(ctxt, row, stack, data, is_update, state)
            return
        LOG.debug("Resource %s busy in another traversal; dropping", row.id)
        current_hooks().resource_lock_conflict(
            ctxt, stack.id, row.name, holder
        )
        self._preempt(stack, row, data)

    def _steal(
        self,
        ctxt: Any,
        row: r.ResourceRow,
        stack: r.StackRow,
        data: dict[str, Any],
        is_update: bool,
        state: Any,
    ) -> None:
        """Take the lock of a dead engine over, once.

        One compare-and-swap on the dead holder and the ``atomic_key``
        just read: when several engines resume the same node at once
        (every engine restarted after a crash), one of them fails the row
        and re-casts the node; the others miss and drop their message.
        """
        deps = self.deps
        # the dead engine may have recorded a physical id since ``row``
        # was read: the event names it, for whoever cleans it up
        fresh = deps.resources.get_resource(row.id)
        if fresh is None or fresh.engine_id != state.engine_id:
            return
        row = fresh
        action = row.action if row.action != r.INIT else r.CREATE
        reason = f"Worker went down during resource {action}"
        event = r.EventRecord(
            stack.id, row.name, row.physical_id, "", action, r.FAILED, reason
        )
        values = {"action": action, "status": r.FAILED}
        values["status_reason"] = reason
        if not deps.resources.cas_update(
            row.id,
            state.engine_id,
            state.atomic_key,
            {**values, "engine_id": None},
            [event],
        ):
            LOG.debug("Lock of %s taken over by another engine", row.id)
            return
        LOG.info(
            "Stole lock of %s from dead engine %s", row.id, state.engine_id
        )
        self._recast(ctxt, row.id, stack, data, is_update)

    def _preempt(
        self, stack: r.StackRow, row: r.ResourceRow, data: dict[str, Any]
    ) -> None:
        """Ask the resource to end the action of the older traversal.

        The holder of the lock re-triggers the node when it finishes; a
        resource that waits for a nested stack would only finish when
        that stack's traversal does, so its ``handle_preempt`` cancels
        that traversal (without rollback) and the newer one goes on.
        """
        if (
            row.updated_at is not None
            and stack.updated_at is not None
            and row.updated_at > stack.updated_at
        ):
            return  # the holder started after this traversal: it is ours
        deps = self.deps
        template_id = stack.raw_template_id
        definition = deps.cache.definitions(
            deps.templates, template_id, stack
        ).get(row.name)
        if definition is None and row.current_template_id is not None:
            definition = deps.cache.definitions(
                deps.templates, row.current_template_id, stack
            ).get(row.name)
        if definition is None:
            return
        input_data = (data or {}).get("input_data") or {}
        try:
            props = definition.resolve_properties(
                NodeDataView(node_data_by_name(input_data))
            )
            plugin = deps.plugins(definition, row, props, stack)
            if lifecycle.preemptible(plugin):
                plugin.handle_preempt()
        except Exception:  # the newer traversal must not fail for it
            LOG.exception("Pre-empting the action on %s failed", row.id)

    def _recast(
        self,
        ctxt: Any,
        row_id: int,
        stack: r.StackRow,
        data: dict[str, Any],
        is_update: bool,
    ) -> None:
        self.deps.caster.check_resource(
            ctxt, row_id, stack.current_traversal, data, is_update
        )
