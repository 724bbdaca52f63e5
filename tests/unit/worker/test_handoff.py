"""A node hands its successors over in the transaction that releases its
resource, where it is their only predecessor (``docs/design/resume.md``,
"Handing over with the release")."""

from typing import Any

import pytest

from keel_heat_core.convergence import sync_point
from keel_heat_core.convergence.memory_store import MemorySyncPointStore
from keel_heat_core.convergence.node import Node
from keel_heat_core.convergence.store import (
    FirstWrite,
    ReadAhead,
)
from keel_heat_core.model import rows as r
from keel_heat_core.worker import hooks
from tests.unit.worker.fakes import Harness

LINE = {
    "a": {"properties": {"value": "1"}},
    "b": {"properties": {"value": "2", "ref": {"get_resource": "a"}}},
    "c": {"properties": {"value": "3"}, "depends_on": ["b"]},
}
JOIN = {
    "a": {"properties": {"value": "1"}},
    "b": {"properties": {"value": "2"}, "depends_on": ["a"]},
    "c": {"properties": {"value": "3"}, "depends_on": ["a", "b"]},
}


class Recorded:
    """What the releases of a run carried, and what nodes read.

    :ivar own: the rows nodes read for themselves.
    """

    def __init__(self, h: Harness) -> None:
        self.own: list[int] = []
        self._stores = h.stores
        self._read = h.stores.get_resource_and_stack
        h.stores.get_resource_and_stack = self.read  # type: ignore[method-assign]

    def read(self, resource_id: int) -> Any:
        self.own.append(resource_id)
        return self._read(resource_id)

    @property
    def releases(self) -> list[tuple[int, str, list[Any]]]:
        """``(row id, status written, [(entity, is_update, matched)])``
        of every lock write that carried sync point writes."""
        out = []
        for write in self._stores.lock_writes:
            firsts = [
                (w.entity_id, w.is_update, w.matched)
                for w in write.then
                if isinstance(w, FirstWrite)
            ]
            if firsts:
                out.append(
                    (write.resource_id, write.values.get("status"), firsts)
                )
        return out

    @property
    def ahead(self) -> list[ReadAhead]:
        """The reads releases made for the node run next."""
        return [
            w
            for write in self._stores.lock_writes
            for w in write.then
            if isinstance(w, ReadAhead)
        ]


def created(
    h: Harness, resources: dict[str, Any]
) -> tuple[str, dict[str, int], Recorded]:
    """Create a stack, recording the releases that hand nodes over:
    ``(stack id, row ids by name, record)``."""
    seen = Recorded(h)
    sid = h.new_stack(resources)
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    return sid, {name: row.id for name, row in h.rows(sid).items()}, seen


@pytest.mark.parametrize("successor_here", [False, True])
def test_each_release_of_a_line_hands_the_next_node_over(
    successor_here: bool,
) -> None:
    h = Harness(successor_here=successor_here)
    sid, ids, seen = created(h, LINE)
    a, b, c = ids["a"], ids["b"], ids["c"]
    assert seen.releases == [
        (a, r.COMPLETE, [(str(b), True, True)]),
        (b, r.COMPLETE, [(str(c), True, True)]),
        (c, r.COMPLETE, [(sid, True, True)]),  # the stack's, from its root
    ]
    # what b received through the handoff is a's node data as complete
    rows = h.rows(sid)
    assert rows["b"].properties == {"value": "2", "ref": rows["a"].physical_id}
    assert h.resource_events("b") == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]

    h.stores.lock_writes.clear()
    h.delete(sid)
    h.run()
    assert h.state(sid) == "DELETE_COMPLETE"
    # cleanup nodes run the other way: c, then b, then a (the root)
    assert seen.releases == [
        (c, r.COMPLETE, [(str(b), False, True)]),
        (b, r.COMPLETE, [(str(a), False, True)]),
        (a, r.COMPLETE, [(sid, True, True)]),
    ]


def test_a_join_is_written_by_its_last_predecessor_as_before() -> None:
    h = Harness()
    sid, ids, seen = created(h, JOIN)
    # a hands b over but not c, which waits for b too; b is not c's only
    # predecessor either, so it hands nothing over; c is the root
    assert seen.releases == [
        (ids["a"], r.COMPLETE, [(str(ids["b"]), True, True)]),
        (ids["c"], r.COMPLETE, [(sid, True, True)]),
    ]
    assert h.cloud.calls == [("create", "a"), ("create", "b"), ("create", "c")]


def test_a_node_with_a_post_hook_hands_nothing_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the fake plugins keep no resource data, so the node does not pause
    # at the hook here; what matters is that its release hands nothing
    # over, so that a paused node's successor is not triggered
    def hook_set(definition: Any, name: str, hook: str) -> bool:
        return name == "b" and hook == hooks.POST_CREATE

    monkeypatch.setattr(hooks, "hook_set", hook_set)
    sid, ids, seen = created(Harness(), LINE)
    assert [(rid, writes) for rid, _, writes in seen.releases] == [
        (ids["a"], [(str(ids["b"]), True, True)]),
        (ids["c"], [(sid, True, True)]),
    ]


