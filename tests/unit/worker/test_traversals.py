"""Whole traversals through the real worker, in memory, with 2 engines
and casts delivered in random order."""

from typing import Any

import pytest

from tests.unit.worker import fakes
from tests.unit.worker.fakes import Harness

CHAIN = {
    "a": {"properties": {"value": "1"}},
    "b": {"properties": {"value": "2", "ref": {"get_resource": "a"}}},
    "c": {"properties": {"value": "3"}, "depends_on": ["a", "b"]},
}


@pytest.mark.parametrize("seed", range(5))
def test_create(seed: int) -> None:
    h = Harness(seed=seed)
    sid = h.new_stack(CHAIN)
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    stack = h.stack(sid)
    assert stack.status_reason == "Stack CREATE completed successfully"
    assert h.stack_events(sid) == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    rows = h.rows(sid)
    assert {n: f"{x.action}_{x.status}" for n, x in rows.items()} == {
        "a": "CREATE_COMPLETE",
        "b": "CREATE_COMPLETE",
        "c": "CREATE_COMPLETE",
    }
    assert all(x.engine_id is None for x in rows.values())
    assert rows["b"].properties == {"value": "2", "ref": rows["a"].physical_id}
    assert rows["b"].requires == [rows["a"].id]
    assert sorted(rows["c"].requires) == sorted([rows["a"].id, rows["b"].id])
    assert h.cloud.calls == [
        ("create", "a"),
        ("create", "b"),
        ("create", "c"),
    ]
    assert h.resource_events("a") == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    assert h.sync_points.rows() == []


@pytest.mark.parametrize("seed", range(5))
def test_update_in_place_add_remove_and_replace(seed: int) -> None:
    h = Harness(seed=seed)
    sid = h.new_stack(CHAIN)
    h.run()
    before = h.rows(sid)
    h.update(
        sid,
        {
            "a": {"properties": {"value": "1-new"}},  # in place
            "b": {  # replaced: 'ref' may not change in place
                "properties": {"value": "2", "ref": "x"},
            },
            "d": {"properties": {"value": "4"}, "depends_on": ["a"]},
        },
    )
    h.run()
    assert h.state(sid) == "UPDATE_COMPLETE", h.stack(sid).status_reason
    rows = h.rows(sid)
    assert set(rows) == {"a", "b", "d"}
    assert rows["a"].id == before["a"].id
    assert rows["a"].action == "UPDATE"
    assert h.cloud.objects[rows["a"].physical_id]["value"] == "1-new"
    assert rows["b"].id != before["b"].id
    assert rows["b"].replaces is None
    assert before["b"].physical_id not in h.cloud.objects
    assert before["c"].physical_id not in h.cloud.objects
    assert set(h.cloud.objects) == {x.physical_id for x in rows.values()}
    assert h.stack(sid).prev_raw_template_id is None
    # the replacement is created before the original is deleted
    calls = h.cloud.calls
    assert calls.index(("create", "b"), 3) < calls.index(("delete", "b"))


@pytest.mark.parametrize("seed", range(3))
def test_delete(seed: int) -> None:
    h = Harness(seed=seed)
    sid = h.new_stack(CHAIN)
    h.run()
    h.delete(sid)
    h.run()
    assert h.state(sid) == "DELETE_COMPLETE"
    assert h.stack(sid).deleted_at is not None
    assert h.cloud.objects == {}
    assert h.rows(sid) == {}
    deletes = [n for op, n in h.cloud.calls if op == "delete"]
    assert deletes.index("c") < deletes.index("b") < deletes.index("a")


def test_failed_create_rolls_back_when_enabled() -> None:
    h = Harness()
    sid = h.new_stack(
        {
            "a": {"properties": {"value": "1"}},
            "b": {"properties": {"fail": True}, "depends_on": ["a"]},
        },
        disable_rollback=False,
    )
    h.run()
    assert h.state(sid) == "ROLLBACK_COMPLETE"
    assert h.stack_events(sid) == [
        "CREATE_IN_PROGRESS",
        "CREATE_FAILED",
        "ROLLBACK_IN_PROGRESS",
        "ROLLBACK_COMPLETE",
    ]
    assert h.cloud.objects == {}
    assert h.rows(sid) == {}


