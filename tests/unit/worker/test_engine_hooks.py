"""The engine calls the pluggy hooks: traversals of the in-memory
harness with a recording plugin installed as the process's hooks."""

from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core import plugins
from keel_heat_core.plugins import hookimpl
from keel_heat_core.plugins import hooks as hooks_mod
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
