"""Group one engine's concurrent writes to the same sync point.

A wide traversal ends with every root merging its key into the stack's
sync point, one row. Written independently, the threads of one engine
mostly lose the compare-and-swap to each other, back off and read the row
again. :class:`SyncCombiner` queues the deliveries for a row instead: one
thread at a time (the *leader*) writes everything queued so far with one
:func:`~keel_heat_core.convergence.sync_point.sync_many` (one read, one
CAS), hands each caller its own outcome and passes the lead to the next
waiting caller. Between engines the CAS still serialises the writers, so
the exactly-once guarantees of the sync point are unchanged; within an
engine the writes to a row no longer contend and their number drops to
one per batch.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from keel_heat_core.convergence.store import SyncPointStore
from keel_heat_core.convergence.sync_point import Delivery, Ready, sync_many

_Key = tuple[int, str, str, bool]


class _Slot:
    """One caller waiting in a row's queue."""

    __slots__ = ("delivery", "done", "lead", "result", "error")

    def __init__(self, delivery: Delivery) -> None:
        self.delivery = delivery
        self.done = threading.Event()
        self.lead = False
        self.result: Ready | None = None
        self.error: BaseException | None = None


class SyncCombiner:
    """Per-engine queues of sync point deliveries, one per row."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: dict[_Key, list[_Slot]] = {}
        self._busy: set[_Key] = set()

    def sync(
        self,
        store: SyncPointStore,
        entity_id: str,
        traversal_id: str,
        is_update: bool,
        delivery: Delivery,
        sleep: Callable[[float], None] = time.sleep,
    ) -> Ready | None:
        """Deliver to a sync point; the caller's own outcome.

        :raises SyncPointNotFound: the row does not exist.
        """
        key = (id(store), entity_id, traversal_id, is_update)
        slot = _Slot(delivery)
        with self._lock:
            self._queues.setdefault(key, []).append(slot)
            if key not in self._busy:
                self._busy.add(key)
                slot.lead = True
        if not slot.lead:
            slot.done.wait()
        if slot.lead:
            self._write(store, key, sleep)
        if slot.error is not None:
            raise slot.error
        return slot.result

    def _write(
        self,
        store: SyncPointStore,
        key: _Key,
        sleep: Callable[[float], None],
    ) -> None:
        """Write what is queued for ``key``, then hand the lead on."""
        _, entity_id, traversal_id, is_update = key
        with self._lock:
            batch = self._queues.pop(key, [])
        try:
            results = sync_many(
                store,
                entity_id,
                traversal_id,
                is_update,
                [s.delivery for s in batch],
                sleep,
            )
        except BaseException as exc:  # every caller sees it
            for s in batch:
                s.error = exc
        else:
            for s, result in zip(batch, results, strict=True):
                s.result = result
        with self._lock:
            waiting = self._queues.get(key)
            if waiting:
                waiting[0].lead = True
                waiting[0].done.set()
            else:
                self._busy.discard(key)
        for s in batch:
            s.done.set()
