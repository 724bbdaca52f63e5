"""The engine calls the pluggy hooks: traversals of the in-memory
harness with a recording plugin installed as the process's hooks."""

from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core import plugins
from keel_heat_core.plugins import hookimpl
from keel_heat_core.plugins import hooks as hooks_mod
from keel_heat_core.worker.resume import Resumer
from tests.unit.worker.fakes import Harness

TWO = {
    "a": {"properties": {"value": "1"}},
    "b": {"properties": {"value": "2"}, "depends_on": ["a"]},
}


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.refuse: str | None = None

    @hookimpl
    def keel_heat_stack_pre_operation(self, context, stack, action):
        self.calls.append(("pre", action, f"{stack.action}_{stack.status}"))
        if action == self.refuse:
            raise ValueError(f"{action} is not allowed here")

    @hookimpl
    def keel_heat_stack_post_operation(self, context, stack, action, status):
        self.calls.append(("post", action, status))

    @hookimpl(wrapper=True)
    def keel_heat_resource_action(self, context, resource, action, run):
        self.calls.append(("action", resource.name, action))
        return (yield)

    @hookimpl
    def keel_heat_resource_lock_conflict(
        self, context, stack_id, resource_name, holder
    ):
        self.calls.append(("conflict", stack_id, resource_name, holder))

    @hookimpl
    def keel_heat_traversal_resume(self, context, stack_id, traversal, reason):
        self.calls.append(("resume", stack_id, reason))


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    before = plugins.current_hooks()
    rec = Recorder()
    manager = plugins.HookManager()
    manager.register(rec, "recorder")
    manager.check_pending()
    plugins.install_hooks(manager)
    yield rec
    hooks_mod.install(before)


def test_create_and_delete_call_the_hooks(recorder):
    h = Harness(seed=1)
    sid = h.new_stack(TWO)
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    h.delete(sid)
    h.run()
    assert recorder.calls == [
        ("pre", "CREATE", "CREATE_IN_PROGRESS"),
        ("action", "a", "CREATE"),
        ("action", "b", "CREATE"),
        ("post", "CREATE", "COMPLETE"),
        ("pre", "DELETE", "CREATE_COMPLETE"),
        ("action", "b", "DELETE"),
        ("action", "a", "DELETE"),
        ("post", "DELETE", "COMPLETE"),
    ]


def test_a_plugin_refuses_an_operation(recorder):
    h = Harness(seed=2)
    sid = h.new_stack(TWO)
    h.run()
    recorder.refuse = "DELETE"
    h.delete(sid)
    h.run()
    stack = h.stack(sid)
    assert h.state(sid) == "DELETE_FAILED"
    assert stack.status_reason == "DELETE is not allowed here"
    assert ("action", "a", "DELETE") not in recorder.calls
    assert set(h.rows(sid)) == {"a", "b"}


def test_lock_conflicts_and_resumes_reach_the_hooks(recorder):
    h = Harness()
    sid = h.new_stack(TWO)
    row = h.rows(sid)["a"]
    h.stores.update_resource(
        row.id,
        {"engine_id": "engine-9", "atomic_key": 1, "action": "CREATE",
         "status": "IN_PROGRESS"},
    )  # fmt: skip
    ctxt, args, kwargs = h.bus.pop()  # the node of "a"
    h.workers[0](ctxt, *args, **kwargs)
    assert ("conflict", sid, "a", "engine-9") in recorder.calls
    h.bus.queue.clear()
    resumer = Resumer(h.workers[1].deps)
    assert resumer.run_once() == []  # engine-9 is alive
    assert not [c for c in recorder.calls if c[0] == "resume"]
    h.alive.dead.add("engine-9")
    assert len(resumer.run_once()) == 1
    assert ("resume", sid, "engine_down") in recorder.calls
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