def test_failed_create_without_rollback() -> None:
    h = Harness()
    sid = h.new_stack(
        {
            "a": {"properties": {"value": "1"}},
            "b": {"properties": {"fail": True}, "depends_on": ["a"]},
            "c": {"properties": {}, "depends_on": ["b"]},
        }
    )
    h.run()
    stack = h.stack(sid)
    assert h.state(sid) == "CREATE_FAILED"
    assert stack.status_reason == (
        "Resource CREATE failed: ValueError: resources.b: Test Resource failed"
    )
    assert stack.current_traversal == ""
    rows = h.rows(sid)
    assert rows["b"].status == "FAILED"
    assert rows["b"].status_reason == (
        "ValueError: resources.b: Test Resource failed"
    )
    assert rows["c"].action == "INIT"
    # an update afterwards replaces the failed resource and completes
    h.update(
        sid,
        {
            "a": {"properties": {"value": "1"}},
            "b": {"properties": {}, "depends_on": ["a"]},
            "c": {"properties": {}, "depends_on": ["b"]},
        },
    )
    h.run()
    assert h.state(sid) == "UPDATE_COMPLETE"
    assert {x.status for x in h.rows(sid).values()} == {"COMPLETE"}


@pytest.mark.parametrize("seed", range(8))
def test_preemption_by_a_newer_update(seed: int) -> None:
    h = Harness(seed=seed)
    wide = {f"r{i}": {"properties": {"value": "0"}} for i in range(6)}
    sid = h.new_stack(wide)
    h.run()
    h.update(sid, {n: {"properties": {"value": "1"}} for n in wide})
    for _ in range(3):  # part of the first update happens
        ctxt, args, kwargs = h.bus.pop()
        h.workers[0](ctxt, *args, **kwargs)
    final = {f"r{i}": {"properties": {"value": "2"}} for i in range(4)}
    h.update(sid, final)
    h.run()
    assert h.state(sid) == "UPDATE_COMPLETE"
    rows = h.rows(sid)
    assert set(rows) == set(final)
    assert {
        h.cloud.objects[x.physical_id]["value"] for x in rows.values()
    } == {"2"}
    assert set(h.cloud.objects) == {x.physical_id for x in rows.values()}


def test_dead_engines_lock_is_stolen_and_the_resource_replaced() -> None:
    h = Harness()
    sid = h.new_stack({"a": {"properties": {"value": "1"}}})
    h.bus.queue.clear()  # engine-9 took the cast and died mid-create
    row = h.rows(sid)["a"]
    h.stores.update_resource(
        row.id,
        {"engine_id": "engine-9", "atomic_key": 1, "action": "CREATE",
         "status": "IN_PROGRESS"},
    )  # fmt: skip
    h.alive.dead.add("engine-9")
    h.update(sid, {"a": {"properties": {"value": "1"}}})
    h.run()
    assert h.state(sid) == "UPDATE_COMPLETE"
    rows = h.rows(sid)
    assert rows["a"].status == "COMPLETE"
    assert rows["a"].id != row.id  # the FAILED original was replaced
    assert "CREATE_FAILED" in h.resource_events("a")
    failed = [e for e in h.stores.events if e.resource_status == "FAILED"]
    assert failed[0].resource_status_reason == (
        "Worker went down during resource CREATE"
    )


def test_live_engines_lock_is_respected() -> None:
    h = Harness()
    sid = h.new_stack({"a": {"properties": {"value": "1"}}})
    h.bus.queue.clear()
    row = h.rows(sid)["a"]
    h.stores.update_resource(
        row.id, {"engine_id": "engine-9", "atomic_key": 1}
    )
    h.update(sid, {"a": {"properties": {"value": "1"}}})
    h.run()
    assert h.state(sid) == "UPDATE_IN_PROGRESS"  # waits for engine-9
    assert h.rows(sid)["a"].engine_id == "engine-9"


def test_timeout_fails_the_stack() -> None:
    import datetime

    h = Harness()
    sid = h.new_stack(CHAIN, timeout=1)
    h.stores.stacks[sid].created_at -= datetime.timedelta(minutes=2)
    h.run()
    assert h.state(sid) == "CREATE_FAILED"
    assert h.stack(sid).status_reason == "Timed out"


