"""Batched sync point writes: same outcome as one write per sender."""

import threading
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keel_heat_core.convergence.combiner import SyncCombiner
from keel_heat_core.convergence.memory_store import MemorySyncPointStore
from keel_heat_core.convergence.node import Node
from keel_heat_core.convergence.store import SyncPointRow
from keel_heat_core.convergence.sync_point import (
    Delivery,
    Ready,
    SyncPointNotFound,
    sync,
    sync_many,
)

STACK = "stack-1"
TRAVERSAL = "trav-1"


def no_sleep(_: float) -> None:
    return None


def one_row() -> MemorySyncPointStore:
    store = MemorySyncPointStore()
    store.create_sync_points(STACK, TRAVERSAL, [("9", True)])
    return store


@st.composite
def deliveries(draw: st.DrawFn) -> list[Delivery]:
    """Deliveries to one row: predecessors, duplicates, re-triggers."""
    preds = frozenset(
        Node(i, True) for i in range(1, draw(st.integers(1, 5)) + 1)
    )
    senders = st.sampled_from(sorted(preds) + [Node(9, True)])
    out = []
    for _ in range(draw(st.integers(1, 8))):
        sender = draw(senders)
        failures = draw(
            st.none() | st.dictionaries(st.sampled_from("abc"), st.text())
        )
        out.append(
            Delivery(
                preds,
                sender,
                draw(st.integers(0, 3) | st.none()),
                failures or None,
                draw(st.booleans()),
            )
        )
    return out


@settings(max_examples=200, deadline=None)
@given(deliveries(), st.integers(0, 8))
def test_a_batch_is_the_sequence_of_its_writes(
    batch: list[Delivery], split: int
) -> None:
    """sync_many of a batch (after some writes one by one) gives every
    delivery the outcome, and the row the content, that one sync call per
    delivery gives."""
    one_by_one, batched = one_row(), one_row()
    expected: list[Ready | None] = []
    for d in batch:
        expected.append(
            sync(
                one_by_one,
                "9",
                TRAVERSAL,
                True,
                d.predecessors,
                d.sender,
                d.value,
                d.new_failures,
                d.skip_propagate,
                no_sleep,
            )  # fmt: skip
        )
    got: list[Ready | None] = []
    for part in (batch[:split], batch[split:]):
        if part:
            got += sync_many(batched, "9", TRAVERSAL, True, part, no_sleep)
    assert got == expected
    assert batched.rows()[0].input_data == one_by_one.rows()[0].input_data
    extra = batched.rows()[0].extra_data or {}
    assert extra == (one_by_one.rows()[0].extra_data or {})


class SlowStore(MemorySyncPointStore):
    """Reads take a while, so that concurrent writers pile up."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def get_sync_point(
        self, entity_id: str, traversal_id: str, is_update: bool
    ) -> SyncPointRow | None:
        threading.Event().wait(0.005)
        return super().get_sync_point(entity_id, traversal_id, is_update)

    def update_sync_point(
        self,
        row: SyncPointRow,
        input_data: dict[str, Any],
        extra_data: dict[str, Any] | None,
    ) -> bool:
        done = super().update_sync_point(row, input_data, extra_data)
        self.writes += done
        return done


def deliver_all(
    store: MemorySyncPointStore,
    combiners: list[SyncCombiner],
    senders: list[Node],
) -> Counter[Node]:
    """Every sender delivers from its own thread, spread over engines."""
    preds = frozenset(senders)
    fired: Counter[Node] = Counter()
    lock = threading.Lock()
    start = threading.Barrier(len(senders))

    def run(index: int, sender: Node) -> None:
        start.wait()
        combiner = combiners[index % len(combiners)]
        ready = combiner.sync(
            store, "9", TRAVERSAL, True, Delivery(preds, sender, index),
            no_sleep,
        )  # fmt: skip
        if ready is not None:
            assert preds <= {Node(*_key(k)) for k in ready.input_data}
            with lock:
                fired[sender] += 1

    threads = [
        threading.Thread(target=run, args=(i, s))
        for i, s in enumerate(senders)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return fired


def _key(text: str) -> tuple[int, bool]:
    ident, flag = text.removeprefix("tuple:(").split(",")[:2]
    return int(ident), flag.strip() == "True"


@pytest.mark.parametrize("engines", [1, 3])
def test_concurrent_senders_fire_the_row_exactly_once(engines: int) -> None:
    store = SlowStore()
    store.create_sync_points(STACK, TRAVERSAL, [("9", True)])
    senders = [Node(i, True) for i in range(1, 41)]
    fired = deliver_all(
        store, [SyncCombiner() for _ in range(engines)], senders
    )
    assert sum(fired.values()) == 1
    assert len(store.rows()[0].input_data) == 40
    # writers of one engine share writes instead of racing each other
    assert store.writes < 40
    if engines == 1:
        assert store.cas_misses == 0


def test_every_queued_caller_sees_a_missing_row() -> None:
    store = SlowStore()  # no row: the traversal was superseded
    errors: list[BaseException] = []
    combiner = SyncCombiner()

    def run(sender: Node) -> None:
        try:
            combiner.sync(
                store, "9", TRAVERSAL, True,
                Delivery(frozenset({sender}), sender, None), no_sleep,
            )  # fmt: skip
        except SyncPointNotFound as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=run, args=(Node(i, True),)) for i in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(errors) == 8
