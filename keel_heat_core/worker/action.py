"""Driving one resource action: ``handle_<a>`` then ``check_<a>_complete``.

The plugin contract (docs/design/plugin-contract.md): the handle is called
once; its return value (the *cookie*) is passed to ``check_<a>_complete`` about
once a second until it returns true. A ``PollDelay(n)`` raised by the check
skips ``n - 1`` polls. A missing handle means nothing to do, a missing check
means done after the handle. When a timeout or a cancel interrupts polling,
``handle_<a>_cancel(cookie)`` runs if defined.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

from keel_heat_core.plugin_api import protocol as lifecycle
from keel_heat_core.worker.wake import StackWaiters


class ActionTimeout(Exception):
    """The stack's time ran out during a resource action."""

    def __init__(self, action: str) -> None:
        self.action = action
        super().__init__("Timed out")


class ActionCancelled(Exception):
    """A user cancel (or a stack delete) stopped the resource action."""

    def __init__(self, action: str) -> None:
        self.action = action
        super().__init__(f"{action} aborted (user triggered cancel)")


def _poll_delay(exc: BaseException) -> float | None:
    # Duck-typed so the worker need not import plugin_api.
    if type(exc).__name__ == "PollDelay":
        period = getattr(exc, "period", None)
        return float(period) if period is not None else None
    return None


def run_action(
    plugin: object,
    action: str,
    args: Sequence[Any] = (),
    deadline: float | None = None,
    cancel: threading.Event | None = None,
    interval: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    wait: Callable[[float], Any] | None = None,
    waiters: StackWaiters | None = None,
    watch: Sequence[Hashable] = (),
    before_wait: Callable[[], Any] | None = None,
) -> Any:
    """Run ``action`` on ``plugin`` to completion.

    :param plugin: the resource plugin object.
    :param action: ``CREATE``, ``UPDATE``, ``DELETE``, ``SUSPEND``, …
    :param args: positional arguments of the handle.
    :param deadline: ``clock()`` value after which to give up.
    :param cancel: set to abort at the next poll.
    :param interval: seconds between polls.
    :param wait: how to wait between polls; by default the cancel event's
        ``wait`` (a cancel wakes the worker at once).
    :param waiters: where a plugin that waits for a stack
        (``awaited_stack_id()``, the nested-stack resources) is woken
        when that stack's traversal ends (:mod:`.wake`), and by any of
        ``watch`` (the worker passes the key its cancel wakes).
    :param before_wait: called once, before the first wait between
        polls (a local action takes its lock there: ``worker.local``).
    :returns: the cookie returned by the handle.
    :raises ActionTimeout: the deadline passed.
    :raises ActionCancelled: ``cancel`` was set.
    """
    hooks = lifecycle.action_hooks(plugin, action)
    event = cancel or threading.Event()
    # before the handle ran there is nothing to cancel yet
    _interrupt_if_needed(None, action, None, deadline, event, clock)
    cookie = hooks.handle(*args) if hooks.handle is not None else None
    check = hooks.check
    if check is None:
        return cookie
    with _woken_by(plugin, waiters, watch, event) as woken:
        pause = wait or woken
        if before_wait is not None:
            pause = _first_calling(before_wait, pause)
        return _poll(
            hooks.cancel,
            action,
            check,
            cookie,
            deadline,
            event,
            interval,
            clock,
            pause,
        )


def _first_calling(
    first: Callable[[], Any], pause: Callable[[float], Any]
) -> Callable[[float], Any]:
    """``pause``, calling ``first`` before the first pause only."""
    called = False

    def paused(delay: float) -> Any:
        nonlocal called
        if not called:
            called = True
            first()
        return pause(delay)

    return paused


@contextlib.contextmanager
def _woken_by(
    plugin: object,
    waiters: StackWaiters | None,
    watch: Sequence[Hashable],
    cancel: threading.Event,
) -> Iterator[Callable[[float], Any]]:
    stack_id = (
        plugin.awaited_stack_id() if lifecycle.awaits_stack(plugin) else None
    )
    if waiters is None or not stack_id:
        yield cancel.wait
        return
    woken = threading.Event()

    def pause(delay: float) -> None:
        woken.wait(delay)
        woken.clear()

    with waiters.watching([stack_id, *watch], woken):
        yield pause


def _poll(
    cancel_hook: Callable[[Any], Any] | None,
    action: str,
    check: Callable[[Any], Any],
    cookie: Any,
    deadline: float | None,
    event: threading.Event,
    interval: float,
    clock: Callable[[], float],
    pause: Callable[[float], Any],
) -> Any:
    while True:
        try:
            if check(cookie):
                return cookie
            delay = interval
        except Exception as exc:
            delay_for = _poll_delay(exc)
            if delay_for is None:
                raise
            delay = max(delay_for, interval)
        _interrupt_if_needed(
            cancel_hook, action, cookie, deadline, event, clock
        )
        if deadline is not None:
            delay = min(delay, max(deadline - clock(), 0.0))
        pause(delay)
        _interrupt_if_needed(
            cancel_hook, action, cookie, deadline, event, clock
        )


def _interrupt_if_needed(
    cancel_hook: Callable[[Any], Any] | None,
    action: str,
    cookie: Any,
    deadline: float | None,
    cancel: threading.Event,
    clock: Callable[[], float],
) -> None:
    timed_out = deadline is not None and clock() >= deadline
    if not timed_out and not cancel.is_set():
        return
    if cancel_hook is not None:
        cancel_hook(cookie)
    if cancel.is_set():
        raise ActionCancelled(action)
    raise ActionTimeout(action)