def test_a_node_whose_attributes_are_read_reports_after_its_release() -> None:
    sid, ids, seen = created(
        Harness(),
        {
            "a": {"properties": {"value": "1"}},
            "b": {"properties": {"value": {"get_attr": ["a", "output"]}}},
            "c": {"properties": {"value": "3"}, "depends_on": ["b"]},
        },
    )
    # a's attribute is read once a is released, so a hands nothing over
    assert [(rid, writes) for rid, _, writes in seen.releases] == [
        (ids["b"], [(str(ids["c"]), True, True)]),
        (ids["c"], [(sid, True, True)]),
    ]


def line_created(
    successor_here: bool, writes_miss: bool = False
) -> tuple[Recorded, dict[str, int]]:
    """Create LINE, recording what nodes read; ``writes_miss``: every
    first write of a sync point misses. Returns the record and the row
    ids by name."""
    h = Harness(successor_here=successor_here)
    recorded = Recorded(h)
    if writes_miss:

        def missing(*args: Any) -> bool:
            return False

        h.stores.sync_points.first_write = missing  # type: ignore[union-attr,method-assign]
    sid = h.new_stack(LINE)
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    rows = h.rows(sid)
    # b received a's reference whichever way it was read
    assert rows["b"].properties == {"value": "2", "ref": rows["a"].physical_id}
    return recorded, {name: row.id for name, row in rows.items()}


def test_a_node_run_next_here_was_read_by_its_predecessors_release() -> None:
    recorded, ids = line_created(successor_here=True)
    # only a, cast by the stack's create, reads for itself; b and c were
    # read in the releases of a and b, which then ran them
    assert recorded.own == [ids["a"]]
    assert [(x.resource_id, x.found is not None) for x in recorded.ahead] == [
        (ids["b"], True),
        (ids["c"], True),
    ]


def test_a_read_ahead_names_the_line_that_follows_it() -> None:
    h = Harness(successor_here=True)
    chain = {"r0": {"properties": {"value": "0"}}}
    for i in range(1, 12):
        chain[f"r{i}"] = {
            "properties": {"value": "0"},
            "depends_on": [f"r{i - 1}"],
        }
    sid, ids, seen = created(h, chain)
    order = [ids[f"r{i}"] for i in range(12)]
    lines = [(x.resource_id, x.line) for x in seen.ahead]
    # each release reads its successor and at most seven rows after it
    assert lines == [
        (order[i], tuple(order[i + 1 : min(i + 8, 12)])) for i in range(1, 12)
    ]
    # a join ends a line: c has two predecessors (and is not handed over)
    h = Harness(successor_here=True)
    sid, ids, seen = created(h, JOIN)
    assert [(x.resource_id, x.line) for x in seen.ahead] == [(ids["b"], ())]


def test_a_node_cast_elsewhere_is_not_read_ahead() -> None:
    recorded, ids = line_created(successor_here=False)
    assert recorded.ahead == []
    assert sorted(recorded.own) == sorted(ids.values())


def test_a_read_ahead_of_a_missed_write_is_not_used() -> None:
    # every first write misses: the releases read nothing; the read and
    # swap that follows and fires the next node reads it instead
    recorded, ids = line_created(successor_here=True, writes_miss=True)
    assert len(recorded.ahead) == 2
    assert all(x.found is None for x in recorded.ahead)
    assert recorded.own == [ids["a"]]


def test_cleanups_with_nothing_to_clean_read_the_next_in_their_swap() -> None:
    h = Harness(successor_here=True)
    sid, ids, seen = created(h, LINE)
    seen.own.clear()
    h.update(sid, {n: {**d, "properties": {**d["properties"], "value": "9"}}
                   for n, d in LINE.items()})  # fmt: skip
    h.run()
    assert h.state(sid) == "UPDATE_COMPLETE"
    # a's update node is cast and reads itself; every later node (the
    # update nodes of b and c, then the cleanup nodes of c, b and a,
    # which find nothing to clean) was read by the write that fired it
    assert seen.own == [ids["a"]]


def test_a_batched_swap_reads_nothing_ahead() -> None:
    store = MemorySyncPointStore()
    store.read_ahead = lambda resource_id: ("row", "stack")
    store.create_sync_points("s", "t", [("5", True)])
    senders = [Node(1, True), Node(2, True)]
    ahead = ReadAhead(5)
    both = [
        sync_point.Delivery(frozenset(senders), s, {}, ahead=ahead)
        for s in senders
    ]
    sync_point.sync_many(store, "5", "t", True, both)
    assert ahead.found is None
    alone = ReadAhead(5)
    store.create_sync_points("s", "t2", [("5", True)])
    sync_point.sync_many(
        store,
        "5",
        "t2",
        True,
        [sync_point.Delivery(frozenset(senders), senders[0], {}, ahead=alone)],
    )
    assert alone.found == ("row", "stack")
