"""One traversal node: ``check_resource`` (docs/design/engine.md).

:class:`CheckResource` is what the ``engine_worker`` endpoint calls for
every cast. The node work is idempotent, so a node may be re-driven after
an engine died (``docs/design/resume.md``): a create or update finds the
row already converged and only rewrites ``current_template_id``; a
cleanup finds the row gone or already of the traversal template; the
propagation does not fire a successor twice.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from typing import Any

from keel_heat_core.convergence import sync_point
from keel_heat_core.convergence.node import Node, cleanup_node
from keel_heat_core.convergence.store import ReadAhead
from keel_heat_core.exception import RunLost, UpdateReplace
from keel_heat_core.graph import Graph
from keel_heat_core.model import rows as r
from keel_heat_core.model.node_data import (
    NodeData,
    NodeDataView,
    node_data_by_name,
)
from keel_heat_core.model.resource_facade import parent_facade
from keel_heat_core.worker import external, hooks, stack_state
from keel_heat_core.worker.action import ActionCancelled, ActionTimeout
from keel_heat_core.worker.cleanup_run import CleanupRun
from keel_heat_core.worker.commit_line import LineCommits, Step
from keel_heat_core.worker.deps import WorkerDeps
from keel_heat_core.worker.handoff import Handoff, node_values
from keel_heat_core.worker.lock import UpdateInProgress
from keel_heat_core.worker.recovery import NodeRecovery
from keel_heat_core.worker.resource import (
    ConvergenceResource,
    ResourceActionFailed,
)
from keel_heat_core.worker.wake import cancel_key

LOG = logging.getLogger(__name__)


class PropertiesUnresolved(Exception):
    """A resource's properties failed to resolve before its action."""


class _Replaced(Exception):  # noqa: N818 - control flow, never escapes
    """The node handed over to a replacement row."""


class _Continuation(threading.local):
    """Per thread: inside a ``check_resource`` call, the node it runs
    next instead of casting it, and that node's first read if its
    predecessor made it (``ReadAhead``)."""

    driving = False
    #: ``(ctxt, resource id, args, kw, its first read or None)``
    next: tuple[Any, int, tuple[Any, ...], dict[str, Any], Any] | None = None
    #: the first read of the node about to run (taken from ``next``)
    read: tuple[r.ResourceRow, r.StackRow | None] | None = None


