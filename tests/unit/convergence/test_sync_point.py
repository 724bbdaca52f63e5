"""Sync point joins under every interleaving of node completions."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keel_heat_core.convergence.memory_store import MemorySyncPointStore
from keel_heat_core.convergence.node import Node, node_key
from keel_heat_core.convergence.store import SyncPointRow
from keel_heat_core.convergence.sync_point import (
    Delivery,
    PlannedWrite,
    Ready,
    SyncPointNotFound,
    create_traversal_sync_points,
    entity_id_of,
    first_write_of,
    handoff_writes,
    pending_nodes,
    plan_write,
    propagate,
    retrigger,
    successors_in_order,
    sync,
)
from keel_heat_core.graph import Graph

STACK = "stack-1"
TRAVERSAL = "trav-1"


def no_sleep(_: float) -> None:
    return None


@st.composite
def traversal_graphs(draw: st.DrawFn) -> Graph[Node]:
    size = draw(st.integers(min_value=1, max_value=12))
    graph: Graph[Node] = Graph()
    for i in range(1, size + 1):
        graph.add_node(Node(i, draw(st.booleans())))
    nodes = graph.nodes()
    for a in range(len(nodes)):
        for b in range(a):
            if draw(st.booleans()):
                graph.add_edge(nodes[a], nodes[b])
    return graph


class Writer:
    """One predecessor delivering into one sync point, step by step."""

    def __init__(self, sender: Node, target: Node | None) -> None:
        self.sender = sender
        self.target = target
        self.plan: PlannedWrite | None = None
        #: its first write was tried (and missed)
        self.tried = False

    def entity(self) -> tuple[str, bool]:
        if self.target is None:
            return STACK, True
        return entity_id_of(self.target), self.target.is_update


class Run:
    """Nodes finishing and writers delivering, in the order hypothesis
    picks; which nodes fired, checked against the graph at the end."""

    def __init__(self, graph: Graph[Node], data: st.DataObject) -> None:
        self.graph = graph
        self.data = data
        self.fired: Counter[Node | None] = Counter()
        self.finished: set[Node] = set()
        self.runnable = list(graph.leaves())
        self.writers: list[Writer] = []

    def next_writer(self) -> Writer | None:
        """Finish a node (its writers join in; None) or pick a writer."""
        runnable, writers = self.runnable, self.writers
        pick = self.data.draw(st.integers(0, len(runnable) + len(writers) - 1))
        if pick >= len(runnable):
            return writers[pick - len(runnable)]
        node = runnable.pop(pick)
        self.finished.add(node)
        writers.extend(
            Writer(node, s) for s in successors_in_order(self.graph, node)
        )
        if not self.graph.required_by(node):
            writers.append(Writer(node, None))
        return None

    def wanted(self, writer: Writer) -> set[Node]:
        target = writer.target
        graph = self.graph
        if target is None:
            return set(graph.roots())
        return set(graph.requires(target))

    def written(self, writer: Writer, ready: Ready | None) -> None:
        """``writer`` is done; ``ready`` is what its write fired."""
        self.writers.remove(writer)
        if ready is not None:
            assert self.wanted(writer) <= self.finished
            self.fired[writer.target] += 1
            if writer.target is not None:
                self.runnable.append(writer.target)

    def check(self) -> None:
        graph = self.graph
        non_leaves = [n for n in graph.nodes() if graph.requires(n)]
        assert self.fired == Counter({**dict.fromkeys(non_leaves, 1), None: 1})
        assert self.finished == set(graph.nodes())


@settings(max_examples=150, deadline=None)
@given(traversal_graphs(), st.data())
def test_every_interleaving_fires_each_node_exactly_once(
    graph: Graph[Node], data: st.DataObject
) -> None:
    """Writers read, then CAS, in an order hypothesis picks; a CAS that
    misses goes back to reading. Each node (and the stack) fires once,
    after all of its predecessors finished."""
    store = MemorySyncPointStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)
    run = Run(graph, data)
    while run.runnable or run.writers:
        writer = run.next_writer()
        if writer is None:
            continue
        entity, is_update = writer.entity()
        if writer.plan is None:
            row = store.get_sync_point(entity, TRAVERSAL, is_update)
            assert row is not None
            writer.plan = plan_write(row, writer.sender, None)
            continue
        plan = writer.plan
        writer.plan = None
        if not store.update_sync_point(plan.row, plan.input_data, None):
            continue
        run.written(writer, plan.outcome(run.wanted(writer), writer.sender))
    run.check()


def graph_of(*edges: tuple[Node, Node]) -> Graph[Node]:
    """A graph of ``(node, what it requires)`` edges."""
    graph: Graph[Node] = Graph()
    for node, required in edges:
        graph.add_edge(node, required)
    return graph


def chain() -> Graph[Node]:
    return graph_of(
        (Node(2, True), Node(1, True)),
        (Node(3, True), Node(1, True)),
        (Node(3, True), Node(2, True)),
    )


def test_propagate_carries_values_and_completes_the_stack() -> None:
    graph = chain()
    store = MemorySyncPointStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)

    def value(succ: Node) -> dict[str, int]:
        return {"to": int(succ.entity_id)}

    fired, done = propagate(
        store, graph, STACK, TRAVERSAL, Node(1, True), value, sleep=no_sleep
    )
    assert [r.node for r in fired] == [Node(2, True)]
    assert fired[0].input_data == {"tuple:(1, True, 'resource')": {"to": 2}}
    assert done is None
    fired, _ = propagate(
        store, graph, STACK, TRAVERSAL, Node(2, True), value, sleep=no_sleep
    )
    assert [r.node for r in fired] == [Node(3, True)]
    assert set(fired[0].input_data) == {
        node_key(Node(1, True)),
        node_key(Node(2, True)),
    }
    fired, done = propagate(
        store, graph, STACK, TRAVERSAL, Node(3, True), value, sleep=no_sleep
    )
    assert fired == []
    assert done is not None
    assert done.input_data == {node_key(Node(3, True)): None}


def test_duplicate_delivery_does_not_fire_twice() -> None:
    graph = chain()
    store = MemorySyncPointStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)
    args = (store, graph, STACK, TRAVERSAL, Node(1, True), lambda s: None)
    assert [r.node for r in propagate(*args, sleep=no_sleep)[0]] == [
        Node(2, True)
    ]
    assert propagate(*args, sleep=no_sleep)[0] == []


def test_retrigger_refires_a_complete_node() -> None:
    graph = chain()
    store = MemorySyncPointStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)
    ready = retrigger(store, graph, TRAVERSAL, Node(1, True), no_sleep)
    assert ready is not None and ready.node == Node(1, True)
    again = retrigger(store, graph, TRAVERSAL, Node(1, True), no_sleep)
    assert again is not None
    assert retrigger(store, graph, TRAVERSAL, Node(2, True), no_sleep) is None


def test_failures_and_skip_flag_accumulate() -> None:
    store = MemorySyncPointStore()
    store.create_sync_points(STACK, TRAVERSAL, [("9", True)])
    preds = [Node(1, True), Node(2, True)]
    first = sync(
        store, "9", TRAVERSAL, True, preds, preds[0], None,
        {"a": "broken"}, True, no_sleep,
    )  # fmt: skip
    assert first is None
    ready = sync(
        store, "9", TRAVERSAL, True, preds, preds[1], None,
        {"b": "worse"}, False, no_sleep,
    )  # fmt: skip
    assert ready is not None
    assert ready.resource_failures == {"a": "broken", "b": "worse"}
    assert ready.skip_propagate


def test_missing_sync_point_means_superseded() -> None:
    store = MemorySyncPointStore()
    with pytest.raises(SyncPointNotFound, match="Sync Point"):
        sync(store, "1", "gone", True, [], Node(2, True), None)


def test_cas_miss_is_retried() -> None:
    store = MemorySyncPointStore()
    store.create_sync_points(STACK, TRAVERSAL, [("9", True)])
    real_get = store.get_sync_point
    calls = []

    def racing_get(*args: object) -> SyncPointRow | None:
        row = real_get(*args)  # type: ignore[arg-type]
        if not calls:  # another writer sneaks in after our first read
            other = real_get(*args)  # type: ignore[arg-type]
            assert other is not None
            store.update_sync_point(other, {node_key(Node(7, True)): 1}, None)
        calls.append(1)
        return row

    store.get_sync_point = racing_get  # type: ignore[method-assign]
    preds = [Node(7, True), Node(8, True)]
    ready = sync(store, "9", TRAVERSAL, True, preds, Node(8, True), 2,
                 sleep=no_sleep)  # fmt: skip
    assert store.cas_misses == 1
    assert ready is not None and len(ready.input_data) == 2


def test_pending_nodes_after_a_crash_mid_propagation() -> None:
    graph = chain()
    store = MemorySyncPointStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)
    assert pending_nodes(graph, store.rows(), STACK) == [Node(1, True)]
    # node 1 finished and reported to node 2 only, then its engine died
    sync(store, "2", TRAVERSAL, True, [Node(1, True)], Node(1, True), None)
    assert set(pending_nodes(graph, store.rows(), STACK)) == {
        Node(1, True),
        Node(2, True),
    }
    fired, _ = propagate(
        store, graph, STACK, TRAVERSAL, Node(1, True), lambda s: None,
        sleep=no_sleep,
    )  # fmt: skip
    assert fired == []  # node 3 still waits for node 2
    assert pending_nodes(graph, store.rows(), STACK) == [Node(2, True)]


class CountingStore(MemorySyncPointStore):
    """Counts row reads and first writes."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[str] = []
        self.first_writes: list[tuple[str, bool]] = []

    def get_sync_point(
        self, entity_id: str, traversal_id: str, is_update: bool
    ) -> SyncPointRow | None:
        self.reads.append(str(entity_id))
        return super().get_sync_point(entity_id, traversal_id, is_update)

    def first_write(
        self,
        entity_id: str,
        traversal_id: str,
        is_update: bool,
        input_data: dict[str, object],
    ) -> bool:
        matched = super().first_write(
            entity_id, traversal_id, is_update, input_data
        )
        self.first_writes.append((str(entity_id), matched))
        return matched


