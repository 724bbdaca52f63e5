"""The resource lock: ``(engine_id, atomic_key)`` on the resource row.

Every locking write is one compare-and-swap, as in Heat::

    UPDATE resource SET <values>, atomic_key = k + 1
     WHERE id = ? AND engine_id <=> <expected> AND atomic_key <=> k

*acquire* expects no holder and sets this engine, *release* expects this
engine and clears it, *respect* expects no holder and leaves it. The
engine keeps the incremented key in memory after each success.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from keel_heat_core.convergence.store import InRelease, ReadAhead

LOG = logging.getLogger(__name__)

#: seconds a release keeps retrying while the database is unreachable
#: (a restart, a failover), unless the store says otherwise (its
#: ``retry_timeout``: ``[database] db_retry_timeout``); the resource's
#: work is done by then, and a lock that is never released fails it
RELEASE_RETRY_SECS = 60.0


def retry_secs(store: object) -> float:
    """How long ``store``'s writes ride out a lost database."""
    return float(getattr(store, "retry_timeout", RELEASE_RETRY_SECS))


_TRANSIENT = frozenset(
    {"DBConnectionError", "DBDeadlock", "OperationalError", "InterfaceError"}
)


def is_transient_db_error(exc: BaseException) -> bool:
    """A lost connection or a deadlock (oslo.db, SQLAlchemy or DB-API
    classes, told by name: the worker does not import the DB layer)."""
    return any(cls.__name__ in _TRANSIENT for cls in type(exc).__mro__)


class UpdateInProgress(Exception):
    """The row is locked by someone else (or our atomic_key is stale)."""

    def __init__(self, resource_name: str) -> None:
        self.resource_name = resource_name
        super().__init__(
            f"The resource {resource_name} is already being updated."
        )


@dataclasses.dataclass
class LockState:
    """The lock columns of a row, as last read or written by us."""

    engine_id: str | None
    atomic_key: int | None
    current_template_id: int | None = None


class ResourceLockStore(Protocol):
    """The two row operations the lock needs from the DB layer."""

    def cas_update(
        self,
        resource_id: int,
        expected_engine_id: str | None,
        expected_atomic_key: int | None,
        values: Mapping[str, Any],
        events: Sequence[Any] = (),
        then: Sequence[InRelease] = (),
        data: Sequence[Any] = (),
        defer: bool = False,
    ) -> bool:
        """The guarded UPDATE above (it bumps ``atomic_key`` itself);
        ``events``, the sync point writes ``then`` and the resource-data
        changes ``data`` (``model.rows.DataWrite``) go in the same
        transaction, only when it matched (each sync point write's
        ``matched`` is set). ``defer``: the commit may wait for this
        thread's next releases (``keel_heat_core.db.commit_runs``)."""

    def read_lock(self, resource_id: int) -> LockState | None:
        """Re-read the lock columns (None if the row is gone)."""


