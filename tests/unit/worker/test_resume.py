"""Automatic resume re-drives lost nodes and finishes the traversal."""

import datetime
import threading

import pytest

from keel_heat_core.worker import converge
from keel_heat_core.worker.resume import Resumer
from tests.unit.worker import fakes
from tests.unit.worker.fakes import Harness

CHAIN = {
    "a": {"properties": {"value": "1"}},
    "b": {"properties": {"value": "2"}, "depends_on": ["a"]},
    "c": {"properties": {"value": "3"}, "depends_on": ["b"]},
    "d": {"properties": {"value": "4"}, "depends_on": ["a"]},
}


def resume_until_complete(h: Harness, sid: str, passes: int) -> None:
    """Another engine's resume passes, each followed by the casts it
    made, until the stack is created."""
    resumer = Resumer(h.workers[1].deps)
    for _ in range(passes):
        if h.state(sid) == "CREATE_COMPLETE":
            break
        resumer.run_once()
        h.run()
    assert h.state(sid) == "CREATE_COMPLETE"


@pytest.mark.parametrize("lose_at", range(5))
def test_lost_casts_are_re_driven_after_two_quiet_passes(lose_at: int) -> None:
    h = Harness(seed=lose_at)
    sid = h.new_stack(CHAIN)
    for _ in range(lose_at):
        ctxt, args, kwargs = h.bus.pop()
        h.workers[0](ctxt, *args, **kwargs)
    h.bus.queue.clear()  # every cast in flight is lost
    resume_until_complete(h, sid, passes=10)
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


def test_own_lock_nobody_works_on_is_released() -> None:
    """A write failed between lock and release: the engine is alive, but
    its own resume pass frees the row and the traversal finishes."""
    h = Harness()
    sid = h.new_stack(CHAIN)
    h.bus.pop()
    h.bus.queue.clear()
    deps = h.workers[1].deps
    row = h.rows(sid)["a"]
    h.stores.update_resource(
        row.id,
        {"engine_id": deps.engine_id, "atomic_key": 1, "action": "CREATE",
         "status": "IN_PROGRESS"},
    )  # fmt: skip
    busy = {row.id}
    resumer = Resumer(deps, lambda rid: rid in busy)
    assert resumer.run_once() == []  # a node of the row runs here
    busy.clear()
    assert len(resumer.run_once()) == 1
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    assert sorted(x.name for x in h.stores.get_resources(sid)) == list("abcd")


def test_check_resource_tells_which_rows_it_works_on() -> None:
    h = Harness()
    sid = h.new_stack(CHAIN)
    check = h.workers[0]
    row = h.rows(sid)["a"]
    seen = []
    real = check.check

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(check.working_on(row.id))
        real(*args, **kwargs)

    check.check = spy  # type: ignore[method-assign]
    ctxt, args, kwargs = h.bus.pop()
    while args[0] != row.id:
        ctxt, args, kwargs = h.bus.pop()
    check(ctxt, *args, **kwargs)
    assert seen == [True]
    assert not check.working_on(row.id)


def test_traversal_with_no_node_left_is_completed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine that finished the last node died before writing the
    stack's final state: the resume pass writes it."""
    from keel_heat_core.worker import check_resource, stack_state

    h = Harness()
    sid = h.new_stack(CHAIN)
    real = stack_state.mark_complete
    monkeypatch.setattr(
        check_resource.stack_state, "mark_complete", lambda *a, **k: False
    )
    h.run()
    assert h.state(sid) == "CREATE_IN_PROGRESS"
    monkeypatch.setattr(check_resource.stack_state, "mark_complete", real)
    resumer = Resumer(h.workers[1].deps)
    assert resumer.run_once() == []
    assert h.state(sid) == "CREATE_IN_PROGRESS"  # one quiet pass only
    resumer.run_once()
    assert h.state(sid) == "CREATE_COMPLETE"


def _later(h: Harness, seconds: float) -> None:
    from tests.unit.worker.fakes import NOW

    for worker in h.workers:
        worker.deps.now = lambda: NOW + datetime.timedelta(seconds=seconds)


@pytest.mark.parametrize("disable_rollback", [True, False])
def test_stack_past_its_timeout_is_failed_with_no_node_running(
    disable_rollback: bool,
) -> None:
    """Every cast is lost and nothing runs: the pass fails the stack once
    its timeout (and the grace) passed, with Heat's reason."""
    h = Harness()
    sid = h.new_stack(CHAIN, timeout=1, disable_rollback=disable_rollback)
    h.bus.queue.clear()
    resumer = Resumer(h.workers[1].deps, timeout_grace=5)
    _later(h, 60 + 4)
    resumer.run_once()
    resumer.run_once()
    assert h.state(sid) == "CREATE_IN_PROGRESS"  # within the grace
    h.bus.queue.clear()
    _later(h, 60 + 6)
    assert resumer.run_once() == []
    stack = h.stack(sid)
    assert "CREATE_FAILED" in h.stack_events(sid)
    if disable_rollback:
        assert (h.state(sid), stack.status_reason) == (
            "CREATE_FAILED",
            "Timed out",
        )
        assert stack.current_traversal == ""
    else:
        assert h.state(sid) == "ROLLBACK_IN_PROGRESS"
        h.run()
        assert h.state(sid) == "ROLLBACK_COMPLETE"