def test_suspend_resume_check() -> None:
    h = Harness()
    sid = h.new_stack(CHAIN)
    h.run()
    tid = h.stack(sid).raw_template_id
    h.converge(sid, tid, "SUSPEND")
    h.run()
    assert h.state(sid) == "SUSPEND_COMPLETE"
    assert {f"{x.action}_{x.status}" for x in h.rows(sid).values()} == {
        "SUSPEND_COMPLETE"
    }
    h.converge(sid, tid, "RESUME")
    h.run()
    assert h.state(sid) == "RESUME_COMPLETE"
    h.converge(sid, tid, "CHECK")
    h.run()
    assert h.state(sid) == "CHECK_COMPLETE"
    rows = h.rows(sid)
    assert {x.status_reason for x in rows.values()} == {
        "CHECK not supported for OS::Heat::TestResource"
    }
    assert len(h.cloud.objects) == 3  # nothing was re-created


def test_resume_of_a_resource_never_suspended_fails() -> None:
    h = Harness()
    sid = h.new_stack({"a": {"properties": {"value": "1"}}})
    h.run()
    h.converge(sid, h.stack(sid).raw_template_id, "RESUME")
    h.run()
    assert h.state(sid) == "RESUME_FAILED"
    assert h.stack(sid).status_reason == (
        "Resource RESUME failed: Error: resources.a: "
        "State ('CREATE', 'COMPLETE') invalid for resume"
    )


@pytest.mark.parametrize("seed", range(6))
def test_update_storm_ends_with_the_last_template(seed: int) -> None:
    import random

    rnd = random.Random(seed)
    h = Harness(seed=seed)
    sid = h.new_stack({"a": {"properties": {"value": "0"}}})
    h.run()
    final: dict[str, object] = {}
    for i in range(20):
        names = rnd.sample(["a", "b", "c", "d", "e"], rnd.randint(1, 5))
        final = {
            n: {
                "properties": {"value": str(i), "ref": n if i % 3 else "x"},
            }
            for n in names
        }
        h.update(sid, final)
        for _ in range(rnd.randint(0, 6)):  # part of it runs
            if h.bus.queue:
                ctxt, args, kwargs = h.bus.pop()
                h.workers[rnd.randrange(2)](ctxt, *args, **kwargs)
    h.run()
    assert h.state(sid) == "UPDATE_COMPLETE", h.stack(sid).status_reason
    rows = h.rows(sid)
    assert set(rows) == set(final)
    assert {x.status for x in rows.values()} == {"COMPLETE"}
    # nothing orphaned: the cloud holds exactly the live rows' objects
    assert set(h.cloud.objects) == {x.physical_id for x in rows.values()}
    for name, row in rows.items():
        spec = final[name]["properties"]  # type: ignore[index]
        assert h.cloud.objects[row.physical_id]["value"] == spec["value"]


def test_cancel_with_rollback_returns_to_the_previous_template() -> None:
    from keel_heat_core.worker.converge import rollback

    h = Harness()
    sid = h.new_stack({"a": {"properties": {"value": "old"}}})
    h.run()
    h.update(
        sid,
        {
            "a": {"properties": {"value": "new"}},
            "b": {"properties": {"value": "added"}},
        },
    )
    ctxt, args, kwargs = h.bus.pop()  # one node of the update runs
    h.workers[0](ctxt, *args, **kwargs)
    stack = h.stores.get_stack(sid)
    assert stack is not None
    rollback(h.workers[0].deps, None, stack)
    h.run()
    assert h.state(sid) == "ROLLBACK_COMPLETE"
    rows = h.rows(sid)
    assert set(rows) == {"a"}
    assert h.cloud.objects[rows["a"].physical_id]["value"] == "old"
    assert len(h.cloud.objects) == 1


def test_abandon_keeps_the_physical_resources() -> None:
    h = Harness()
    sid = h.new_stack(CHAIN)
    h.run()
    stack = h.stores.get_stack(sid)
    assert stack is not None
    from keel_heat_core.worker.converge import converge_stack

    converge_stack(
        h.workers[0].deps,
        None,
        stack,
        h.templates.store({}),
        "DELETE",
        abandon=True,
    )
    h.run()
    assert h.state(sid) == "DELETE_COMPLETE"
    assert len(h.cloud.objects) == 3
    assert [op for op, _ in h.cloud.calls].count("delete") == 0


class CheckedResource(fakes.TestResource):
    def handle_check(self) -> None:
        if self.properties.get("broken"):
            raise ValueError("gone missing")