def test_an_only_predecessor_writes_its_successor_unread() -> None:
    graph = chain()  # 2 has one predecessor (1); 3 has two (1 and 2)
    store = CountingStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)
    args = (store, graph, STACK, TRAVERSAL, Node(1, True), lambda s: "v1")
    fired, _ = propagate(*args, sleep=no_sleep)
    assert [r.node for r in fired] == [Node(2, True)]
    assert fired[0].input_data == {node_key(Node(1, True)): "v1"}
    # 2 was written without a read; the join 3 was read before its write
    assert store.first_writes == [("2", True)]
    assert store.reads == ["3"]
    row = store.get_sync_point("2", TRAVERSAL, True)
    assert row is not None and row.atomic_key == 1
    assert row.input_data == {node_key(Node(1, True)): "v1"}
    # delivering again: the first write misses, the row is read, and the
    # node does not fire a second time
    store.reads.clear()
    assert propagate(*args, sleep=no_sleep)[0] == []
    assert store.first_writes[-1] == ("2", False)
    assert store.reads == ["2", "3"]


def test_a_first_write_with_failures_reads_the_row() -> None:
    store = CountingStore()
    store.create_sync_points(STACK, TRAVERSAL, [("9", True)])
    ready = sync(
        store, "9", TRAVERSAL, True, [Node(1, True)], Node(1, True), None,
        {"r1": "broken"}, False, no_sleep,
    )  # fmt: skip
    assert ready is not None and ready.resource_failures == {"r1": "broken"}
    assert store.first_writes == [] and store.reads == ["9"]