def test_stack_without_a_graph_times_out() -> None:
    """The engine that started the traversal died before storing its
    graph: nothing can resume it, the clock still ends it."""
    h = Harness()
    sid = h.new_stack(CHAIN, disable_rollback=True)
    h.bus.queue.clear()
    h.stack(sid).current_deps = None
    for worker in h.workers:
        worker.deps.stack_action_timeout = 30
    resumer = Resumer(h.workers[1].deps, timeout_grace=0)
    assert resumer.run_once() == []
    assert h.state(sid) == "CREATE_IN_PROGRESS"
    _later(h, 31)
    resumer.run_once()
    assert (h.state(sid), h.stack(sid).status_reason) == (
        "CREATE_FAILED",
        "Timed out",
    )


def test_unlocked_node_running_here_is_not_re_cast() -> None:
    """A node past its action (resolving attributes, propagating) holds
    no lock; while it runs in this engine the pass leaves it alone."""
    h = Harness()
    sid = h.new_stack(CHAIN)
    h.bus.queue.clear()  # the leaf's cast is lost...
    running = {True}
    resumer = Resumer(h.workers[1].deps, lambda row_id: True in running)
    assert resumer.run_once() == []
    assert resumer.run_once() == []  # ...but "runs here": not re-cast
    running.clear()
    assert len(resumer.run_once()) == 1
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"


LINE = {
    "a": {"properties": {"value": "1"}},
    "b": {"properties": {"value": "2"}, "depends_on": ["a"]},
    "c": {"properties": {"value": "3"}, "depends_on": ["b"]},
    "d": {"properties": {"value": "4"}, "depends_on": ["c"]},
}


class _Died(BaseException):
    """The engine process dies in the middle of a node."""


def test_a_chain_runs_in_the_thread_of_its_first_cast() -> None:
    h = Harness(successor_here=True)
    sid = h.new_stack(LINE)
    ctxt, args, kwargs = h.bus.pop()
    assert not h.bus.queue
    h.workers[0](ctxt, *args, **kwargs)
    # every successor ran here: nothing was cast
    assert not h.bus.queue
    assert h.state(sid) == "CREATE_COMPLETE"
    assert [n for op, n in h.cloud.calls if op == "create"] == list("abcd")
    assert all(x.engine_id is None for x in h.rows(sid).values())


def test_a_fan_out_keeps_one_successor_and_casts_the_others() -> None:
    h = Harness(successor_here=True)
    sid = h.new_stack(CHAIN)  # a -> b -> c, a -> d
    ctxt, args, kwargs = h.bus.pop()
    h.workers[0](ctxt, *args, **kwargs)
    assert len(h.bus.queue) == 1  # b or c, the other ran here
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    assert sorted(n for op, n in h.cloud.calls if op == "create") == list(
        "abcd"
    )


def test_an_engine_dying_inside_a_kept_successor_is_resumed() -> None:
    """The node kept instead of cast dies with its engine, its row locked:
    like a lost cast, the resume pass of another engine re-drives it."""
    h = Harness(successor_here=True)
    sid = h.new_stack(LINE)
    real = fakes.TestResource.handle_create

    def dies_at_c(self: fakes.TestResource) -> str:
        if self.name == "c":
            raise _Died()
        return real(self)

    fakes.TestResource.handle_create = dies_at_c  # type: ignore[method-assign]
    try:
        ctxt, args, kwargs = h.bus.pop()
        with pytest.raises(_Died):
            h.workers[0](ctxt, *args, **kwargs)
    finally:
        fakes.TestResource.handle_create = real  # type: ignore[method-assign]
    assert not h.bus.queue  # b ran here too and c was never cast
    assert not h.workers[0].working_on(h.rows(sid)["c"].id)
    locked = h.rows(sid)["c"]
    assert (locked.engine_id, locked.status) == ("engine-0", "IN_PROGRESS")
    h.alive.dead.add("engine-0")
    resumer = Resumer(h.workers[1].deps)
    for _ in range(5):
        if h.state(sid) == "CREATE_COMPLETE":
            break
        resumer.run_once()
        h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    names = sorted(x.name for x in h.stores.get_resources(sid))
    assert names == list("abcd")
    assert [n for op, n in h.cloud.calls if op == "create"].count("a") == 1


WIDE = {f"w{i}": {"properties": {"value": str(i)}} for i in range(7)}


def _wait_for_leaf_threads() -> None:
    for thread in threading.enumerate():
        if thread.name.startswith("leaf-casts-"):
            thread.join(10)


def test_leaves_past_the_first_casts_go_out_from_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(converge, "SYNC_LEAF_CASTS", 3)
    h = Harness()
    sid = h.new_stack(WIDE)
    _wait_for_leaf_threads()
    assert len(h.bus.queue) == 7
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    assert len(h.cloud.objects) == 7


def test_leaves_an_engine_never_cast_are_resumed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine dies while its thread casts the last leaves: they are
    pending nodes, and another engine's resume pass re-drives them."""
    monkeypatch.setattr(converge, "SYNC_LEAF_CASTS", 3)
    h = Harness()
    casts = 0
    real = h.bus.check_resource

    def dying(ctxt: object, *args: object, **kwargs: object) -> None:
        nonlocal casts
        casts += 1
        if casts > 5:
            raise RuntimeError("engine gone")
        real(ctxt, *args, **kwargs)

    monkeypatch.setattr(h.bus, "check_resource", dying)
    sid = h.new_stack(WIDE)
    _wait_for_leaf_threads()
    monkeypatch.setattr(h.bus, "check_resource", real)
    assert len(h.bus.queue) == 5
    h.run()
    assert h.state(sid) == "CREATE_IN_PROGRESS"
    resume_until_complete(h, sid, passes=5)
    assert len(h.cloud.objects) == 7