def test_check_reports_every_failure_and_keeps_going() -> None:
    h = Harness()
    for worker in h.workers:
        worker.deps.plugins = lambda d, row, props, s: CheckedResource(
            h.cloud, row, props
        )
    sid = h.new_stack(
        {
            "a": {"properties": {"broken": True}},
            "b": {"properties": {}, "depends_on": ["a"]},
            "c": {"properties": {"broken": True}},
            "d": {"properties": {}},
        }
    )
    h.run()
    h.converge(sid, h.stack(sid).raw_template_id, "CHECK")
    h.run()
    assert h.state(sid) == "CHECK_FAILED"
    assert h.stack(sid).status_reason == (
        "Resource CHECK failed: "
        "a: ValueError: resources.a: gone missing; "
        "c: ValueError: resources.c: gone missing"
    )
    rows = h.rows(sid)
    assert (rows["d"].action, rows["d"].status) == ("CHECK", "COMPLETE")
    assert rows["b"].action == "CREATE"  # skipped after a failed


def test_delete_does_not_wait_on_properties_that_no_longer_resolve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cleanup resolves with no input data; when a property cannot be
    resolved then, the resource is deleted with the properties stored at
    create, instead of the node failing (and being retried) for good."""
    h = Harness()
    sid = h.new_stack(CHAIN)
    h.run()

    def unresolvable(self: fakes.Definition, view: object) -> object:
        raise ValueError(f"{self.name}: cannot be resolved now")

    monkeypatch.setattr(fakes.Definition, "resolve_properties", unresolvable)
    h.delete(sid)
    h.run()
    assert h.state(sid) == "DELETE_COMPLETE", h.stack(sid).status_reason
    assert h.cloud.objects == {}
    deleted = [n for op, n in h.cloud.calls if op == "delete"]
    assert sorted(deleted) == ["a", "b", "c"]


def test_dead_engines_lock_is_taken_over_once() -> None:
    """Two engines read the dead holder's lock, then both steal it: the
    second one's compare-and-swap misses, so the row fails (and is
    replaced) once, and only one node is re-cast."""
    h = Harness()
    sid = h.new_stack({"a": {"properties": {"value": "1"}}})
    h.bus.queue.clear()  # engine-9 took the cast and died mid-create
    row = h.rows(sid)["a"]
    h.stores.update_resource(
        row.id,
        {"engine_id": "engine-9", "atomic_key": 1, "action": "CREATE",
         "status": "IN_PROGRESS"},
    )  # fmt: skip
    h.alive.dead.add("engine-9")
    stale = h.stores.read_lock(row.id)
    assert stale is not None
    stack = h.stores.get_stack(sid)
    assert stack is not None
    data: dict[str, Any] = {"input_data": {}}
    first, second = h.workers
    first._steal(None, h.rows(sid)["a"], stack, data, True, stale)
    second._steal(None, h.rows(sid)["a"], stack, data, True, stale)
    reasons = [e.resource_status_reason for e in h.stores.events]
    assert reasons.count("Worker went down during resource CREATE") == 1
    assert len(h.bus.queue) == 1  # one re-cast
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    assert [x.name for x in h.stores.resources.values()] == ["a"]


def test_lost_database_fails_the_locked_row_and_its_stack() -> None:
    """A node that gave up on the database holding its lock: the next
    resume pass fails the row and the stack instead of replacing it."""
    h = Harness()
    sid = h.new_stack({"a": {"properties": {"value": "1"}}})
    h.bus.queue.clear()
    row = h.rows(sid)["a"]
    h.stores.update_resource(
        row.id,
        {"engine_id": "engine-0", "atomic_key": 1, "action": "CREATE",
         "status": "IN_PROGRESS"},
    )  # fmt: skip
    worker = h.workers[0]

    class DBConnectionError(Exception):
        pass

    with pytest.raises(DBConnectionError), worker.lost_database(row.id):
        raise DBConnectionError("Can't connect to MySQL server")
    assert worker.lost_writes.reason(row.id) == (
        "Can't connect to MySQL server"
    )
    released = worker.lost_writes.release(worker.deps, None)
    assert released == 1
    failed = h.rows(sid)["a"]
    assert (failed.engine_id, failed.status) == (None, "FAILED")
    assert "database unreachable" in failed.status_reason
    assert h.state(sid) == "CREATE_FAILED"
    assert worker.lost_writes.reason(row.id) is None
    assert worker.lost_writes.release(worker.deps, None) == 0
