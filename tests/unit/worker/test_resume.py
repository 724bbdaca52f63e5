"""Automatic resume re-drives lost nodes and finishes the traversal."""

import pytest

from keel_heat_core.worker.resume import Resumer
from tests.unit.worker.fakes import Harness

CHAIN = {
    "a": {"properties": {"value": "1"}},
    "b": {"properties": {"value": "2"}, "depends_on": ["a"]},
    "c": {"properties": {"value": "3"}, "depends_on": ["b"]},
    "d": {"properties": {"value": "4"}, "depends_on": ["a"]},
}


@pytest.mark.parametrize("lose_at", range(5))
def test_lost_casts_are_re_driven_after_two_quiet_passes(lose_at: int) -> None:
    h = Harness(seed=lose_at)
    sid = h.new_stack(CHAIN)
    for _ in range(lose_at):
        ctxt, args, kwargs = h.bus.pop()
        h.workers[0](ctxt, *args, **kwargs)
    h.bus.queue.clear()  # every cast in flight is lost
    resumer = Resumer(h.workers[1].deps)
    for _ in range(10):
        if h.state(sid) == "CREATE_COMPLETE":
            break
        resumer.run_once()
        h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    assert len(h.cloud.objects) == 4
    assert [n for op, n in h.cloud.calls if op == "create"].count("a") == 1


def test_a_healthy_traversal_is_not_disturbed() -> None:
    h = Harness()
    sid = h.new_stack(CHAIN)
    resumer = Resumer(h.workers[1].deps)
    assert resumer.run_once() == []  # first pass only records progress
    ctxt, args, kwargs = h.bus.pop()
    h.workers[0](ctxt, *args, **kwargs)
    assert resumer.run_once() == []  # progress was made
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"


def test_node_locked_by_a_dead_engine_is_resumed_at_once() -> None:
    h = Harness()
    sid = h.new_stack(CHAIN)
    ctxt, args, kwargs = h.bus.pop()
    h.bus.queue.clear()
    row = h.rows(sid)["a"]
    h.stores.update_resource(
        row.id,
        {"engine_id": "engine-9", "atomic_key": 1, "action": "CREATE",
         "status": "IN_PROGRESS"},
    )  # fmt: skip
    resumer = Resumer(h.workers[1].deps)
    assert resumer.run_once() == []  # engine-9 answers the probe
    h.alive.dead.add("engine-9")
    assert len(resumer.run_once()) == 1
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    rows = h.stores.get_resources(sid)
    # the FAILED original is replaced, then deleted in the same traversal
    # (it has no cleanup node of its own): one row per resource is left
    assert row.id not in [x.id for x in rows]
    assert sorted(x.name for x in rows) == ["a", "b", "c", "d"]
    new = [x for x in rows if x.name == "a"][0]
    assert (new.action, new.status, new.replaces) == (
        "CREATE",
        "COMPLETE",
        None,
    )
