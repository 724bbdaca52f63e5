"""Sync points: joining the predecessors of a node (docs/design/engine.md).

Every node of a traversal, and the stack itself, has a ``sync_point`` row.
A predecessor that finishes merges ``{its key: its value}`` into the row
with a compare-and-swap on ``atomic_key``; the writer whose write makes the
row hold every predecessor key triggers the node. The CAS serialises the
writers, so with each predecessor writing once exactly one of them sees
the row complete.

A predecessor delivering *again* (a re-driven node, a duplicated message)
does not fire the node a second time: a write whose key was already there
while the row was already complete is a duplicate. A node re-triggering
*itself* in a newer traversal is not a predecessor, so its write
fires the node whenever the row is complete, as in Heat.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from keel_heat_core.convergence.node import Node, node_from_key, node_key
from keel_heat_core.convergence.store import (
    FirstWrite,
    ReadAhead,
    SyncPointRow,
    SyncPointStore,
)
from keel_heat_core.graph import Graph


class SyncPointNotFound(LookupError):
    """The sync point row is gone: its traversal was superseded."""

    def __init__(self, entity_id: str, traversal_id: str) -> None:
        self.entity_id = entity_id
        self.traversal_id = traversal_id
        super().__init__(f"The Sync Point ({entity_id}) could not be found.")


@dataclasses.dataclass(frozen=True)
class Ready:
    """A node whose predecessors have all reported.

    :ivar node: the node to trigger (None for the stack sync point).
    :ivar input_data: ``{key: value}`` of every predecessor (keys are the
        ``tuple:`` strings, as stored and cast).
    :ivar resource_failures: failures accumulated on the way (CHECK).
    :ivar skip_propagate: a predecessor asked to skip the work (CHECK).
    """

    node: Node | None
    input_data: dict[str, Any]
    resource_failures: dict[str, str]
    skip_propagate: bool


def backoff(missing: int, attempt: int) -> float:
    """Seconds to wait after a CAS miss (random exponential).

    Heat waits up to ``0.01 s × missing predecessors × 2^attempt``: with
    99 roots still missing, the first retry of a stack sync point may
    wait 2 s. A miss here means another *engine* wrote the row in between
    (an engine's own writers are queued by
    :class:`~keel_heat_core.convergence.combiner.SyncCombiner`), so a few
    milliseconds are enough to step aside: the base is 2 ms, growing
    slowly with the number missing, capped at 50 ms; the wait at 2 s.
    """
    base = min(0.002 + 0.0001 * max(missing - 1, 0), 0.05)
    return min(random.uniform(0, base * (2**attempt)), 2.0)


def entity_id_of(node: Node) -> str:
    """The ``sync_point.entity_id`` of a node."""
    return str(node.entity_id)


def present(input_data: dict[str, Any]) -> set[Node]:
    """The nodes that have reported into ``input_data``."""
    return {node_from_key(key) for key in input_data}


@dataclasses.dataclass(frozen=True)
class Delivery:
    """One sender's report to a sync point (see :func:`sync_many`)."""

    predecessors: frozenset[Node]
    sender: Node
    value: Any
    new_failures: dict[str, str] | None = None
    skip_propagate: bool = False
    #: a first write of it missed already: read the row
    read: bool = False
    #: the node's first read, to make in the transaction of a read and
    #: swap that writes this delivery alone (not a batch of several)
    ahead: ReadAhead | None = dataclasses.field(default=None, compare=False)