def test_a_first_write_to_a_missing_row_means_superseded() -> None:
    store = CountingStore()
    with pytest.raises(SyncPointNotFound):
        sync(store, "1", "gone", True, [Node(2, True)], Node(2, True), None)
    assert store.first_writes == [("1", False)]


@st.composite
def update_graphs(draw: st.DrawFn) -> Graph[Node]:
    """Graphs with an update and a cleanup node for some resources (the
    cleanup requiring the update), other edges at random."""
    size = draw(st.integers(min_value=1, max_value=6))
    nodes: list[Node] = []
    for i in range(1, size + 1):
        kind = draw(st.sampled_from(["update", "cleanup", "both"]))
        if kind != "cleanup":
            nodes.append(Node(i, True))
        if kind != "update":
            nodes.append(Node(i, False))
    order = draw(st.permutations(nodes))
    graph: Graph[Node] = Graph()
    for node in order:
        graph.add_node(node)
    for a in range(len(order)):
        for b in range(a):
            if draw(st.booleans()):
                graph.add_edge(order[a], order[b])
    for i in range(1, size + 1):
        pair = (Node(i, False), Node(i, True))
        if all(n in graph for n in pair) and (
            order.index(pair[0]) > order.index(pair[1])
        ):
            graph.add_edge(*pair)
    return graph


@settings(max_examples=200, deadline=None)
@given(update_graphs(), st.data())
def test_first_writes_in_any_interleaving_fire_each_node_once(
    graph: Graph[Node], data: st.DataObject
) -> None:
    """As above, but a writer that may write first (an only predecessor,
    or an update node to its own cleanup node) tries that before it
    reads; the others of a cleanup node may have come first, and then
    the first write misses and the writer reads and swaps."""
    store = CountingStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)
    run = Run(graph, data)
    while run.runnable or run.writers:
        writer = run.next_writer()
        if writer is None:
            continue
        entity, is_update = writer.entity()
        wanted = run.wanted(writer)
        if not writer.tried:
            writer.tried = True
            delivery = Delivery(frozenset(wanted), writer.sender, None)
            first = first_write_of(delivery, entity, is_update)
            if first is not None and store.first_write(
                entity, TRAVERSAL, is_update, first.input_data
            ):
                run.written(writer, first.outcome())
        elif writer.plan is None:
            row = store.get_sync_point(entity, TRAVERSAL, is_update)
            assert row is not None
            writer.plan = plan_write(row, writer.sender, None)
        else:
            plan, writer.plan = writer.plan, None
            if store.update_sync_point(plan.row, plan.input_data, None):
                run.written(writer, plan.outcome(wanted, writer.sender))
    run.check()


