"""Where a run of cleanups with nothing to clean stops
(:class:`keel_heat_core.worker.cleanup_run.CleanupRun`), over the
in-memory sync point store: a line of cleanup nodes C5 -> C4 -> ... ->
C1 (C1 reports to the stack), each also after its own update node."""

from __future__ import annotations

import dataclasses
from typing import Any

from keel_heat_core.convergence import sync_point
from keel_heat_core.convergence.memory_store import MemorySyncPointStore
from keel_heat_core.convergence.node import Node, node_key
from keel_heat_core.convergence.store import ReadAhead
from keel_heat_core.graph import Graph
from keel_heat_core.worker.cleanup_run import CleanupRun

K = 6
T = "trav"


@dataclasses.dataclass
class Row:
    id: int
    busy: bool = False  # a cleanup with something to do
    replaced_by: int | None = None


@dataclasses.dataclass
class Stack:
    current_traversal: str = T


def cleanup(i: int) -> Node:
    return Node(i, False)


class Line:
    def __init__(self, extra_predecessor_of: int | None = None) -> None:
        self.graph: Graph[Node] = Graph()
        for i in range(1, K + 1):
            self.graph.add_edge(cleanup(i), Node(i, True))
            if i < K:
                self.graph.add_edge(cleanup(i), cleanup(i + 1))
        if extra_predecessor_of is not None:
            self.graph.add_edge(cleanup(extra_predecessor_of), Node(99, True))
        self.rows = {i: Row(i) for i in range(1, K + 1)}
        self.stack = Stack()
        self.store = MemorySyncPointStore()
        self.store.read_ahead = lambda i: (self.rows.get(i), self.stack)
        self.store.create_sync_points(
            "s", T, [(str(n.entity_id), n.is_update) for n in self.graph]
        )
        for i in range(1, K + 1):  # every update node has reported
            self.deliver(cleanup(i), Node(i, True), None)
        self.seen: list[Node] = []

    def deliver(
        self,
        to: Node,
        sender: Node,
        value: Any,
        ahead: ReadAhead | None = None,
    ) -> sync_point.Ready | None:
        delivery = sync_point.Delivery(
            frozenset(self.graph.requires(to)), sender, value, ahead=ahead
        )
        return sync_point.sync_many(
            self.store, str(to.entity_id), T, to.is_update, [delivery]
        )[0]

    def nothing_to_clean(
        self, node: Node, row: Row, stack: Any, ready: Any
    ) -> bool:
        self.seen.append(node)
        return not row.busy

    def run_from_c5(self, limit: int = 50) -> tuple[CleanupRun, Any]:
        """C6 finishes and fires C5, whose row it reads ahead."""
        run = CleanupRun(
            self.graph, T, cleanup(5), self.nothing_to_clean, limit
        )
        ahead = ReadAhead(5, follow=run)
        fired = self.deliver(cleanup(5), cleanup(6), 6, ahead)
        assert fired is not None
        return run, dataclasses.replace(fired, node=cleanup(5))

    def holds(self, to: int, sender: int) -> bool:
        row = self.store.get_sync_point(str(to), T, False)
        assert row is not None
        return node_key(cleanup(sender)) in row.input_data


def test_a_run_goes_on_to_the_node_that_reports_to_the_stack() -> None:
    line = Line()
    run, c5 = line.run_from_c5()
    assert run.done == [cleanup(5), cleanup(4), cleanup(3), cleanup(2)]
    assert run.ready is not None and run.ready.node == cleanup(1)
    assert run.found == (line.rows[1], line.stack)
    assert all(line.holds(i, i + 1) for i in range(1, 5))
    # the worker runs C1 next, with its read, instead of C5
    fired, ahead = run.substitute([c5], ReadAhead(5))
    assert [r.node for r in fired] == [cleanup(1)]
    assert ahead is not None and ahead.resource_id == 1
    assert ahead.found == (line.rows[1], line.stack)


def test_a_run_stops_at_its_limit() -> None:
    line = Line()
    run, _ = line.run_from_c5(limit=2)
    assert run.done == [cleanup(5), cleanup(4)]
    assert run.ready is not None and run.ready.node == cleanup(3)
    assert not line.holds(2, 3)


def test_a_cleanup_with_something_to_do_is_left_to_its_node() -> None:
    line = Line()
    line.rows[3].busy = True
    run, _ = line.run_from_c5()
    assert run.done == [cleanup(5), cleanup(4)]
    assert run.ready is not None and run.ready.node == cleanup(3)
    assert run.found == (line.rows[3], line.stack)
    assert not line.holds(2, 3)


def test_a_node_of_another_traversal_is_left_to_its_node() -> None:
    line = Line()
    line.stack.current_traversal = "newer"
    run, c5 = line.run_from_c5()
    assert run.done == []
    assert run.substitute([c5], None) == ([c5], None)


def test_a_swap_that_misses_leaves_the_node_to_report_as_usual() -> None:
    line = Line()
    original = line.nothing_to_clean

    def racing(node: Node, row: Row, stack: Any, ready: Any) -> bool:
        if node == cleanup(4):
            # another writer reaches C3's row after the run read it
            line.deliver(cleanup(3), Node(3, True), None)
        return original(node, row, stack, ready)

    line.nothing_to_clean = racing  # type: ignore[method-assign]
    run, _ = line.run_from_c5()
    assert run.done == [cleanup(5)]
    assert run.ready is not None and run.ready.node == cleanup(4)
    assert run.found == (line.rows[4], line.stack)
    assert not line.holds(3, 4)


def test_a_swap_that_fires_nothing_ends_the_run_with_nothing_next() -> None:
    line = Line(extra_predecessor_of=3)  # C3 also waits for node 99
    run, c5 = line.run_from_c5()
    assert run.done == [cleanup(5), cleanup(4)]
    assert run.ready is None and run.found is None
    assert line.holds(3, 4)
    assert run.substitute([c5], ReadAhead(5)) == ([], None)


def test_a_retried_transaction_starts_the_run_over() -> None:
    line = Line()
    run, _ = line.run_from_c5(limit=1)
    first = list(run.done)
    ahead = ReadAhead(5, found=(line.rows[5], line.stack))
    ahead.outcome = lambda: None  # this time the swap fired nothing
    run(ahead, _NoTransaction())
    assert first == [cleanup(5)]
    assert run.done == [] and run.ready is None


class _NoTransaction:
    def resources(self, ids: Any) -> dict[int, Any]:
        raise AssertionError("nothing to read")

    def sync_points(self, traversal_id: str, ids: Any) -> dict[Any, Any]:
        raise AssertionError("nothing to read")

    def swap(self, row: Any, input_data: Any, extra_data: Any) -> bool:
        raise AssertionError("nothing to write")


def test_a_first_node_with_something_to_do_reads_nothing_more() -> None:
    line = Line()
    line.rows[5].busy = True
    run = CleanupRun(line.graph, T, cleanup(5), line.nothing_to_clean)
    ahead = ReadAhead(5, found=(line.rows[5], line.stack))
    ahead.outcome = lambda: sync_point.Ready(None, {}, {}, False)
    run(ahead, _NoTransaction())  # no statement beyond the read ahead
    assert run.done == [] and line.seen == [cleanup(5)]