def sync(
    store: SyncPointStore,
    entity_id: str,
    traversal_id: str,
    is_update: bool,
    predecessors: Collection[Node],
    sender: Node,
    value: Any,
    new_failures: dict[str, str] | None = None,
    skip_propagate: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> Ready | None:
    """Merge ``{sender: value}`` into a sync point; report completion.

    :raises SyncPointNotFound: the row does not exist.
    :returns: :class:`Ready` if this write fires the node, else None.
    """
    delivery = Delivery(
        frozenset(predecessors), sender, value, new_failures, skip_propagate
    )
    return sync_many(
        store, entity_id, traversal_id, is_update, [delivery], sleep
    )[0]


@dataclasses.dataclass(frozen=True)
class FirstWritePlan:
    """A delivery written into a row without reading it (its first write).

    :ivar input_data: what the row holds afterwards.
    :ivar fires: the sender is the node's only predecessor, so a write that
        matches makes the node ready; otherwise it only records the sender.
    """

    input_data: dict[str, Any]
    fires: bool

    def outcome(self) -> Ready | None:
        """What a first write that matched means (the caller fills in
        ``node`` of a :class:`Ready`)."""
        if not self.fires:
            return None
        return Ready(None, dict(self.input_data), {}, False)


def first_write_of(
    delivery: Delivery, entity_id: str, is_update: bool
) -> FirstWritePlan | None:
    """How ``delivery`` is written unread to row ``(entity_id, is_update)``,
    if it must be that row's first write.

    Two senders write first:

    - the node's only predecessor;
    - a resource's update node to the same resource's cleanup node. Every
      other predecessor of a cleanup node is the cleanup of a resource that
      requires this one (and so waits for this update node) or of one
      being removed, which may come first: then the write misses.

    A sender delivering again finds the row's key no longer 0 and misses
    too; a miss is read and swapped. Failures and skips merge into
    ``extra_data`` and always take the read-and-swap path.
    """
    if delivery.new_failures or delivery.skip_propagate or delivery.read:
        return None
    sender = delivery.sender
    data = {node_key(sender): delivery.value}
    if delivery.predecessors == {sender}:
        return FirstWritePlan(data, fires=True)
    if (
        sender.is_update
        and not is_update
        and entity_id_of(sender) == entity_id
        and sender in delivery.predecessors
    ):
        return FirstWritePlan(data, fires=False)
    return None


def sync_many(
    store: SyncPointStore,
    entity_id: str,
    traversal_id: str,
    is_update: bool,
    deliveries: Sequence[Delivery],
    sleep: Callable[[float], None] = time.sleep,
) -> list[Ready | None]:
    """Merge several senders into a sync point with one CAS write.

    The outcome is the same as writing the deliveries one after the other
    in order (each one's :class:`Ready`, or None), but the row is read and
    written once per attempt instead of once per sender. A lone delivery
    that must be the row's first write (:func:`first_write_of`) is
    written without reading the row; if that misses, the row is read.

    :raises SyncPointNotFound: the row does not exist.
    """
    if len(deliveries) == 1:
        first = first_write_of(deliveries[0], entity_id, is_update)
        if first is not None and store.first_write(
            entity_id, traversal_id, is_update, first.input_data
        ):
            return [first.outcome()]
    planned: list[BatchWrite] = []

    def plan(row: SyncPointRow) -> tuple[dict[str, Any], Any]:
        planned.append(plan_batch(row, deliveries))
        return planned[-1].input_data, planned[-1].extra_data

    ahead = deliveries[0].ahead if len(deliveries) == 1 else None
    if ahead is not None:
        # what the swap means for the node read ahead: for a Follow
        ahead.outcome = lambda: planned[-1].outcomes(deliveries)[0]
    attempt = 0
    while True:
        found = store.read_and_swap(
            entity_id, traversal_id, is_update, plan, ahead
        )
        if found is None:
            raise SyncPointNotFound(entity_id, traversal_id)
        # the plan of the row last read (a retried transaction plans again)
        write = planned[-1]
        if found[1]:
            return write.outcomes(deliveries)
        attempt += 1
        missing = max(len(d.predecessors - write.before) for d in deliveries)
        sleep(backoff(missing, attempt))


@dataclasses.dataclass(frozen=True)
class PlannedWrite:
    """The write one sender makes to a sync point row it has read."""

    row: SyncPointRow
    before: set[Node]
    input_data: dict[str, Any]
    extra_data: dict[str, Any] | None

    def outcome(self, wanted: set[Node], sender: Node) -> Ready | None:
        """What a *successful* write of this plan means for the node."""
        if not wanted <= present(self.input_data):
            return None
        if (
            sender in wanted
            and sender in self.before
            and wanted <= self.before
        ):
            return None  # a duplicate delivery to an already fired node
        extra = self.extra_data
        if extra is None:
            extra = self.row.extra_data or {}
        return Ready(
            None,
            self.input_data,
            dict(extra.get("resource_failures") or {}),
            bool(extra.get("skip_propagate")),
        )


def plan_write(
    row: SyncPointRow,
    sender: Node,
    value: Any,
    new_failures: dict[str, str] | None = None,
    skip_propagate: bool = False,
) -> PlannedWrite:
    """Merge ``{sender: value}`` (and failures) into what was read."""
    data = dict(row.input_data)
    data[node_key(sender)] = value
    return PlannedWrite(
        row,
        present(row.input_data),
        data,
        _merge_extra(row, new_failures, skip_propagate),
    )


@dataclasses.dataclass(frozen=True)
class BatchWrite:
    """The one write that merges several deliveries into a row."""

    row: SyncPointRow
    before: set[Node]
    input_data: dict[str, Any]
    extra_data: dict[str, Any] | None

    def outcomes(self, deliveries: Sequence[Delivery]) -> list[Ready | None]:
        """Each delivery's outcome, as if written one after the other."""
        results: list[Ready | None] = []
        seen = set(self.before)
        for index, d in enumerate(deliveries):
            earlier = set(seen)
            seen.add(d.sender)
            fires = d.predecessors <= seen and not (
                d.sender in d.predecessors
                and d.sender in earlier
                and d.predecessors <= earlier
            )
            results.append(self._ready(deliveries, index) if fires else None)
        return results

    def _ready(self, deliveries: Sequence[Delivery], index: int) -> Ready:
        # the row as the index-th sequential write would have left it
        row = self.row
        if index == len(deliveries) - 1:
            data = self.input_data
            extra = self.extra_data
        else:
            data = dict(row.input_data)
            extra = None
            for d in deliveries[: index + 1]:
                data[node_key(d.sender)] = d.value
                merged = _merge_extra(
                    dataclasses.replace(
                        row, extra_data=extra or row.extra_data
                    ),
                    d.new_failures,
                    d.skip_propagate,
                )
                extra = merged if merged is not None else extra
        if extra is None:
            extra = row.extra_data or {}
        return Ready(
            None,
            data,
            dict(extra.get("resource_failures") or {}),
            bool(extra.get("skip_propagate")),
        )


def plan_batch(
    row: SyncPointRow, deliveries: Sequence[Delivery]
) -> BatchWrite:
    """Merge every delivery (and its failures) into what was read."""
    data = dict(row.input_data)
    extra: dict[str, Any] | None = None
    for d in deliveries:
        data[node_key(d.sender)] = d.value
        merged = _merge_extra(
            dataclasses.replace(row, extra_data=extra or row.extra_data),
            d.new_failures,
            d.skip_propagate,
        )
        extra = merged if merged is not None else extra
    return BatchWrite(row, present(row.input_data), data, extra)


def _merge_extra(
    row: SyncPointRow,
    new_failures: dict[str, str] | None,
    skip_propagate: bool,
) -> dict[str, Any] | None:
    if not new_failures and not skip_propagate:
        return None
    extra = dict(row.extra_data or {})
    failures = dict(extra.get("resource_failures") or {})
    failures.update(new_failures or {})
    extra["resource_failures"] = failures
    if skip_propagate:
        extra["skip_propagate"] = True
    return extra


def successors_in_order(graph: Graph[Node], node: Node) -> list[Node]:
    """What requires ``node``, cleanup successors first (as Heat)."""
    after = graph.required_by(node)
    return [n for n in after if not n.is_update] + [
        n for n in after if n.is_update
    ]


def create_traversal_sync_points(
    store: SyncPointStore,
    stack_id: str,
    traversal_id: str,
    graph: Graph[Node],
) -> None:
    """Insert one sync point per node plus the stack's, in one batch."""
    points: list[tuple[str, bool]] = [
        (entity_id_of(n), n.is_update) for n in graph.nodes()
    ]
    points.append((stack_id, True))
    store.create_sync_points(stack_id, traversal_id, points)


def propagate(
    store: SyncPointStore,
    graph: Graph[Node],
    stack_id: str,
    traversal_id: str,
    node: Node,
    value_for: Callable[[Node], Any],
    new_failures: dict[str, str] | None = None,
    skip_propagate: bool = False,
    sleep: Callable[[float], None] = time.sleep,
    deliver: Deliver | None = None,
    delivered: Sequence[FirstWrite] = (),
    ahead: ReadAhead | None = None,
) -> tuple[list[Ready], Ready | None]:
    """Report ``node`` finished to its successors and, for a root, the stack.

    :param value_for: the value ``node`` sends to a given successor.
    :param deliver: how one delivery reaches a row (default: a
        :func:`sync_many` of its own; an engine passes its
        :class:`~keel_heat_core.convergence.combiner.SyncCombiner`).
    :param delivered: the :func:`handoff_writes` the node made already;
        the rows of those that matched are not written again.
    :param ahead: the first read of the successor of that resource, made
        with the delivery to it if that is a read and swap of its own.
    :returns: ``(nodes to trigger, stack completion or None)``.
    :raises SyncPointNotFound: the traversal was superseded.
    """
    send = deliver or _deliver_alone
    made = {(w.entity_id, w.is_update): w for w in delivered}
    fired: list[Ready] = []
    stack_ready = None
    for succ, entity_id, is_update, delivery in _deliveries(
        graph, stack_id, node, value_for, new_failures, skip_propagate
    ):
        write = made.get((entity_id, is_update))
        if write is not None and write.matched:
            ready = FirstWritePlan(write.input_data, write.fires).outcome()
        else:
            if write is not None:  # tried in the release, and missed
                delivery = dataclasses.replace(delivery, read=True)
            if (
                ahead is not None
                and succ is not None
                and succ.node_type == "resource"
                and entity_id == str(ahead.resource_id)
            ):
                delivery = dataclasses.replace(delivery, ahead=ahead)
            ready = send(
                store, entity_id, traversal_id, is_update, delivery, sleep
            )
        if succ is None:
            stack_ready = ready
        elif ready is not None:
            fired.append(dataclasses.replace(ready, node=succ))
    return fired, stack_ready


def _deliveries(
    graph: Graph[Node],
    stack_id: str,
    node: Node,
    value_for: Callable[[Node], Any],
    new_failures: dict[str, str] | None = None,
    skip_propagate: bool = False,
) -> Iterable[tuple[Node | None, str, bool, Delivery]]:
    """``(successor or None for the stack, entity_id, is_update,
    delivery)`` of every row ``node`` reports to, in order."""
    for succ in successors_in_order(graph, node):
        yield (
            succ,
            entity_id_of(succ),
            succ.is_update,
            Delivery(
                frozenset(graph.requires(succ)),
                node,
                value_for(succ),
                new_failures,
                skip_propagate,
            ),
        )
    if not graph.required_by(node):
        yield (
            None,
            stack_id,
            True,
            Delivery(graph.root_set(), node, None, new_failures),
        )


def handoff_writes(
    graph: Graph[Node],
    stack_id: str,
    traversal_id: str,
    node: Node,
    value_for: Callable[[Node], Any],
) -> list[FirstWrite]:
    """The deliveries of a successful ``node`` that must be first writes
    (:func:`first_write_of`), for the node to make in the transaction
    that finishes it; :func:`propagate` then takes them as
    ``delivered``.

    In the order of their rows' keys: two nodes that both write first to
    the same two rows (each a cleanup node with two predecessors) lock
    them in the same order.
    """
    writes = []
    for _, entity_id, is_update, delivery in _deliveries(
        graph, stack_id, node, value_for
    ):
        first = first_write_of(delivery, entity_id, is_update)
        if first is not None:
            writes.append(
                FirstWrite(
                    entity_id,
                    traversal_id,
                    is_update,
                    first.input_data,
                    fires=first.fires,
                )
            )
    writes.sort(key=lambda w: (w.entity_id, w.is_update))
    return writes


#: ``(store, entity_id, traversal_id, is_update, delivery, sleep)`` ->
#: the delivery's outcome (:meth:`SyncCombiner.sync` has this shape).
Deliver = Callable[
    [SyncPointStore, str, str, bool, Delivery, Callable[[float], None]],
    Ready | None,
]


def _deliver_alone(
    store: SyncPointStore,
    entity_id: str,
    traversal_id: str,
    is_update: bool,
    delivery: Delivery,
    sleep: Callable[[float], None],
) -> Ready | None:
    return sync_many(
        store, entity_id, traversal_id, is_update, [delivery], sleep
    )[0]


def retrigger(
    store: SyncPointStore,
    graph: Graph[Node],
    traversal_id: str,
    node: Node,
    sleep: Callable[[float], None] = time.sleep,
) -> Ready | None:
    """Re-enter ``node`` into a (newer) traversal it was dropped from.

    Writes ``{node: null}`` into the node's own sync point; fires it when
    all of its predecessors have reported.
    """
    ready = sync(
        store,
        entity_id_of(node),
        traversal_id,
        node.is_update,
        graph.requires(node),
        node,
        None,
        sleep=sleep,
    )
    return None if ready is None else dataclasses.replace(ready, node=node)


def pending_nodes(
    graph: Graph[Node],
    rows: Iterable[SyncPointRow],
    stack_id: str,
) -> list[Node]:
    """Nodes that were (or should have been) triggered but never finished.

    The basis of automatic resume (``docs/design/resume.md``): a node is
    *triggered* when it is a leaf or its sync point holds every predecessor;
    it is *finished* when every successor's sync point (the stack's, for a
    root) holds its key. Everything triggered and not finished is pending.
    """
    by_entity = {
        (r.entity_id, r.is_update): present(r.input_data) for r in rows
    }
    stack_inputs = by_entity.get((stack_id, True), set())
    pending = []
    for node in graph.nodes():
        inputs = by_entity.get((entity_id_of(node), node.is_update), set())
        if not set(graph.requires(node)) <= inputs:
            continue
        succs = graph.required_by(node)
        if succs:
            done = all(
                node in by_entity.get((entity_id_of(s), s.is_update), set())
                for s in succs
            )
        else:
            done = node in stack_inputs
        if not done:
            pending.append(node)
    return pending