def update_pair() -> Graph[Node]:
    """Two resources, 2 requiring 1, updated: each cleanup node requires
    its update node, and 1's cleanup also requires 2's."""
    return graph_of(
        (Node(2, True), Node(1, True)),
        (Node(1, False), Node(1, True)),
        (Node(2, False), Node(2, True)),
        (Node(1, False), Node(2, False)),
    )


def test_an_update_node_writes_its_cleanup_node_unread() -> None:
    graph = update_pair()
    store = CountingStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)
    fired, _ = propagate(
        store, graph, STACK, TRAVERSAL, Node(1, True), lambda s: "v1",
        sleep=no_sleep,
    )  # fmt: skip
    # 1's cleanup node has two predecessors: written first, not fired;
    # 2's update node has one: written first and fired; nothing read
    assert [r.node for r in fired] == [Node(2, True)]
    assert sorted(store.first_writes) == [("1", True), ("2", True)]
    assert store.reads == []
    row = store.get_sync_point("1", TRAVERSAL, False)
    assert row is not None and row.atomic_key == 1
    assert row.input_data == {node_key(Node(1, True)): "v1"}
    store.reads.clear()
    # the other predecessor (2's cleanup) reads, swaps and fires it
    fired, _ = propagate(
        store, graph, STACK, TRAVERSAL, Node(2, False), lambda s: None,
        sleep=no_sleep,
    )  # fmt: skip
    assert [r.node for r in fired] == [Node(1, False)]
    assert store.reads == ["1"]


def test_a_cleanup_node_written_by_another_first_is_read() -> None:
    # 1's cleanup node also waits for 3's cleanup (a resource removed by
    # the update), which came first: the update node's write misses
    graph = update_pair()
    graph.add_edge(Node(1, False), Node(3, False))
    store = CountingStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)
    propagate(store, graph, STACK, TRAVERSAL, Node(3, False), lambda s: None,
              sleep=no_sleep)  # fmt: skip
    store.first_writes.clear()
    store.reads.clear()
    propagate(store, graph, STACK, TRAVERSAL, Node(1, True), lambda s: "v1",
              sleep=no_sleep)  # fmt: skip
    assert ("1", False) in store.first_writes
    assert store.reads == ["1"]
    row = store.get_sync_point("1", TRAVERSAL, False)
    assert row is not None
    assert set(row.input_data) == {
        node_key(Node(3, False)),
        node_key(Node(1, True)),
    }


def test_a_join_of_others_is_never_written_unread() -> None:
    # 3 requires 1 and 2, neither of them its own update node
    delivery = Delivery(frozenset({Node(1, True), Node(2, True)}),
                        Node(1, True), "v")  # fmt: skip
    assert first_write_of(delivery, "3", True) is None
    assert first_write_of(delivery, "3", False) is None
    # a cleanup node's own update node may: it does not fire it
    own = Delivery(frozenset({Node(3, True), Node(4, False)}),
                   Node(3, True), None)  # fmt: skip
    plan = first_write_of(own, "3", False)
    assert plan is not None and not plan.fires and plan.outcome() is None
    # unless a first write of it missed already
    again = Delivery(own.predecessors, own.sender, None, read=True)
    assert first_write_of(again, "3", False) is None


def test_handoff_writes_come_in_the_order_of_their_rows() -> None:
    graph = update_pair()
    writes = handoff_writes(graph, STACK, TRAVERSAL, Node(1, True),
                            lambda s: "v1")  # fmt: skip
    assert [(w.entity_id, w.is_update, w.fires) for w in writes] == [
        ("1", False, False),
        ("2", True, True),
    ]


def test_a_missed_handoff_write_is_not_tried_again() -> None:
    graph = update_pair()
    graph.add_edge(Node(1, False), Node(3, False))
    store = CountingStore()
    create_traversal_sync_points(store, STACK, TRAVERSAL, graph)
    propagate(store, graph, STACK, TRAVERSAL, Node(3, False), lambda s: None,
              sleep=no_sleep)  # fmt: skip
    writes = handoff_writes(graph, STACK, TRAVERSAL, Node(1, True),
                            lambda s: "v1")  # fmt: skip
    for write in writes:  # what the release transaction does
        write.matched = store.first_write(
            write.entity_id, write.traversal_id, write.is_update,
            write.input_data,
        )  # fmt: skip
    assert [w.matched for w in writes] == [False, True]
    store.first_writes.clear()
    store.reads.clear()
    fired, _ = propagate(
        store, graph, STACK, TRAVERSAL, Node(1, True), lambda s: "v1",
        sleep=no_sleep, delivered=writes,
    )  # fmt: skip
    assert [r.node for r in fired] == [Node(2, True)]
    assert store.first_writes == []
    assert store.reads == ["1"]