class CheckResource(NodeRecovery):
    """Runs check_resource casts for one engine.

    :param deps: the engine's collaborators.
    """

    def __init__(self, deps: WorkerDeps) -> None:
        super().__init__(deps)
        self._cancels: dict[str, set[threading.Event]] = {}
        self._lock = threading.Lock()
        self._working: dict[int, int] = {}
        self._local = _Continuation()

    # -- cancellation (cancel_check_resource, stop_stack) ------------------

    def cancel_stack(self, stack_id: str) -> int:
        """Abort this engine's running operations on ``stack_id``."""
        with self._lock:
            events = list(self._cancels.get(stack_id, ()))
        for event in events:
            event.set()
        # a resource waiting for its nested stack pauses on its own event
        self.deps.waiters.wake(cancel_key(stack_id))
        return len(events)

    def stack_finished(self, stack_id: str) -> None:
        """A stack's traversal ended: wake the resources here waiting for
        it (:mod:`keel_heat_core.worker.wake`)."""
        self.deps.waiters.wake(stack_id)

    def _register(self, stack_id: str) -> threading.Event:
        event = threading.Event()
        with self._lock:
            self._cancels.setdefault(stack_id, set()).add(event)
        return event

    def _unregister(self, stack_id: str, event: threading.Event) -> None:
        with self._lock:
            self._cancels.get(stack_id, set()).discard(event)

    # -- the node ------------------------------------------------------------

    def __call__(
        self, ctxt: Any, resource_id: int, *args: Any, **kw: Any
    ) -> None:
        """Process one node (:meth:`check`), noting which row is worked on
        here (:meth:`working_on`, :meth:`lost_database`); then the
        successors it kept for this thread instead of casting them, their
        releases sharing commits (:class:`LineCommits`)."""
        local = self._local
        local.driving = True
        runs = LineCommits(self.deps.commits)
        step: Step | None = (ctxt, resource_id, args, kw, None)
        first = True
        try:
            while step is not None:
                ctxt, resource_id, args, kw, local.read = step
                try:
                    self._run_one(ctxt, resource_id, args, kw)
                except RunLost:
                    pass  # runs.after re-runs the lost releases' nodes
                except Exception:
                    if first:
                        raise
                    LOG.exception("check_resource %s failed", resource_id)
                first = False
                kept, local.next = local.next, None
                step = runs.after((ctxt, resource_id, args, kw, None), kept)
        finally:
            local.driving = False
            local.next = None
            local.read = None
            runs.stop()

    def _run_one(
        self,
        ctxt: Any,
        resource_id: int,
        args: tuple[Any, ...],
        kw: dict[str, Any],
    ) -> None:
        with self._lock:
            self._working[resource_id] = self._working.get(resource_id, 0) + 1
        try:
            with self.lost_database(resource_id):
                self.check(ctxt, resource_id, *args, **kw)
        finally:
            with self._lock:
                left = self._working.pop(resource_id) - 1
                if left:
                    self._working[resource_id] = left

    def may_keep(self) -> bool:
        """Whether a successor fired now may run next in this thread
        (:meth:`_keep`), none being kept yet."""
        local = self._local
        return bool(
            self.deps.run_successor_here
            and local.driving
            and local.next is None
        )

    def working_on(self, resource_id: int) -> bool:
        """True while a node of this row runs in this engine."""
        with self._lock:
            return resource_id in self._working

    def check(
        self,
        ctxt: Any,
        resource_id: int,
        current_traversal: str,
        data: dict[str, Any],
        is_update: bool,
        adopt_stack_data: Any = None,
        converge: bool = False,
        skip_propagate: bool = False,
        accumulated_failures: Any = None,
        node_type: str = "resource",
        abandon: bool = False,
    ) -> None:
        """Process one node; everything it causes goes out as casts."""
        deps = self.deps
        ahead, self._local.read = self._local.read, None
        row: r.ResourceRow | None
        if ahead is not None:
            row, stack = ahead  # read in the release of its predecessor
        else:
            row, stack = deps.stacks.get_resource_and_stack(resource_id)
        if row is None or stack is None:
            return
        if stack.current_traversal != current_traversal:
            self._stale(ctxt, row, stack)
            return
        graph = deps.cache.graph(stack)
        node = Node(resource_id, is_update)
        if node not in graph and row.replaces is not None:
            node = Node(row.replaces, is_update)  # impersonate the original
        if node not in graph:
            LOG.warning("Node %s is not in traversal %s", node, stack.id)
            return
        if stack_state.timed_out(deps, stack):
            self._failed(ctxt, stack, current_traversal, node, "Timed out")
            return
        input_data = (data or {}).get("input_data") or {}
        if skip_propagate and stack.action == r.CHECK:
            # a predecessor failed its CHECK: pass the news on, skip work
            self._propagate(
                ctxt,
                stack,
                graph,
                node,
                row,
                skip=True,
                carried=accumulated_failures,
            )
            return
        cancel = self._register(stack.id)
        rsrc = None
        handoff = None
        if (
            adopt_stack_data is None
            and not abandon
            and row.replaces is None
            and row.replaced_by is None
        ):
            handoff = Handoff(
                stack, graph, node, row, self._node_data, self.may_keep
            )
        try:
            if is_update:
                rsrc = self._update(
                    ctxt,
                    stack,
                    row,
                    input_data,
                    cancel,
                    adopt_stack_data,
                    handoff,
                )
                self._drop_replaced(stack, graph, row, cancel)
            else:
                self._cleanup(stack, row, cancel, abandon, handoff)
        except (_Replaced, hooks.Parked):
            return
        except UpdateInProgress:
            self._contended(ctxt, row, stack, data, is_update)
            return
        except ResourceActionFailed as exc:
            if stack.action == r.CHECK:
                # CHECK keeps going; the stack fails at the end, as Heat's
                self._propagate(
                    ctxt, stack, graph, node, row, failure=str(exc)
                )
                return
            reason = f"Resource {exc.action} failed: {exc}"
            self._failed(ctxt, stack, current_traversal, node, reason)
            return
        except ActionTimeout:
            self._failed(ctxt, stack, current_traversal, node, "Timed out")
            return
        except PropertiesUnresolved as exc:
            # The resource never started its action (it stays INIT); the
            # stack fails with the bare message, as Heat's convergence
            # engine words it.
            self._failed(ctxt, stack, current_traversal, node, str(exc))
            return
        except ActionCancelled:
            self._retrigger_latest(ctxt, stack.id, row.id)
            return
        finally:
            self._unregister(stack.id, cancel)
        self._propagate(
            ctxt,
            stack,
            graph,
            node,
            row,
            rsrc,
            abandon,
            adopt=adopt_stack_data,
            handoff=handoff,
        )

    # -- work -------------------------------------------------------------

    def _deadline(self, stack: r.StackRow) -> float:
        deps = self.deps
        start = stack.updated_at or stack.created_at or deps.now()
        limit = (
            stack.timeout * 60 if stack.timeout else deps.stack_action_timeout
        )
        left = limit - (deps.now() - start).total_seconds()
        return deps.clock() + max(left, 0.0)

    def _view(self, stack: r.StackRow, input_data: Any = None) -> NodeDataView:
        """A node's inputs, and the parent resource of resource_facade."""
        deps = self.deps
        return NodeDataView(
            node_data_by_name(input_data or {}),
            parent_facade(deps.stacks, deps.templates, deps.resources, stack),
        )

    def _resource(
        self,
        stack: r.StackRow,
        row: r.ResourceRow,
        template_id: int,
        view: Any,
        cleanup: bool = False,
    ) -> ConvergenceResource | None:
        """The resource of ``row``; a ``cleanup`` whose properties do not
        resolve uses the row's stored ones (Heat's frozen definition)."""
        deps = self.deps
        defs = deps.cache.definitions(deps.templates, template_id, stack)
        definition = defs.get(row.name)
        if definition is None:
            return None
        try:
            props = definition.resolve_properties(view)
        except Exception as exc:
            if not cleanup:
                raise
            LOG.info("%s cleaned up with its stored properties: %s", row, exc)
            props = dict(row.properties or {})
        return ConvergenceResource(
            row,
            definition,
            props,
            deps.resources,
            lambda d, rw, p: deps.plugins(d, rw, p, stack),
            deps.engine_id,
            deps.waiters,
        )

    def _update(
        self,
        ctxt: Any,
        stack: r.StackRow,
        row: r.ResourceRow,
        input_data: dict[str, Any],
        cancel: threading.Event,
        adopt_stack_data: Any = None,
        handoff: Handoff | None = None,
    ) -> ConvergenceResource | None:
        if stack.action == r.SUSPEND:
            return None
        if self._replaced_already(ctxt, stack, row, input_data):
            raise _Replaced()
        view = self._view(stack, input_data)
        try:
            rsrc = self._resource(stack, row, stack.raw_template_id, view)
        except Exception as exc:  # a function failing on real values
            raise PropertiesUnresolved(str(exc)) from exc
        assert rsrc is not None, "update node of a resource not in template"
        rsrc.handoff = handoff
        requires = [d.id for d in node_data_by_name(input_data).values()]
        deadline = self._deadline(stack)
        interval = self.deps.poll_interval
        if stack.action in (r.CHECK, r.RESUME, r.SNAPSHOT):
            rsrc.stack_action(stack.action, deadline, cancel, interval)
            return rsrc
        if row.action == r.INIT and adopt_stack_data:
            adopted = (adopt_stack_data.get("resources") or {}).get(row.name)
            rsrc.adopt(
                stack.raw_template_id,
                requires,
                dict(adopted or {}),
                deadline,
                cancel,
                interval,
            )
            return rsrc
        creating = stack.action == r.CREATE
        if row.action == r.INIT:
            if external.adopt_external(
                rsrc,
                stack.raw_template_id,
                requires,
                deadline,
                cancel,
                interval,
            ):
                return rsrc
            if creating:
                hooks.break_if_required(
                    rsrc, stack, r.CREATE, hooks.PRE_CREATE
                )
            rsrc.create(
                stack.raw_template_id, requires, deadline, cancel, interval
            )
            if creating:
                hooks.break_if_required(
                    rsrc, stack, r.CREATE, hooks.POST_CREATE
                )
            return rsrc
        old = None
        if row.current_template_id is not None:
            old_defs = self.deps.cache.definitions(
                self.deps.templates, row.current_template_id, stack
            )
            old = old_defs.get(row.name)
        if external.skip_update(rsrc, old, stack.raw_template_id, requires):
            return rsrc
        if creating:  # a create node re-run after its post-create pause
            hooks.break_if_required(rsrc, stack, r.CREATE, hooks.POST_CREATE)
        else:
            hooks.break_if_required(rsrc, stack, r.UPDATE, hooks.PRE_UPDATE)
        try:
            updated = rsrc.update(
                row.properties,
                old.resource_type if old is not None else None,
                stack.raw_template_id,
                requires,
                deadline,
                cancel,
                interval,
                old_definition=old,
            )
        except UpdateReplace:
            self._replace(ctxt, stack, rsrc, input_data, requires)
            raise _Replaced() from None
        if updated:
            hooks.break_if_required(rsrc, stack, r.UPDATE, hooks.POST_UPDATE)
        return rsrc

    def _replaced_already(
        self,
        ctxt: Any,
        stack: r.StackRow,
        row: r.ResourceRow,
        input_data: dict[str, Any],
    ) -> bool:
        """A re-driven node whose row this traversal replaced already.

        The node belongs to the replacement now: cast it there (a
        duplicate there is absorbed by its lock and its sync points).
        """
        if row.replaced_by is None:
            return False
        new = self.deps.resources.get_resource(row.replaced_by)
        if new is None or new.current_template_id != stack.raw_template_id:
            return False
        self.deps.caster.check_resource(
            ctxt,
            new.id,
            stack.current_traversal,
            {"input_data": input_data},
            True,
        )
        return True

    def _replace(
        self,
        ctxt: Any,
        stack: r.StackRow,
        rsrc: ConvergenceResource,
        input_data: dict[str, Any],
        requires: list[int],
    ) -> None:
        """``make_replacement`` then hand the node to the new row."""
        deps = self.deps
        new_id = deps.resources.insert_replacement(
            rsrc.row.id,
            rsrc.lock.state.atomic_key,
            r.ResourceRow(
                id=0,
                name=rsrc.name,
                stack_id=stack.id,
                current_template_id=stack.raw_template_id,
                requires=sorted(set(requires), reverse=True),
                replaces=rsrc.row.id,
                uuid=str(uuid.uuid4()),
                root_stack_id=rsrc.row.root_stack_id or stack.id,
                created_at=deps.now(),
            ),
        )
        if new_id is None:
            raise UpdateInProgress(rsrc.name)
        deps.caster.check_resource(
            ctxt,
            new_id,
            stack.current_traversal,
            {"input_data": input_data},
            True,
        )

    def _cleanup(
        self,
        stack: r.StackRow,
        row: r.ResourceRow,
        cancel: threading.Event,
        abandon: bool = False,
        handoff: Handoff | None = None,
    ) -> None:
        if stack.action in (r.CHECK, r.RESUME, r.SNAPSHOT):
            return
        if stack.action == r.SUSPEND:
            # suspension runs in reverse dependency order: cleanup nodes
            rsrc = self._resource(
                stack, row, stack.raw_template_id, self._view(stack), True
            )
            if rsrc is not None:
                rsrc.stack_action(
                    r.SUSPEND,
                    self._deadline(stack),
                    cancel,
                    self.deps.poll_interval,
                )
            return
        if (
            row.current_template_id == stack.raw_template_id
            and not self._superseded(stack, row)
        ):
            return
        template_id = row.current_template_id or stack.raw_template_id
        rsrc = self._resource(
            stack, row, template_id, self._view(stack), cleanup=True
        )
        if rsrc is None:
            self.deps.resources.delete_resource(row.id)
            return
        rsrc.handoff = handoff
        deleting = stack.action == r.DELETE and not abandon
        if row.action == r.DELETE and row.status == r.COMPLETE:
            if deleting:  # a cleanup re-run after its post-delete pause
                hooks.break_if_required(
                    rsrc, stack, r.DELETE, hooks.POST_DELETE
                )
            return
        if deleting and row.action != r.INIT:
            hooks.break_if_required(rsrc, stack, r.DELETE, hooks.PRE_DELETE)
        rsrc.delete(
            self._deadline(stack),
            cancel,
            self.deps.poll_interval,
            retain=abandon,
        )
        if deleting and row.action == r.DELETE:
            hooks.break_if_required(rsrc, stack, r.DELETE, hooks.POST_DELETE)
        if row.replaced_by is not None:
            new = self.deps.resources.get_resource(row.replaced_by)
            if new and new.replaces == row.id:  # the old row is gone
                self.deps.resources.update_resource(new.id, {"replaces": None})

    def _drop_replaced(
        self,
        stack: r.StackRow,
        graph: Graph[Node],
        row: r.ResourceRow,
        cancel: threading.Event,
    ) -> None:
        """Delete the row this one replaced when no cleanup node will.

        A row replaced inside the traversal that created it (a node
        re-driven after its engine died) has no cleanup node of its own.
        """
        if row.replaces is None or cleanup_node(row.replaces) in graph:
            return
        old = self.deps.resources.get_resource(row.replaces)
        if old is not None and self._superseded(stack, old):
            self._cleanup(stack, old, cancel)

    def _superseded(self, stack: r.StackRow, row: r.ResourceRow) -> bool:
        """A row of this template replaced by a row of this template too.

        That happens inside one traversal only when a node was re-driven
        after its engine died (the stolen row is FAILED and replaced,
        ``docs/design/resume.md``): the old row must go, or it would be
        left behind with its physical resource.
        """
        if row.replaced_by is None:
            return False
        new = self.deps.resources.get_resource(row.replaced_by)
        return (
            new is not None
            and new.current_template_id == stack.raw_template_id
        )

    # -- propagation ----------------------------------------------------------

    def _node_data(
        self, row: r.ResourceRow, rsrc: ConvergenceResource | None
    ) -> NodeData:
        if rsrc is None:
            fresh = self.deps.resources.get_resource(row.id) or row
            reference = fresh.physical_id or fresh.name
            attrs: dict[Any, Any] = {}
        else:
            fresh = rsrc.row
            reference = rsrc.reference_id()
            wanted = getattr(rsrc.definition, "referenced_attributes", None)
            attrs = rsrc.attributes_for(wanted() if wanted else set())
        return NodeData(
            id=fresh.id,
            name=fresh.name,
            uuid=fresh.uuid,
            reference_id=reference,
            attrs=attrs,
            action=fresh.action,
            status=fresh.status,
        )

    def _propagate(
        self,
        ctxt: Any,
        stack: r.StackRow,
        graph: Graph[Node],
        node: Node,
        row: r.ResourceRow,
        rsrc: ConvergenceResource | None = None,
        abandon: bool = False,
        failure: str | None = None,
        skip: bool = False,
        carried: dict[str, str] | None = None,
        adopt: Any = None,
        handoff: Handoff | None = None,
    ) -> None:
        deps = self.deps
        failures = dict(carried or {})
        if failure is not None:
            failures[row.name] = failure
        data = None
        if handoff is not None and handoff.data is not None:
            data = handoff.data  # what the release handed over already
        elif node.is_update:
            data = self._node_data(row, rsrc).as_dict()
        ahead = handoff.ahead if handoff is not None else None
        own_ahead = None
        if (ahead is None or ahead.found is None) and adopt is None:
            # nothing read in a release: read with the read and swap
            own_ahead = self._ahead_of(graph, node, stack.current_traversal)
            ahead = own_ahead or ahead
        try:
            fired, done = sync_point.propagate(
                deps.sync_points,
                graph,
                stack.id,
                stack.current_traversal,
                node,
                node_values(node, row, data),
                new_failures=failures or None,
                skip_propagate=skip or failure is not None,
                sleep=deps.sleep,
                deliver=self._deliver,
                delivered=handoff.writes if handoff is not None else (),
                ahead=own_ahead,
            )
        except sync_point.SyncPointNotFound:
            self._retrigger_latest(ctxt, stack.id, row.id)
            return
        if own_ahead is not None and isinstance(own_ahead.follow, CleanupRun):
            fired, ahead = own_ahead.follow.substitute(fired, ahead)
        for ready in fired:
            kept = adopt is None and self._keep(
                ctxt, stack.current_traversal, ready, abandon, ahead
            )
            if not kept:
                self._cast(
                    ctxt, stack.current_traversal, ready, abandon, adopt
                )
        if done is not None and done.resource_failures:
            listed = "; ".join(
                f"{name}: {why}"
                for name, why in sorted(done.resource_failures.items())
            )
            stack_state.mark_failed(
                deps,
                ctxt,
                stack,
                stack.current_traversal,
                f"Resource CHECK failed: {listed}",
            )
        elif done is not None:
            stack_state.mark_complete(
                deps, ctxt, stack, stack.current_traversal
            )

    def _deliver(self, *args: Any, **kw: Any) -> Any:
        """``SyncCombiner.sync``, after this thread's open run committed
        (another thread may write the delivery)."""
        self.deps.commits.flush()
        return self.deps.combiner.sync(*args, **kw)

    def _ahead_of(
        self, graph: Graph[Node], node: Node, traversal_id: str
    ) -> ReadAhead | None:
        """The first read of a node's one successor, to make with the read
        and swap that fires it, when this thread would run it next (a
        cleanup with nothing to clean hands over no release); a cleanup
        successor with nothing to clean either goes on in that
        transaction (:class:`CleanupRun`)."""
        if not self.may_keep():
            return None
        succs = graph.required_by(node)  # one: its order does not matter
        if len(succs) != 1 or succs[0].node_type != "resource":
            return None
        succ = succs[0]
        follow = None
        if not succ.is_update:
            follow = CleanupRun(
                graph, traversal_id, succ, self.nothing_to_clean
            )
        return ReadAhead(int(succ.entity_id), follow=follow)

    def nothing_to_clean(
        self, node: Node, row: r.ResourceRow, stack: r.StackRow, ready: Any
    ) -> bool:
        """Whether :meth:`check` of cleanup ``node``, fired as ``ready``
        and reading ``row`` and ``stack``, would only report to its
        successors (:meth:`_cleanup` returns at once), so that a
        :class:`CleanupRun` may do that for it."""
        if node.is_update or row.id != node.entity_id:
            return False
        if ready.skip_propagate or ready.resource_failures:
            return False
        if row.replaces is not None or row.replaced_by is not None:
            return False
        if stack.action == r.SUSPEND:
            return False
        if stack.action not in (r.CHECK, r.RESUME, r.SNAPSHOT) and (
            row.current_template_id != stack.raw_template_id
        ):
            return False
        return not stack_state.timed_out(self.deps, stack)

    def _keep(
        self,
        ctxt: Any,
        traversal: str,
        ready: sync_point.Ready,
        abandon: bool,
        ahead: ReadAhead | None = None,
    ) -> bool:
        """Run one fired successor next in this thread instead of casting.

        A chain then costs no broker round trip per node. The successor
        gets what the cast would carry (its input data through JSON, as
        on the wire); if this engine dies first, the node is pending like
        a lost cast and the resume pass re-drives it. Only inside a
        ``check_resource`` call (the resume pass and others cast), one
        successor per node (the others are cast, to any engine), never
        for an adopt. ``ahead``: the successor's first read, if this
        node's release made it (:class:`Handoff`).
        """
        local = self._local
        node = ready.node
        if not self.may_keep() or node is None:
            return False
        if node.node_type != "resource":
            return False
        data = json.loads(json.dumps({"input_data": ready.input_data}))
        resource_id = int(node.entity_id)
        found = None
        if ahead is not None and ahead.resource_id == resource_id:
            found = ahead.found
        local.next = (
            ctxt,
            resource_id,
            (traversal, data, node.is_update),
            {
                "skip_propagate": ready.skip_propagate,
                "accumulated_failures": ready.resource_failures or None,
                "node_type": node.node_type,
                "abandon": abandon,
            },
            found if found is not None and found[0] is not None else None,
        )
        return True

    def _drop_late_replacement(
        self, ctxt: Any, stack: r.StackRow, row_id: int
    ) -> None:
        """Delete a replacement the current traversal does not know.

        A superseded traversal may insert a replacement after the current
        one built its graph; nothing would ever clean that row (or its
        physical resource) up. Delete both, then re-enter the original
        into the current traversal, as Heat does for such rows.
        """
        deps = self.deps
        row = deps.resources.get_resource(row_id)
        if row is None or row.replaces is None or row.engine_id is not None:
            return
        LOG.info("Deleting replacement %s of a superseded traversal", row_id)
        self._cleanup(stack, row, threading.Event())
        left = deps.resources.get_resource(row_id)
        if left is not None and (left.action, left.status) == (
            r.DELETE,
            r.COMPLETE,
        ):
            deps.resources.delete_resource(row_id)
        self._retrigger_latest(ctxt, stack.id, row.replaces)