class ResourceLock:
    """The lock protocol over one row, tracking ``atomic_key`` in memory.

    :param store: the row store.
    :param resource_id: the row id.
    :param name: the resource name (for error messages).
    :param state: the lock columns as read with the row.
    """

    def __init__(
        self,
        store: ResourceLockStore,
        resource_id: int,
        name: str,
        state: LockState,
        sleep: Callable[[float], Any] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self.resource_id = resource_id
        self.name = name
        self.state = state
        self._sleep = sleep
        self._clock = clock

    def _write(
        self,
        expected: str | None,
        new_engine: str | None,
        values: Mapping[str, Any],
        events: Sequence[Any] = (),
        then: Sequence[InRelease] = (),
        data: Sequence[Any] = (),
        defer: bool = False,
    ) -> None:
        row = dict(values)
        row["engine_id"] = new_engine
        key = self.state.atomic_key
        if not self._store.cas_update(
            self.resource_id, expected, key, row, events, then, data, defer
        ):
            raise UpdateInProgress(self.name)
        self.state.atomic_key = 1 if key is None else key + 1
        self.state.engine_id = new_engine
        if "current_template_id" in values:
            self.state.current_template_id = values["current_template_id"]

    def acquire(
        self,
        engine_id: str,
        values: Mapping[str, Any],
        events: Sequence[Any] = (),
    ) -> None:
        """Take the lock while writing ``values`` (an IN_PROGRESS state).

        :raises UpdateInProgress: held by someone, or stale atomic_key.
        """
        self._write(None, engine_id, values, events)

    def release(
        self,
        engine_id: str,
        values: Mapping[str, Any],
        events: Sequence[Any] = (),
        then: Sequence[InRelease] = (),
    ) -> None:
        """Give the lock back while writing ``values`` (a final state).

        ``then``: sync point writes that go in the release's transaction
        (the node handing its successors over as it finishes).

        A metadata write (a signal, a deployment) may bump ``atomic_key``
        while we hold the lock; then re-read and release again, as long as
        the lock is still ours (otherwise the lock would stay held by a
        live engine for ever).

        A lost connection or a deadlock is retried for
        :func:`retry_secs` (growing waits up to 4 s). If the
        write had committed before its connection died, the retry's CAS
        misses and the re-read shows the lock is no longer ours:
        :class:`UpdateInProgress`, and the node is re-driven over the
        finished row.
        """
        deadline = self._clock() + retry_secs(self._store)
        contended = 0
        pause = 0.5
        while True:
            try:
                self._write(engine_id, None, values, events, then)
                return
            except UpdateInProgress:
                contended += 1
                state = self.refresh()
                if state is None or state.engine_id != engine_id:
                    raise
                if contended >= 5:
                    raise
            except Exception as exc:
                pause = self._wait_out(exc, deadline, pause)

    def finish(
        self,
        values: Mapping[str, Any],
        events: Sequence[Any] = (),
        then: Sequence[InRelease] = (),
        data: Sequence[Any] = (),
    ) -> None:
        """Write a whole action's outcome without ever holding the lock.

        For an action run before the lock (``worker.local``): one
        compare-and-swap expects no holder and leaves none, writing the
        final state, the events, the sync point writes ``then`` and the
        resource data ``data``. Retried as :meth:`release` is while the
        database is unreachable.

        Nothing of it is outside the database, so when the thread runs
        the successor next (``then`` reads it ahead) its commit may be
        shared with that node's release (``defer``).

        :raises UpdateInProgress: someone holds the lock or moved the key
            since the row was read (also when a write that committed
            lost its connection: the retry then misses, as a release's
            does).
        :raises RunLost: the shared commit's run was rolled back.
        """
        deadline = self._clock() + retry_secs(self._store)
        pause = 0.5
        defer = any(isinstance(item, ReadAhead) for item in then)
        while True:
            try:
                self._write(None, None, values, events, then, data, defer)
                return
            except UpdateInProgress:
                raise
            except Exception as exc:
                pause = self._wait_out(exc, deadline, pause)

    def _wait_out(
        self, exc: Exception, deadline: float, pause: float
    ) -> float:
        """Sleep before a retry of a transient error; returns the next
        pause (or re-raises ``exc``)."""
        if not is_transient_db_error(exc) or self._clock() > deadline:
            raise exc
        LOG.warning(
            "Writing resource %s: %s; retrying in %.1f s",
            self.resource_id,
            type(exc).__name__,
            pause,
        )
        self._sleep(pause)
        return min(pause * 2, 4.0)

    def respect(
        self, values: Mapping[str, Any], events: Sequence[Any] = ()
    ) -> None:
        """Write ``values`` only if nobody holds the lock."""
        self._write(None, None, values, events)

    def refresh(self) -> LockState | None:
        """Re-read the lock columns into memory."""
        state = self._store.read_lock(self.resource_id)
        if state is not None:
            self.state = state
        return state
