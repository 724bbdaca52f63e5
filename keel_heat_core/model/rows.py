"""The rows and definitions the engine drives, and the store protocols.

These are narrow views of the persistence layer (``keel_heat_core.db``)
and of the template layer, so the engine logic is testable with in-memory
stores and the real repositories plug in through a small adapter.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Protocol

INIT, CREATE, UPDATE, DELETE, ROLLBACK = (
    "INIT",
    "CREATE",
    "UPDATE",
    "DELETE",
    "ROLLBACK",
)
CHECK, SUSPEND, RESUME, SNAPSHOT, ADOPT, RESTORE = (
    "CHECK",
    "SUSPEND",
    "RESUME",
    "SNAPSHOT",
    "ADOPT",
    "RESTORE",
)
IN_PROGRESS, COMPLETE, FAILED = "IN_PROGRESS", "COMPLETE", "FAILED"


@dataclasses.dataclass(frozen=True)
class RowSummary:
    """What traversal planning needs to know about one resource row
    (``convergence.traversal``)."""

    id: int
    name: str
    action: str
    status: str
    current_template_id: int | None = None
    requires: tuple[int, ...] = ()
    replaces: int | None = None
    replaced_by: int | None = None
    updated_at: datetime.datetime | None = None
    created_at: datetime.datetime | None = None

    @classmethod
    def of(cls, row: Any) -> RowSummary:
        """The summary of anything with a resource row's attributes (a
        :class:`ResourceRow`, a row of the database's summary read);
        empty columns read as a :class:`ResourceRow` reads them."""
        return cls(
            id=row.id,
            name=row.name or "",
            action=row.action or INIT,
            status=row.status or COMPLETE,
            current_template_id=row.current_template_id,
            requires=tuple(row.requires or ()),
            replaces=row.replaces,
            replaced_by=row.replaced_by,
            updated_at=row.updated_at,
            created_at=row.created_at,
        )


@dataclasses.dataclass
class ResourceRow:
    """One ``resource`` row (the columns the engine uses)."""

    id: int
    name: str
    stack_id: str
    action: str = INIT
    status: str = COMPLETE
    status_reason: str = ""
    physical_id: str | None = None
    engine_id: str | None = None
    atomic_key: int | None = None
    current_template_id: int | None = None
    requires: list[int] = dataclasses.field(default_factory=list)
    replaces: int | None = None
    replaced_by: int | None = None
    uuid: str = ""
    root_stack_id: str | None = None
    rsrc_metadata: dict[str, Any] | None = None
    #: resolved property values (the ``rsrc_prop_data_id`` row's data)
    properties: dict[str, Any] | None = None
    updated_at: datetime.datetime | None = None
    created_at: datetime.datetime | None = None
    #: whether the row had any resource data when read (None: unknown;
    #: a node's read looks for a row in INIT only)
    has_data: bool | None = None


@dataclasses.dataclass
class StackRow:
    """One ``stack`` row (the columns the engine uses)."""

    id: str
    name: str
    action: str
    status: str
    status_reason: str
    raw_template_id: int
    current_traversal: str
    prev_raw_template_id: int | None = None
    current_deps: dict[str, Any] | None = None
    disable_rollback: bool = True
    timeout: int | None = None
    owner_id: str | None = None
    tenant: str | None = None
    user_creds_id: int | None = None
    nested_depth: int = 0
    stack_user_project_id: str | None = None
    parent_resource_name: str | None = None
    username: str | None = None
    convergence: bool = True
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None
    deleted_at: datetime.datetime | None = None


@dataclasses.dataclass(frozen=True)
class EventRecord:
    """An ``event`` row to insert."""

    stack_id: str
    resource_name: str
    physical_resource_id: str | None
    resource_type: str
    resource_action: str
    resource_status: str
    resource_status_reason: str


@dataclasses.dataclass(frozen=True)
class DataWrite:
    """A resource-data change a local action made (``worker.local``).

    It waits for the transaction that records the action's outcome.
    ``value`` None removes the key.
    """

    key: str
    value: str | None
    redact: bool = False
    #: the resource had no data when the node read it, and the outcome's
    #: compare-and-swap guards that read: the key is inserted without a
    #: lookup (``db.resource_data.set_in``)
    fresh: bool = False


class ResourceDefinition(Protocol):
    """What the engine needs of one template resource definition."""

    name: str
    resource_type: str
    deletion_policy: str

    def dependency_names(self) -> list[str]:
        """Names of the resources this one depends on."""

    def resolve_properties(self, view: Any) -> dict[str, Any]:
        """Property values with intrinsic functions resolved.

        :param view: the StackView that answers get_resource/get_attr.
        """


class TemplateSource(Protocol):
    """Access to stored templates (``raw_template``) as definitions."""

    def definitions(
        self, template_id: int, stack: StackRow
    ) -> Mapping[str, Any]:
        """``{name: ResourceDefinition}`` of a stored template."""


class ResourceStore(Protocol):
    """Resource rows and events (also a worker ``ResourceLockStore``)."""

    def cas_update(
        self,
        resource_id: int,
        expected_engine_id: str | None,
        expected_atomic_key: int | None,
        values: Mapping[str, Any],
        events: Sequence[EventRecord] = (),
        then: Sequence[Any] = (),
        data: Sequence[DataWrite] = (),
        defer: bool = False,
    ) -> bool:
        """The guarded UPDATE of the resource lock (docs/design/engine.md,
        "Locks and liveness");
        ``events``, the sync point writes ``then``
        (``convergence.store.FirstWrite``) and the row's resource-data
        changes ``data`` are written with it, only when it matched.
        ``defer``: its commit may be shared with the thread's next
        releases (``keel_heat_core.db.commit_runs``)."""

    def read_lock(self, resource_id: int) -> Any:
        """The lock columns (``worker.lock.LockState``) or None."""

    def get_resource(self, resource_id: int) -> ResourceRow | None:
        """One row, or None."""

    def get_resources(
        self, stack_id: str, names: Collection[str] | None = None
    ) -> list[ResourceRow]:
        """Every row of a stack (any state); only the rows of these
        resource names when ``names`` is given."""

    def get_summaries(self, stack_id: str) -> list[RowSummary]:
        """Every row of a stack (any state) as a traversal's planning
        sees it: no properties, data or metadata read; in id order."""

    def insert_resource(self, row: ResourceRow) -> int:
        """Insert a row; returns its new id."""

    def insert_resources(self, rows: Iterable[ResourceRow]) -> list[int]:
        """Insert rows in one batch; returns their new ids, in order."""

    def insert_replacement(
        self, old_id: int, atomic_key: int | None, row: ResourceRow
    ) -> int | None:
        """Insert ``row`` and point ``old_id``'s ``replaced_by`` at it, in
        one transaction, under the lock CAS (no holder, ``atomic_key``).

        :returns: the new id, or None when the CAS missed (nothing kept).
        """

    def update_resource(
        self, resource_id: int, values: Mapping[str, Any]
    ) -> None:
        """An unconditional (non-locking) write."""

    def delete_resource(self, resource_id: int) -> None:
        """Hard-delete a row."""

    def delete_finished(self, stack_id: str) -> int:
        """Hard-delete a stack's ``DELETE_COMPLETE`` rows, in one
        transaction; how many there were."""

    def add_event(self, event: EventRecord) -> None:
        """Insert one event."""


class StackStore(Protocol):
    """Stack rows, with the traversal compare-and-swap."""

    def get_stack(self, stack_id: str) -> StackRow | None:
        """One live stack row, or None."""

    def get_resource_and_stack(
        self, resource_id: int
    ) -> tuple[ResourceRow | None, StackRow | None]:
        """A resource row and its live stack, read together (one
        transaction); ``(None, None)`` when the row is gone."""

    def list_in_progress(self) -> list[StackRow]:
        """Live stacks whose status is IN_PROGRESS (for resume)."""

    def update_stack(
        self,
        stack_id: str,
        expected_traversal: str,
        values: Mapping[str, Any],
    ) -> bool:
        """``UPDATE stack … WHERE id = ? AND current_traversal = ?``."""
