"""Ending the poll of a resource that waits for a stack, when it ends.

A nested-stack resource (a template resource, a ResourceGroup member
list, OS::Heat::Stack) checks its child stack about once a second
(:func:`~keel_heat_core.worker.action.run_action`), so every level of
nesting used to add up to a second to each operation: a 10-member group
took 1.5 s, most of it waiting for the next poll. When a nested stack's
traversal ends, its engine wakes the pauses waiting for that stack, in
its own process and, by a fanout cast, in every other engine. A lost
wake costs what it did before: the next poll finds the state.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Hashable, Iterable, Iterator


def cancel_key(stack_id: str) -> tuple[str, str]:
    """The key a cancel of ``stack_id``'s work wakes."""
    return ("cancel", stack_id)


class StackWaiters:
    """Pauses waiting for a key (a stack id, or :func:`cancel_key`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: dict[Hashable, set[threading.Event]] = {}

    @contextlib.contextmanager
    def watching(
        self, keys: Iterable[Hashable], event: threading.Event
    ) -> Iterator[threading.Event]:
        """Set ``event`` whenever one of ``keys`` is woken, inside the
        block."""
        keys = list(keys)
        with self._lock:
            for key in keys:
                self._events.setdefault(key, set()).add(event)
        try:
            yield event
        finally:
            with self._lock:
                for key in keys:
                    events = self._events.get(key)
                    if events is not None:
                        events.discard(event)
                        if not events:
                            del self._events[key]

    def wake(self, key: Hashable) -> int:
        """Wake every pause watching ``key``; how many there were."""
        with self._lock:
            events = list(self._events.get(key, ()))
        for event in events:
            event.set()
        return len(events)
