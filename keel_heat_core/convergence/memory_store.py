"""An in-memory :class:`~.store.SyncPointStore` for tests and tooling.

It keeps the database's semantics (copy on read, compare-and-swap on
``atomic_key``), so logic proven against it holds against the real table.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from keel_heat_core.convergence.store import (
    ReadAhead,
    SwapPlan,
    SyncPointRow,
)

_Key = tuple[str, str, bool]


class MemorySyncPointStore:
    """Thread-safe sync points held in a dict."""

    def __init__(self) -> None:
        self._rows: dict[_Key, SyncPointRow] = {}
        self._lock = threading.Lock()
        #: number of compare-and-swap attempts that missed (for tests)
        self.cas_misses = 0
        #: ``resource id -> (row, stack)``: how a matched read and swap
        #: reads a node ahead (None: it does not)
        self.read_ahead: Callable[[int], Any] | None = None

    def create_sync_points(
        self,
        stack_id: str,
        traversal_id: str,
        points: Iterable[tuple[str, bool]],
    ) -> None:
        """Insert one empty row per ``(entity_id, is_update)``."""
        with self._lock:
            for entity_id, is_update in points:
                key = (str(entity_id), traversal_id, bool(is_update))
                if key in self._rows:
                    raise KeyError(f"duplicate sync point {key!r}")
                self._rows[key] = SyncPointRow(
                    str(entity_id), traversal_id, bool(is_update), stack_id
                )

    def get_sync_point(
        self, entity_id: str, traversal_id: str, is_update: bool
    ) -> SyncPointRow | None:
        """A copy of one row, or None."""
        with self._lock:
            row = self._rows.get((str(entity_id), traversal_id, is_update))
            return copy.deepcopy(row)

    def update_sync_point(
        self,
        row: SyncPointRow,
        input_data: dict[str, Any],
        extra_data: dict[str, Any] | None,
    ) -> bool:
        """Compare-and-swap on ``atomic_key``."""
        key = (row.entity_id, row.traversal_id, row.is_update)
        with self._lock:
            current = self._rows.get(key)
            if current is None or current.atomic_key != row.atomic_key:
                self.cas_misses += 1
                return False
            current.input_data = copy.deepcopy(input_data)
            if extra_data is not None:
                current.extra_data = copy.deepcopy(extra_data)
            current.atomic_key += 1
            return True

    def read_and_swap(
        self,
        entity_id: str,
        traversal_id: str,
        is_update: bool,
        plan: SwapPlan,
        ahead: ReadAhead | None = None,
    ) -> tuple[SyncPointRow, bool] | None:
        """A read, then a compare-and-swap of ``plan(row)``; ``ahead`` is
        read with :attr:`read_ahead` when the swap matched."""
        row = self.get_sync_point(entity_id, traversal_id, is_update)
        if row is None:
            return None
        input_data, extra_data = plan(row)
        matched = self.update_sync_point(row, input_data, extra_data)
        if matched and ahead is not None and self.read_ahead is not None:
            ahead.found = self.read_ahead(ahead.resource_id)
            if ahead.follow is not None:
                # one transaction in the database; here step by step
                ahead.follow(ahead, _MemoryTransaction(self))
        return row, matched

    def first_write(
        self,
        entity_id: str,
        traversal_id: str,
        is_update: bool,
        input_data: dict[str, Any],
    ) -> bool:
        """The compare-and-swap of an unwritten row (``atomic_key`` 0)."""
        with self._lock:
            current = self._rows.get((str(entity_id), traversal_id, is_update))
            if current is None or current.atomic_key != 0:
                self.cas_misses += 1
                return False
            current.input_data = copy.deepcopy(input_data)
            current.atomic_key = 1
            return True

    def list_sync_points(
        self, stack_id: str, traversal_id: str
    ) -> list[SyncPointRow]:
        """Copies of a traversal's rows."""
        with self._lock:
            return copy.deepcopy(
                [
                    r
                    for k, r in self._rows.items()
                    if k[1] == traversal_id and r.stack_id == stack_id
                ]
            )

    def delete_sync_points(self, stack_id: str, traversal_id: str) -> int:
        """Delete a traversal's rows."""
        with self._lock:
            doomed = [
                k
                for k, r in self._rows.items()
                if k[1] == traversal_id and r.stack_id == stack_id
            ]
            for key in doomed:
                del self._rows[key]
            return len(doomed)

    def rows(self) -> list[SyncPointRow]:
        """Copies of every row (for assertions)."""
        with self._lock:
            return copy.deepcopy(list(self._rows.values()))


class _MemoryTransaction:
    """:class:`~keel_heat_core.convergence.store.InTransaction` over a
    :class:`MemorySyncPointStore` (each call on its own)."""

    def __init__(self, store: MemorySyncPointStore) -> None:
        self.store = store

    def resources(self, resource_ids: Sequence[int]) -> dict[int, Any]:
        read = self.store.read_ahead
        found = {} if read is None else {i: read(i)[0] for i in resource_ids}
        return {i: row for i, row in found.items() if row is not None}

    def sync_points(
        self, traversal_id: str, entity_ids: Sequence[str]
    ) -> dict[tuple[str, bool], SyncPointRow]:
        out = {}
        for entity_id in entity_ids:
            for is_update in (False, True):
                row = self.store.get_sync_point(
                    entity_id, traversal_id, is_update
                )
                if row is not None:
                    out[(row.entity_id, row.is_update)] = row
        return out

    def swap(
        self,
        row: SyncPointRow,
        input_data: dict[str, Any],
        extra_data: dict[str, Any] | None,
    ) -> bool:
        return self.store.update_sync_point(row, input_data, extra_data)
