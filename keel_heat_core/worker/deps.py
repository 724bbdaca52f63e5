"""Everything one engine's worker needs, in one bundle.

The service builds a :class:`WorkerDeps` from the real repositories, the
template layer, the plugin registry and the RPC clients; tests build it
from in-memory fakes.
"""

from __future__ import annotations

import dataclasses
import datetime
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from keel_heat_core.convergence.combiner import SyncCombiner
from keel_heat_core.convergence.node import Node, graph_from_deps
from keel_heat_core.convergence.store import SyncPointStore
from keel_heat_core.graph import Graph
from keel_heat_core.model import rows as r
from keel_heat_core.worker.wake import StackWaiters


class Caster(Protocol):
    """Casts ``check_resource`` (worker API 1.9) to any engine."""

    def check_resource(
        self,
        ctxt: Any,
        resource_id: int | str,
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
        """Fire and forget."""


class Liveness(Protocol):
    """The listener probe (``listening`` with a 2 s timeout)."""

    def is_alive(self, engine_id: str) -> bool:
        """False when the engine did not answer in time."""


class TemplateStore(r.TemplateSource, Protocol):
    """Templates as the worker needs them."""

    def store_empty_like(self, template_id: int) -> int:
        """Store an empty template of the same version; return its id."""


class Notifier(Protocol):
    """Stack notifications (``orchestration.stack.<action>.<phase>``)."""

    def stack_state(self, ctxt: Any, stack: r.StackRow) -> None:
        """Send the notification for the stack's persisted state."""


class CommitRuns(Protocol):
    """Releases of one thread that share a commit
    (``keel_heat_core.db.commit_runs``): the driver's side."""

    def start(self) -> bool:
        """Let this thread's releases defer their commits; False when
        not available or already on."""

    def stop(self) -> None:
        """Commit the open run and defer no more (raises ``RunLost``)."""

    def flush(self) -> None:
        """Commit the open run (raises ``RunLost``)."""

    def serial(self) -> int | None:
        """Which run is open (or was lost, until :meth:`recover`), or
        None."""

    def lost(self) -> bool:
        """Whether a run was rolled back since :meth:`recover`."""

    def recover(self) -> None:
        """Statements may go on: the lost nodes are being re-run."""


class _NoCommitRuns:
    """Every release commits by itself (the in-memory stores)."""

    def start(self) -> bool:
        return False

    def stop(self) -> None:
        return None

    def flush(self) -> None:
        return None

    def serial(self) -> int | None:
        return None

    def lost(self) -> bool:
        return False

    def recover(self) -> None:
        return None


class CommittingCaster:
    """A :class:`Caster` whose ``check_resource`` first commits the
    calling thread's open run (:class:`CommitRuns`): the node a cast
    fires, anywhere, must find every write that fired it. The caster's
    other casts (``stack_finished``, ``cancel_check_resource``) are the
    caster's own: each follows a write that committed the run."""

    def __init__(self, caster: Caster, commits: CommitRuns) -> None:
        self.caster = caster
        self.commits = commits

    def check_resource(self, *args: Any, **kw: Any) -> None:
        self.commits.flush()
        self.caster.check_resource(*args, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.caster, name)


def utcnow() -> datetime.datetime:
    """Naive UTC now, as the database stores it."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


class TraversalCache:
    """Per-engine cache of parsed graphs and definitions.

    Keyed by ``(stack id, traversal id)``: a new traversal is a new key, so
    the traversal CAS invalidates entries without any message. Bounded.
    """

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._graphs: dict[tuple[str, str], Graph[Node]] = {}
        self._defs: dict[int, Any] = {}
        self._lock = threading.Lock()

    def graph(self, stack: r.StackRow) -> Graph[Node]:
        """The traversal graph of ``stack``'s current traversal."""
        key = (stack.id, stack.current_traversal)
        with self._lock:
            found = self._graphs.get(key)
        if found is None:
            found = graph_from_deps(stack.current_deps)
            if not stack.current_deps:
                return found  # not stored yet: do not remember it
            with self._lock:
                if len(self._graphs) >= self._size:
                    self._graphs.pop(next(iter(self._graphs)))
                self._graphs[key] = found
        return found

    def definitions(
        self, templates: r.TemplateSource, tmpl_id: int, stack: r.StackRow
    ) -> Any:
        """Definitions of a stored template (templates are immutable)."""
        with self._lock:
            found = self._defs.get(tmpl_id)
        if found is None:
            found = templates.definitions(tmpl_id, stack)
            with self._lock:
                if len(self._defs) >= self._size:
                    self._defs.pop(next(iter(self._defs)))
                self._defs[tmpl_id] = found
        return found


class _NoNotifier:
    def stack_state(self, ctxt: Any, stack: r.StackRow) -> None:
        return None


@dataclasses.dataclass
class WorkerDeps:
    """The collaborators of one engine's worker."""

    engine_id: str
    stacks: r.StackStore
    resources: r.ResourceStore
    sync_points: SyncPointStore
    templates: TemplateStore
    plugins: Callable[[Any, r.ResourceRow, dict[str, Any], r.StackRow], Any]
    caster: Caster
    liveness: Liveness
    notifier: Notifier = dataclasses.field(default_factory=_NoNotifier)
    cache: TraversalCache = dataclasses.field(default_factory=TraversalCache)
    #: queues this engine's concurrent writes to one sync point
    combiner: SyncCombiner = dataclasses.field(default_factory=SyncCombiner)
    #: a node runs one of the successors it fires itself, in its thread,
    #: instead of casting it (a chain then needs no broker round trip per
    #: node); False casts every successor
    run_successor_here: bool = True
    #: releases of a thread that share one commit
    commits: CommitRuns = dataclasses.field(default_factory=_NoCommitRuns)
    #: pauses of resources waiting for a stack, woken when it ends
    waiters: StackWaiters = dataclasses.field(default_factory=StackWaiters)
    stack_action_timeout: int = 3600
    poll_interval: float = 1.0
    clock: Callable[[], float] = time.monotonic
    now: Callable[[], datetime.datetime] = utcnow
    sleep: Callable[[float], None] = time.sleep
    #: called when a traversal ends, before ``<A>_COMPLETE`` is written
    #: and after ``<A>_FAILED`` is: ``(ctxt, stack, status, reason)``
    #: (snapshots, ``service/snapshots.py``); what it returns, if not
    #: None, is called once the final state is written (work the user
    #: need not wait for: a deleted stack's trust)
    on_traversal_end: (
        Callable[[Any, r.StackRow, str, str], Callable[[], Any] | None] | None
    ) = None
