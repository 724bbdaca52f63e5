"""A resource waiting for a stack is woken when the stack ends, and a
cancel still interrupts its pause."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from keel_heat_core.worker.action import ActionCancelled, run_action
from keel_heat_core.worker.wake import StackWaiters, cancel_key

#: far longer than any test waits: a pause that is not woken hangs
LONG = 3600.0


class Nested:
    """A plugin whose checks wait for a child stack."""

    def __init__(self) -> None:
        self.resource_id: str | None = None
        self.done = threading.Event()
        self.checks = 0
        self.checked = threading.Event()

    def awaited_stack_id(self) -> str | None:
        return self.resource_id

    def handle_create(self) -> None:
        self.resource_id = "child-1"

    def check_create_complete(self, _cookie: Any) -> bool:
        self.checks += 1
        self.checked.set()
        return self.done.is_set()


def _run_in_thread(**kw: Any) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def target() -> None:
        try:
            run_action(interval=LONG, **kw)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, errors


def test_the_end_of_the_awaited_stack_ends_the_pause() -> None:
    waiters = StackWaiters()
    plugin = Nested()
    thread, errors = _run_in_thread(
        plugin=plugin, action="CREATE", waiters=waiters
    )
    assert plugin.checked.wait(5)
    plugin.done.set()
    # another stack's end does not count
    assert waiters.wake("some-other-stack") == 0
    assert waiters.wake("child-1") == 1
    thread.join(5)
    assert not thread.is_alive() and not errors
    assert plugin.checks == 2
    assert waiters.wake("child-1") == 0  # no longer registered


def test_a_cancel_interrupts_a_woken_pause() -> None:
    waiters = StackWaiters()
    plugin = Nested()
    cancel = threading.Event()
    thread, errors = _run_in_thread(
        plugin=plugin,
        action="CREATE",
        cancel=cancel,
        waiters=waiters,
        watch=[cancel_key("parent-1")],
    )
    assert plugin.checked.wait(5)
    cancel.set()
    assert waiters.wake(cancel_key("parent-1")) == 1
    thread.join(5)
    assert not thread.is_alive()
    assert [type(e) for e in errors] == [ActionCancelled]


def test_a_plugin_that_waits_for_no_stack_pauses_on_its_cancel() -> None:
    waiters = StackWaiters()
    plugin = Nested()
    plugin.handle_create = lambda: None  # type: ignore[method-assign]
    cancel = threading.Event()
    thread, errors = _run_in_thread(
        plugin=plugin, action="CREATE", cancel=cancel, waiters=waiters
    )
    assert plugin.checked.wait(5)
    assert waiters.wake("child-1") == 0
    cancel.set()
    thread.join(5)
    assert [type(e) for e in errors] == [ActionCancelled]


@pytest.mark.parametrize("count", [1, 3])
def test_every_pause_watching_a_stack_is_woken(count: int) -> None:
    waiters = StackWaiters()
    events = [threading.Event() for _ in range(count)]
    with waiters.watching(["s"], events[0]):
        if count > 1:
            with (
                waiters.watching(["s"], events[1]),
                waiters.watching(["s", "t"], events[2]),
            ):
                assert waiters.wake("s") == 3
        else:
            assert waiters.wake("s") == 1
    assert all(e.is_set() for e in events)
    assert waiters.wake("s") == 0 and waiters.wake("t") == 0
