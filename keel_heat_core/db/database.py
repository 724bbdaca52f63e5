"""The database handle every repository function takes first.

:class:`Database` wraps one SQLAlchemy engine built by oslo.db (which
translates driver errors into ``DBDeadlock``, ``DBDuplicateEntry``,
``DBReferenceError``...) and the ``auth_encryption_key`` used to read and
write encrypted columns.

On MySQL and MariaDB the connection uses found-rows semantics
(``CLIENT_FOUND_ROWS``): an ``UPDATE`` that matches a row without changing
it still counts as one row, which is what every compare-and-swap of the
engine relies on. SQLAlchemy's MySQL drivers set the flag; we check it on
first connection and refuse to run without it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

import sqlalchemy
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines
from osprofiler import sqlalchemy as profiler_sqlalchemy
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool.base import reset_none

from keel_heat_core import crypt, profiling
from keel_heat_core.db.commit_runs import CommitRuns

LOG = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

#: seconds a statement goes on being retried once the database became
#: unreachable (``[database] db_retry_timeout``)
OUTAGE_TIMEOUT = 60.0
#: retries of a transaction that met a deadlock (or a duplicate key)
CONFLICT_RETRIES = 3


@dataclasses.dataclass(frozen=True)
class OutageRetry:
    """How long and how often a lost database is tried again.

    :param timeout: seconds from the first failure; past them the error
        is raised (0: never retried).
    :param interval: the first pause, doubled after each retry when
        ``increase``.
    :param max_interval: the longest pause.
    """

    timeout: float = OUTAGE_TIMEOUT
    interval: float = 1.0
    max_interval: float = 10.0
    increase: bool = True

    @classmethod
    def from_conf(cls, opts: Any) -> OutageRetry:
        """From ``[database]``: ``db_retry_timeout`` and oslo.db's
        ``db_retry_interval``, ``db_max_retry_interval`` and
        ``db_inc_retry_interval``."""
        return cls(
            timeout=float(opts.db_retry_timeout),
            interval=float(opts.db_retry_interval),
            max_interval=float(opts.db_max_retry_interval),
            increase=bool(opts.db_inc_retry_interval),
        )

    def next_pause(self, pause: float) -> float:
        """The pause after ``pause``."""
        grown = pause * 2 if self.increase else pause
        return min(grown, self.max_interval)


#: Bit of the MySQL client flags that makes UPDATE report matched rows.
CLIENT_FOUND_ROWS = 2


class Database:
    """An engine, a session factory and the encryption key.

    :param url: an SQLAlchemy URL (Heat's ``[database] connection``).
    :param encryption_key: ``auth_encryption_key``; ``None`` uses Heat's
        well-known default (only acceptable in tests and embedded mode,
        which :func:`keel_heat_core.crypt.check_key` enforces at start-up).
    :param outage: how the repository functions retry a lost database
        (:func:`retry_on_db_error`).
    :param engine_options: extra keyword arguments for oslo.db's
        ``create_engine`` (``max_pool_size``, ``max_overflow``...).
    """

    def __init__(
        self,
        url: str,
        encryption_key: str | None = None,
        *,
        outage: OutageRetry | None = None,
        **engine_options: Any,
    ) -> None:
        self.outage = outage if outage is not None else OutageRetry()
        engine_options.setdefault("mysql_sql_mode", "TRADITIONAL")
        engine_options.setdefault("max_retries", 3)
        engine_options.setdefault("retry_interval", 1)
        # oslo.db sleeps(0) at every checkin so that eventlet's green
        # threads take turns; our services run native threads, where it
        # only hands the GIL to one of a worker's 64 threads after every
        # transaction (a node runs about six)
        engine_options.setdefault("thread_checkin", False)
        self.engine: Engine = engines.create_engine(url, **engine_options)
        self.encryption_key = (
            encryption_key if encryption_key is not None else crypt.DEFAULT_KEY
        )
        if self.engine.dialect.name == "mysql":
            event.listen(self.engine, "connect", _require_found_rows)
            if _skip_tls(self.engine):
                event.listen(self.engine, "do_connect", _no_tls)
        elif self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_connect)
            # oslo.db emits a plain (deferred) BEGIN; ours replaces it.
            for listener in list(self.engine.dispatch.begin):
                if listener.__name__ == "_sqlite_emit_begin":
                    event.remove(self.engine, "begin", listener)
            event.listen(self.engine, "begin", _sqlite_begin)
        if self.engine.dialect.name in ("mysql", "postgresql"):
            _check_only_when_needed(self.engine)
        self._sessions = sessionmaker(
            bind=self.engine, expire_on_commit=False, autoflush=False
        )
        #: releases that share a commit (:mod:`.commit_runs`)
        self.runs = CommitRuns(
            self.engine,
            enabled=self.engine.dialect.name in ("mysql", "postgresql"),
            on_commit=_note_commit,
        )

    @classmethod
    def from_conf(cls, conf: Any) -> Database:
        """Build from ``[database]`` and ``auth_encryption_key``.

        :param conf: an ``oslo_config.cfg.ConfigOpts`` with keel-heat's
            options registered.
        :raises ValueError: ``[database] connection`` is not set.
        """
        opts = conf.database
        if not opts.connection:
            raise ValueError("[database] connection is not set")
        db = cls(
            opts.connection,
            encryption_key=conf.auth_encryption_key,
            outage=OutageRetry.from_conf(opts),
            mysql_sql_mode=opts.mysql_sql_mode,
            connection_recycle_time=opts.connection_recycle_time,
            max_pool_size=opts.max_pool_size,
            max_overflow=opts.max_overflow,
            pool_timeout=opts.pool_timeout,
            max_retries=opts.max_retries,
            retry_interval=opts.retry_interval,
            sqlite_synchronous=opts.sqlite_synchronous,
        )
        trace_statements(db, conf)
        return db

    @property
    def dialect(self) -> str:
        """``sqlite``, ``mysql`` or ``postgresql``."""
        return str(self.engine.dialect.name)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session inside one transaction, committed on success (after
        this thread's open run of releases, :mod:`.commit_runs`)."""
        self.runs.before_statement(defer=False)
        with self._sessions.begin() as session:
            yield session

    @contextlib.contextmanager
    def connection(self, defer: bool = False) -> Iterator[Connection]:
        """A Core connection inside one transaction, committed on success.

        For the engine's per-node statements: no ORM session, identity
        map or unit of work around statements that need none of them.

        :param defer: a release that may share its commit with the next
            ones of this thread (:mod:`.commit_runs`); otherwise this
            thread's open run is committed first.
        :raises RunLost: this thread's run was rolled back.
        """
        runs = self.runs
        joined = runs.before_statement(defer)
        if joined is not None:
            with runs.join(joined) as conn:
                yield conn
            return
        if runs.defers(defer):
            with runs.open() as conn:
                yield conn
            return
        with self.engine.connect() as conn:
            with conn.begin():
                yield conn
            _note_commit(conn)

    def encrypt(self, value: str | None) -> tuple[str | None, str | None]:
        """Encrypt with this database's key (see :mod:`crypt`)."""
        return crypt.encrypt(value, self.encryption_key)

    def decrypt(self, method: str | None, value: str | None) -> str | None:
        """Decrypt a value stored with ``method``."""
        return crypt.decrypt(method, value, self.encryption_key)

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()


#: hosts for which PyMySQL's opportunistic TLS is not attempted
_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def _skip_tls(engine: Engine) -> bool:
    """True for PyMySQL to a loopback address or socket, no ssl options.

    PyMySQL tries TLS by default and builds a fresh ``SSLContext`` with
    the system CA bundle for every connection (about 50 ms of CPU, against
    0.5 ms for the connection itself); over loopback it protects nothing.
    Any ``ssl*`` query parameter on the URL keeps PyMySQL's behaviour.
    """
    url = engine.url
    if engine.dialect.driver != "pymysql":
        return False
    if any(key.startswith("ssl") for key in url.query):
        return False
    return (url.host or "localhost") in _LOOPBACK or "unix_socket" in url.query


def _no_tls(
    _dialect: Any, _record: Any, _cargs: Any, cparams: dict[str, Any]
) -> None:
    cparams.setdefault("ssl_disabled", True)


def _require_found_rows(dbapi_connection: Any, _record: Any) -> None:
    flags = getattr(dbapi_connection, "client_flag", None)
    if flags is not None and not flags & CLIENT_FOUND_ROWS:
        raise RuntimeError(
            "MySQL connection without CLIENT_FOUND_ROWS: compare-and-swap "
            "updates would be misreported"
        )


#: How long an SQLite writer waits for another one, in milliseconds.
SQLITE_BUSY_TIMEOUT_MS = 30000


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # The engine writes from many threads: WAL lets readers go on while
    # one writer works, and the busy timeout makes writers queue instead
    # of failing with "database is locked". pysqlite's own transaction
    # handling is switched off so that _sqlite_begin decides how a
    # transaction starts.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    finally:
        cursor.close()


def _sqlite_begin(conn: Any) -> None:
    # A deferred transaction that reads and then writes cannot wait for
    # the write lock (SQLite answers "database is locked" at once, since
    # its snapshot may be stale): take the write lock up front instead.
    # "in_transaction" is oslo.db's marker; with it set, oslo.db's
    # listener does not emit its own BEGIN, and it clears it on commit or
    # rollback.
    if "in_transaction" not in conn.info:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        conn.info["in_transaction"] = True


#: Set in a pooled connection's ``info`` by :meth:`Database.connection`
#: once its transaction committed; the pool's reset takes it off.
COMMITTED = "keel_committed"
#: A pooled connection idle for longer than this is pinged before use.
IDLE_PING_SECONDS = 1.0
#: ``SERVER_STATUS_IN_TRANS`` of the MySQL protocol's status flags.
MYSQL_IN_TRANSACTION = 1


def _note_commit(conn: Connection) -> None:
    """Committed: the pool need not roll the connection back (_reset)."""
    conn.connection.info[COMMITTED] = True


def _check_only_when_needed(engine: Engine) -> None:
    """Spare a pooled connection two round trips per transaction.

    oslo.db turns on SQLAlchemy's pre-ping, which pings at every checkout,
    and the pool rolls back every connection it gets back, even one whose
    transaction was just committed (``Engine.begin``). A chain node ran
    about six transactions: twelve of its round trips did nothing. Instead
    a connection is pinged only when it has been idle for more than
    :data:`IDLE_PING_SECONDS` (a server that went away in between is
    found as before; one that dies during the second fails the statement,
    which the retry decorators below take as a lost connection, as they
    would a failed ping), and is rolled back on return only when the
    driver says a transaction is still open. A driver that cannot say
    (mysqlclient) is spared the rollback after a transaction
    :meth:`Database.connection` saw commit (:data:`COMMITTED`).
    """
    pool = engine.pool
    # SQLAlchemy takes both only as create_engine arguments, which oslo.db
    # does not pass through.
    pool._pre_ping = False  # noqa: SLF001
    pool._reset_on_return = reset_none  # noqa: SLF001
    dialect = engine.dialect

    def checkin(_dbapi_connection: Any, record: Any) -> None:
        if record is not None:
            record.info["keel_idle_since"] = time.monotonic()

    def checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("keel_idle_since")
        if since is None or time.monotonic() - since <= IDLE_PING_SECONDS:
            return
        try:
            alive = dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            if dialect.is_disconnect(error, dbapi_connection, None):
                raise sa_exc.InvalidatePoolError() from error
            raise
        if not alive:
            raise sa_exc.InvalidatePoolError()

    def reset(dbapi_connection: Any, record: Any, state: Any) -> None:
        committed = record is not None and record.info.pop(COMMITTED, False)
        if committed or state.transaction_was_reset or state.terminate_only:
            return
        if _transaction_open(dbapi_connection):
            dialect.do_rollback(dbapi_connection)

    event.listen(pool, "checkin", checkin)
    event.listen(pool, "checkout", checkout)
    event.listen(pool, "reset", reset)


def _transaction_open(dbapi_connection: Any) -> bool:
    """False only when the driver knows no transaction is open."""
    status = getattr(dbapi_connection, "server_status", None)
    if isinstance(status, int):  # PyMySQL
        return bool(status & MYSQL_IN_TRANSACTION)
    info = getattr(dbapi_connection, "info", None)
    tx_status = getattr(info, "transaction_status", None)
    if isinstance(tx_status, int):  # psycopg2 / psycopg: 0 is idle
        return tx_status != 0
    return True


def _retrying(
    func: Callable[P, R], conflict: Callable[[BaseException], bool]
) -> Callable[P, R]:
    """``func`` (whose first argument is the :class:`Database`) run again
    while the database is unreachable, for the database's
    :attr:`Database.outage` window with growing pauses, and up to
    :data:`CONFLICT_RETRIES` times after a ``conflict`` (deadlock).

    Each try is a whole transaction of its own. One that committed but
    lost its connection before the answer is run again: the writes that
    rely on this are compare-and-swaps (the retry misses and says so),
    upserts or inserts of new rows.
    """

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        first = args[0] if args else None
        outage = first.outage if isinstance(first, Database) else OutageRetry()
        deadline: float | None = None
        pause = outage.interval
        conflicts = 0
        while True:
            try:
                return func(*args, **kwargs)
            except db_exc.DBConnectionError as exc:
                now = time.monotonic()
                if deadline is None:
                    deadline = now + outage.timeout
                if now >= deadline:
                    raise
                LOG.warning(
                    "Database unreachable in %s (%s); retrying in %.1f s",
                    func.__name__,
                    type(exc.inner_exception or exc).__name__,
                    pause,
                )
                time.sleep(min(pause, deadline - now))
                pause = outage.next_pause(pause)
            except Exception as exc:
                if not conflict(exc) or conflicts >= CONFLICT_RETRIES:
                    raise
                conflicts += 1
                time.sleep(0.5 * 2 ** (conflicts - 1))

    return wrapper


def _is_deadlock(exc: BaseException) -> bool:
    return isinstance(exc, db_exc.DBDeadlock)


def _is_conflict(exc: BaseException) -> bool:
    return isinstance(exc, (db_exc.DBDeadlock, db_exc.DBDuplicateEntry))


def retry_on_db_error(func: Callable[P, R]) -> Callable[P, R]:
    """Retry a whole transaction on a lost database and on deadlock.

    A lost database for as long as :attr:`Database.outage` allows (a
    failover of a few seconds is ridden out); a deadlock three times,
    0.5 s growing pause, as Heat does for its writes.
    """
    return _retrying(func, _is_deadlock)


def retry_on_duplicate(func: Callable[P, R]) -> Callable[P, R]:
    """Retry as :func:`retry_on_db_error`, and on a duplicate entry."""
    return _retrying(func, _is_conflict)


def trace_statements(db: Database, conf: Any) -> None:
    """With ``[profiler] trace_sqlalchemy``, each statement of ``db`` is
    a ``db`` span of the trace of the request it serves."""
    if profiling.enabled(conf) and conf.profiler.trace_sqlalchemy:
        profiler_sqlalchemy.add_tracing(sqlalchemy, db.engine, "db")
