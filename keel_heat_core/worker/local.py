"""Local actions: run before the lock, recorded in one transaction.

An action whose plugin says it stays inside the engine
(``Resource.action_is_local``: no cloud, no wait) needs the resource lock
for nothing: it has no effect outside the database that a crash could
leave behind. :class:`ConvergenceResource` then runs it first and writes
its whole outcome (the lock's compare-and-swap, the state, both events,
the resource data and the handoff to its successors) in one transaction
instead of four. A node whose write misses re-runs the action, which only
repeats what it computed.

Should the action turn out not to be local after all (its check answers
"not yet", its handle fails, it writes metadata), the node *settles*: it
takes the lock with the IN_PROGRESS state as any other action, writes
the data kept so far, and goes on the usual way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.plugin_api import protocol as lifecycle


class LocalStore:
    """A plugin's ``ResourceStore`` while its local action runs.

    Reads see the data written so far; writes wait in :attr:`writes` for
    the transaction of the outcome. A metadata write settles first (it is
    a compare-and-swap of the row's own, made under the lock).

    :param inner: the plugin's real store.
    :param settle: takes the lock and writes what waited.
    :param fresh: the row had no data when the node read it (its keys
        are then inserted without a lookup: ``model.rows.DataWrite``).
    """

    def __init__(
        self, inner: Any, settle: Callable[[], None], fresh: bool = False
    ) -> None:
        self.inner = inner
        self._settle = settle
        self._fresh = fresh
        #: the data changes so far, by key (the last one counts)
        self.writes: dict[str, r.DataWrite] = {}
        #: ``(physical id,)`` once the plugin set one
        self.resource_id: tuple[str | None] | None = None

    def set_resource_id(self, resource_id: str | None) -> None:
        self.resource_id = (resource_id,)

    def data(self) -> dict[str, str]:
        values = dict(self.inner.data())
        for key, write in self.writes.items():
            if write.value is None:
                values.pop(key, None)
            else:
                values[key] = write.value
        return values

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        self.writes[key] = r.DataWrite(key, value, redact, self._fresh)

    def data_delete(self, key: str) -> bool:
        existed = key in self.data()
        self.writes[key] = r.DataWrite(key, None)
        return existed

    def metadata(self) -> dict[str, Any] | None:
        return self.inner.metadata()  # type: ignore[no-any-return]

    def metadata_set(
        self, metadata: dict[str, Any], merge_metadata: Any = None
    ) -> None:
        self._settle()
        self.inner.metadata_set(metadata, merge_metadata)

    def write_through(self) -> None:
        """Write what waited to the real store (after the lock is taken)."""
        if self.resource_id is not None:
            self.inner.set_resource_id(self.resource_id[0])
        for write in self.writes.values():
            if write.value is None:
                self.inner.data_delete(write.key)
            else:
                self.inner.data_set(write.key, write.value, write.redact)


def is_local(plugin: object, action: str) -> bool:
    """Whether ``plugin``'s ``action`` may run before the lock.

    A plugin with neither handle nor check for the action (a resource
    kept by its deletion policy, a type with nothing to do) has nothing
    to run; any other must say so itself.
    """
    if lifecycle.action_hooks(plugin, action).empty:
        return True
    if not lifecycle.runs_locally(plugin):
        return False
    try:
        return bool(plugin.action_is_local(action))
    except Exception:  # a plugin's bug makes its action ordinary
        return False


class LocalAction:
    """One local action of a node: what it started from and kept.

    :param store: the plugin's store during the action (None when the
        plugin has none: nothing to keep).
    :param begin: row values of the IN_PROGRESS state.
    :param started: the IN_PROGRESS event, as it would have been written
        when the action started (None when the row was in it already).
    """

    def __init__(
        self,
        store: LocalStore | None,
        begin: Mapping[str, Any],
        started: r.EventRecord | None,
    ) -> None:
        self.store = store
        self.begin = dict(begin)
        self.started = started
        #: the node took the lock after all
        self.settled = False
        #: ... or found it held by another (the node yields)
        self.contended = False

    def data(self) -> list[r.DataWrite]:
        """The data changes to write with the outcome."""
        return [] if self.store is None else list(self.store.writes.values())
