"""Runs of releases that share one commit (``docs/design/resume.md``,
"Committing a line in runs").

A chain node's whole outcome is one transaction (``worker/local.py``): a
compare-and-swap of its row, its event and the first write of the
successor that the same thread runs next. The commit and the pool's
checkout and return are about a third of that. A thread that drives a
line of such nodes may let their transactions run together: the release
of the first opens a transaction that is not committed when the release
ends; the next releases that ask to defer (``Database.connection(defer=
True)``) write on that connection, and the run is committed

* after :attr:`CommitRuns.limit` releases or :attr:`CommitRuns.max_age`
  seconds, at the end of a release;
* before any other statement of the thread (``Database.connection`` or
  ``Database.transaction`` without ``defer``), so that nothing the thread
  does next sees the database without the run;
* when the caller says so (:meth:`CommitRuns.flush`): before a cast and
  when the thread stops driving the line.

A run that cannot commit, or a release inside it that fails (its
compare-and-swap missed, a statement failed), is rolled back as a whole:
every release in it is undone. :class:`~keel_heat_core.exception.RunLost`
is raised then, and every later statement of the thread raises it too,
until the driver calls :meth:`CommitRuns.recover`; the driver re-runs
the line from the node whose release opened the run. A release that
fails as the run's first is an ordinary failed transaction (nothing
before it is lost).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Connection, Engine, RootTransaction

from keel_heat_core.exception import RunLost

#: releases per commit at most
RUN_LENGTH = 8
#: seconds a run stays open at most (checked at the end of a release)
RUN_AGE_S = 0.05


class _State(threading.local):
    def __init__(self) -> None:
        #: releases per commit this thread may defer (0: none)
        self.limit = 0
        self.conn: Connection | None = None
        self.trans: RootTransaction | None = None
        #: releases in the open run
        self.count = 0
        self.opened = 0.0
        #: which run is open: a new number for every run
        self.serial = 0
        self.lost = False
        #: inside a release of the run (its statements are not done)
        self.busy = False


class CommitRuns:
    """The runs of one database's engine, per thread.

    :param engine: the database's engine.
    :param enabled: whether runs are allowed at all (MySQL and
        PostgreSQL; SQLite has one writer, which a run would hold).
    :param on_commit: called with the connection after its commit,
        before it goes back to the pool (``Database`` notes the commit
        for the pool's reset).
    """

    def __init__(
        self,
        engine: Engine,
        enabled: bool,
        on_commit: Callable[[Connection], None] = lambda conn: None,
        limit: int = RUN_LENGTH,
        max_age: float = RUN_AGE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.enabled = enabled
        self.limit = limit
        self.max_age = max_age
        self._on_commit = on_commit
        self._clock = clock
        self._state = _State()

    # -- the driver's side -------------------------------------------------

    def start(self) -> bool:
        """Let this thread's releases defer their commits; False when
        runs are off or the thread has them on already."""
        state = self._state
        if not self.enabled or self.limit < 2 or state.limit:
            return False
        state.limit = self.limit
        return True

    def stop(self) -> None:
        """Commit the open run, then defer no more in this thread.

        :raises RunLost: the run could not commit.
        """
        try:
            self.flush()
        finally:
            self._state.limit = 0

    def flush(self) -> None:
        """Commit the open run, if any.

        :raises RunLost: the run (or an earlier one) was rolled back.
        """
        state = self._state
        if state.lost:
            raise RunLost()
        conn, trans = state.conn, state.trans
        if conn is None or trans is None:
            return
        state.conn = state.trans = None
        try:
            trans.commit()
        except BaseException as exc:
            self._discard(conn)
            state.lost = True
            raise RunLost() from exc
        self._on_commit(conn)
        conn.close()

    def serial(self) -> int | None:
        """The open run's number (the lost one's while it is lost), or
        None."""
        state = self._state
        if state.conn is None and not state.lost:
            return None
        return state.serial

    def lost(self) -> bool:
        """Whether a run was rolled back and not yet recovered from."""
        return self._state.lost

    def recover(self) -> None:
        """The driver re-runs the lost run's nodes: statements go on."""
        self._state.lost = False

    # -- Database's side ---------------------------------------------------

    def before_statement(self, defer: bool) -> Connection | None:
        """What a new transaction of this thread does with the run: the
        run's connection for a release that joins it; otherwise the run
        is committed first and None returned.

        :raises RunLost: the run is lost (or is now, failing to commit).
        """
        state = self._state
        if state.lost:
            raise RunLost()
        if state.conn is None or state.busy:
            # a transaction opened inside a release stands apart, as it
            # would without runs: the release is not done
            return None
        if defer:
            return state.conn
        self.flush()
        return None

    def defers(self, defer: bool) -> bool:
        """Whether a release asking to defer opens a run now."""
        state = self._state
        return defer and state.limit > 1 and not state.busy

    @contextmanager
    def join(self, conn: Connection) -> Iterator[Connection]:
        """One more release on the open run's connection."""
        state = self._state
        state.busy = True
        try:
            yield conn
        except BaseException as exc:
            self._lose()
            raise RunLost() from exc
        finally:
            state.busy = False
        self._released()

    @contextmanager
    def open(self) -> Iterator[Connection]:
        """The release that opens a run: its transaction stays open."""
        state = self._state
        conn = self.engine.connect()
        state.busy = True
        try:
            trans = conn.begin()
            yield conn
        except BaseException:
            conn.close()  # rolls back: as any failed transaction
            raise
        finally:
            state.busy = False
        state.conn, state.trans = conn, trans
        state.count = 0
        state.opened = self._clock()
        state.serial += 1
        self._released()

    def _released(self) -> None:
        state = self._state
        state.count += 1
        if (
            state.count >= state.limit
            or self._clock() - state.opened >= self.max_age
        ):
            self.flush()

    def _lose(self) -> None:
        state = self._state
        conn = state.conn
        state.conn = state.trans = None
        state.lost = True
        if conn is not None:
            self._discard(conn)

    @staticmethod
    def _discard(conn: Connection) -> None:
        """Roll back and return a connection whose state is unknown."""
        try:
            conn.close()
        except Exception:  # a dead connection: the pool drops it
            conn.invalidate()
