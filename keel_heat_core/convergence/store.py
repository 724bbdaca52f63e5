"""What the convergence layer needs from persistence.

Narrow protocols, so the real repositories plug in through a small adapter
and the pure logic is tested against :mod:`.memory_store`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol


@dataclasses.dataclass
class SyncPointRow:
    """One ``sync_point`` row, JSON columns already parsed.

    ``input_data`` and ``extra_data`` hold the *inner* dicts (the database
    wraps them as ``{"input_data": {...}}`` and ``{"extra_data": {...}}``).
    """

    entity_id: str
    traversal_id: str
    is_update: bool
    stack_id: str
    atomic_key: int = 0
    input_data: dict[str, Any] = dataclasses.field(default_factory=dict)
    extra_data: dict[str, Any] | None = None


@dataclasses.dataclass
class FirstWrite:
    """A first write of a sync point row (:meth:`SyncPointStore.first_write`)
    made in the transaction of another write, which sets ``matched``.

    ``fires``: a match makes the node ready (its sender is its only
    predecessor); otherwise a match only records the sender, the first of
    several to report.
    """

    entity_id: str
    traversal_id: str
    is_update: bool
    input_data: dict[str, Any]
    matched: bool = False
    fires: bool = True


@dataclasses.dataclass
class ReadAhead:
    """The first read of a node (its row and live stack, as
    ``StackStore.get_resource_and_stack``), made in the transaction of a
    write of the predecessor that will run it next: its lock release,
    once ``after`` (its first write to the node's sync point) matched,
    or, with ``after`` None, its read and swap of that sync point, once
    the swap matched.

    The store sets ``found``; a store that cannot read there leaves it
    None, and the node reads for itself.

    In a read and swap, ``outcome`` (set by the convergence layer) says
    what the swap's write means for the node (a ``Ready`` or None), and
    ``follow``, if any, runs after the read in the same transaction
    with the means to read and swap more rows there (:class:`Follow`).

    ``line``: the rows of the nodes this thread is likely to run after
    this one, each the only successor fired by the one before (a chain).
    A store may read them with this one and answer their own read aheads
    from that read while it is fresh (``docs/design/resume.md``, "Reading
    a line ahead"); a store that does not leaves it unused.
    """

    resource_id: int
    after: FirstWrite | None = None
    found: tuple[Any, Any] | None = None
    outcome: Callable[[], Any] | None = None
    follow: Follow | None = None
    line: tuple[int, ...] = ()


class InTransaction(Protocol):
    """Reads and writes on the transaction of a read and swap, for a
    :class:`Follow`."""

    def resources(self, resource_ids: Sequence[int]) -> dict[int, Any]:
        """The resource rows of these ids that exist, by id."""

    def sync_points(
        self, traversal_id: str, entity_ids: Sequence[str]
    ) -> dict[tuple[str, bool], SyncPointRow]:
        """A traversal's rows of these entities, by ``(entity_id,
        is_update)``."""

    def swap(
        self,
        row: SyncPointRow,
        input_data: dict[str, Any],
        extra_data: dict[str, Any] | None,
    ) -> bool:
        """The compare-and-swap of :meth:`SyncPointStore.update_sync_point`."""


class Follow(Protocol):
    """Work that goes on in the transaction of a read and swap after its
    read ahead (``ahead.found``), committed with it or not at all. Called
    again if the transaction is retried."""

    def __call__(self, ahead: ReadAhead, txn: InTransaction) -> None:
        """Go on from ``ahead`` with ``txn``."""


#: what a lock release writes or reads in its own transaction
InRelease = FirstWrite | ReadAhead


#: ``row read -> (new input_data, new extra_data or None)``
SwapPlan = Callable[
    [SyncPointRow], tuple[dict[str, Any], dict[str, Any] | None]
]


class SyncPointStore(Protocol):
    """Sync point persistence (the ``sync_point`` table)."""

    def create_sync_points(
        self,
        stack_id: str,
        traversal_id: str,
        points: Iterable[tuple[str, bool]],
    ) -> None:
        """Insert one empty row per ``(entity_id, is_update)`` in one batch."""

    def get_sync_point(
        self, entity_id: str, traversal_id: str, is_update: bool
    ) -> SyncPointRow | None:
        """Read one row, or None if it does not exist."""

    def update_sync_point(
        self,
        row: SyncPointRow,
        input_data: dict[str, Any],
        extra_data: dict[str, Any] | None,
    ) -> bool:
        """Compare-and-swap on ``row.atomic_key``; bump it on success.

        :returns: True when a row matched.
        """

    def read_and_swap(
        self,
        entity_id: str,
        traversal_id: str,
        is_update: bool,
        plan: SwapPlan,
        ahead: ReadAhead | None = None,
    ) -> tuple[SyncPointRow, bool] | None:
        """Read a row and compare-and-swap ``plan(row)`` into it.

        What :meth:`get_sync_point` and :meth:`update_sync_point` do, in
        one transaction where the store has transactions (one commit
        instead of two). ``ahead``: read in that transaction too, when the
        swap matched (a store that cannot leaves it unread).

        :returns: None when the row does not exist, else the row read and
            whether the swap matched.
        """

    def first_write(
        self,
        entity_id: str,
        traversal_id: str,
        is_update: bool,
        input_data: dict[str, Any],
    ) -> bool:
        """Write ``input_data`` into a row nobody has written yet.

        A compare-and-swap on ``atomic_key = 0`` without reading the row
        first (the key of a row as :meth:`create_sync_points` made it).

        :returns: True when the row existed and was unwritten; False when
            it is missing or written already (read it to tell which).
        """

    def list_sync_points(
        self, stack_id: str, traversal_id: str
    ) -> list[SyncPointRow]:
        """Every sync point of a traversal (for resume)."""

    def delete_sync_points(self, stack_id: str, traversal_id: str) -> int:
        """Delete every sync point of a traversal; return the count."""
