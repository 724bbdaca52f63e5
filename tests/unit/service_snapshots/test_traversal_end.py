"""SNAPSHOT and ADOPT traversals in memory: the end-of-traversal hook the
snapshot service relies on, and adopt data carried by every cast."""

from __future__ import annotations

import uuid
from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.worker.converge import converge_stack
from tests.unit.worker import fakes

CHAIN = {
    "a": {"properties": {"value": "x"}},
    "b": {"properties": {"value": "y"}, "depends_on": ["a"]},
}


def _hook(harness: fakes.Harness) -> list[tuple[str, str, str, str]]:
    calls: list[tuple[str, str, str, str]] = []

    def record(ctxt: Any, stack: r.StackRow, status: str, reason: str):
        stored = harness.stack(stack.id)
        calls.append((stack.current_traversal, status, stored.status, reason))

    for worker in harness.workers:
        worker.deps.on_traversal_end = record
    return calls


def test_snapshot_traversal_ends_with_the_hook_before_complete():
    harness = fakes.Harness()
    stack_id = harness.new_stack(CHAIN)
    harness.run()
    calls = _hook(harness)
    snapshot_id = str(uuid.uuid4())
    stack = harness.stores.get_stack(stack_id)
    assert stack is not None
    started = converge_stack(
        harness.workers[0].deps,
        None,
        stack,
        stack.raw_template_id,
        r.SNAPSHOT,
        traversal=snapshot_id,
    )
    assert started == snapshot_id
    harness.run()
    assert harness.state(stack_id) == "SNAPSHOT_COMPLETE"
    # called once, under the snapshot's traversal id, while the stack
    # was still IN_PROGRESS (Heat's pre-completion save)
    assert calls == [
        (
            snapshot_id,
            r.COMPLETE,
            r.IN_PROGRESS,
            "Stack SNAPSHOT completed successfully",
        )
    ]
    assert {row.action for row in harness.rows(stack_id).values()} == {
        r.SNAPSHOT
    }


def test_failed_traversal_calls_the_hook_after_failed():
    harness = fakes.Harness()
    calls = _hook(harness)
    stack_id = harness.new_stack({"a": {"properties": {"fail": True}}})
    harness.run()
    assert harness.state(stack_id) == "CREATE_FAILED"
    assert len(calls) == 1
    assert calls[0][1:3] == (r.FAILED, r.FAILED)
    assert calls[0][3].startswith("Resource CREATE failed: ")


def test_a_failing_hook_does_not_stop_the_stack():
    harness = fakes.Harness()

    def boom(*args: Any) -> None:
        raise RuntimeError("hook failed")

    for worker in harness.workers:
        worker.deps.on_traversal_end = boom
    stack_id = harness.new_stack(CHAIN)
    harness.run()
    assert harness.state(stack_id) == "CREATE_COMPLETE"


class Adoptable(fakes.TestResource):
    def handle_adopt(self, data: dict[str, Any]) -> None:
        with self.cloud.lock:
            self.resource_id = data["resource_id"]
            self.cloud.calls.append(("adopt", self.name))


def test_adopt_reaches_every_node_of_a_chain():
    harness = fakes.Harness()
    for worker in harness.workers:
        worker.deps.plugins = lambda d, row, props, s: Adoptable(
            harness.cloud, row, props
        )
    tid = harness.templates.store(CHAIN)
    stack = r.StackRow(
        id=str(uuid.uuid4()),
        name="adopted",
        action=r.CREATE,
        status=r.IN_PROGRESS,
        status_reason="",
        raw_template_id=tid,
        current_traversal=str(uuid.uuid4()),
        created_at=fakes.NOW,
    )
    harness.stores.stacks[stack.id] = stack
    adopt = {
        "resources": {
            "a": {"resource_id": "phys-a"},
            "b": {"resource_id": "phys-b"},
        }
    }
    converge_stack(
        harness.workers[0].deps,
        None,
        harness.stores.get_stack(stack.id),
        tid,
        r.ADOPT,
        adopt_stack_data=adopt,
    )
    harness.run()
    assert harness.state(stack.id) == "ADOPT_COMPLETE"
    rows = harness.rows(stack.id)
    assert {n: (x.action, x.status) for n, x in rows.items()} == {
        "a": (r.ADOPT, r.COMPLETE),
        "b": (r.ADOPT, r.COMPLETE),
    }
    assert {n: x.physical_id for n, x in rows.items()} == {
        "a": "phys-a",
        "b": "phys-b",
    }
    assert sorted(harness.cloud.calls) == [("adopt", "a"), ("adopt", "b")]


def test_what_the_hook_leaves_runs_once_the_final_state_is_written():
    harness = fakes.Harness()
    seen: list[str] = []

    def record(ctxt: Any, stack: r.StackRow, status: str, reason: str):
        def later() -> None:
            seen.append(harness.state(stack.id))
            raise RuntimeError("Keystone is away")  # logged, nothing more

        return later

    for worker in harness.workers:
        worker.deps.on_traversal_end = record
    stack_id = harness.new_stack(CHAIN)
    harness.run()
    harness.delete(stack_id)
    harness.run()
    assert seen == ["CREATE_COMPLETE", "DELETE_COMPLETE"]
