"""One line for what stops a command at start-up.

A wrong ``[database] connection``, a database that is down or not yet
migrated, a port another process holds: each is the operator's to fix,
and each used to end in a traceback of 40 to 170 lines. :func:`describe`
turns such an exception into one line that names the option, address or
command concerned; anything else (a bug) keeps its traceback.
"""

from __future__ import annotations

import errno
import logging
import sys
from typing import Any

from oslo_config import cfg
from oslo_db import exception as db_exc
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url

from keel_heat_core import plugins

LOG = logging.getLogger(__name__)

#: Python modules of the database drivers keel-heat's URLs name
DRIVER_MODULES = frozenset({"pymysql", "MySQLdb", "psycopg2", "psycopg"})

#: what a DBAPI says when a table is missing (SQLite, MariaDB, PostgreSQL)
_NO_TABLE = ("no such table", "doesn't exist", "does not exist")


class StartupError(RuntimeError):
    """A command cannot start as configured; the text says why."""


def shown_url(conf: cfg.ConfigOpts) -> str:
    """``[database] connection`` without its password."""
    url = str(conf.database.connection or "")
    try:
        return make_url(url).render_as_string(hide_password=True)
    except sa_exc.ArgumentError:
        return "(not a database URL)"


def _reason(exc: BaseException) -> str:
    """The driver's own words, without SQLAlchemy's wrapping."""
    inner: BaseException = exc
    while True:
        nxt = getattr(inner, "inner_exception", None) or getattr(
            inner, "orig", None
        )
        if not isinstance(nxt, BaseException) or nxt is inner:
            break
        inner = nxt
    args = getattr(inner, "args", ())
    text = args[-1] if args and isinstance(args[-1], str) else str(inner)
    return (
        text.strip().splitlines()[0] if text.strip() else type(inner).__name__
    )


def describe(exc: BaseException, conf: cfg.ConfigOpts) -> str | None:
    """The line for a start-up failure of configuration or environment,
    or None for anything else."""
    if isinstance(exc, StartupError | cfg.Error | plugins.PluginError):
        return str(exc)
    if isinstance(exc, ModuleNotFoundError) and exc.name in DRIVER_MODULES:
        return (
            f"[database] connection {shown_url(conf)} needs the Python "
            f"module {exc.name}, which is not installed"
        )
    if isinstance(exc, sa_exc.NoSuchModuleError):
        return (
            f"[database] connection {shown_url(conf)}: no such database "
            "dialect or driver"
        )
    if isinstance(exc, sa_exc.ArgumentError):
        return "[database] connection is not a database URL"
    if isinstance(exc, db_exc.DBConnectionError):
        return (
            f"cannot connect to the database {shown_url(conf)} "
            f"([database] connection): {_reason(exc)}"
        )
    text = _reason(exc).lower()
    if isinstance(exc, sa_exc.DBAPIError | db_exc.DBError) and any(
        words in text for words in _NO_TABLE
    ):
        return (
            f"the database {shown_url(conf)} has no keel-heat schema or an "
            "old one: run `keel-heat-manage db sync`"
        )
    if isinstance(exc, sa_exc.OperationalError):
        return (
            f"cannot use the database {shown_url(conf)} "
            f"([database] connection): {_reason(exc)}"
        )
    return None


def refuse(prog: str, exc: BaseException, conf: cfg.ConfigOpts) -> int:
    """Say in one line why ``prog`` cannot start and return its exit
    status, 1; re-raise what :func:`describe` cannot name (a bug keeps
    its traceback)."""
    line = describe(exc, conf)
    if line is None:
        raise exc
    LOG.error("%s cannot start: %s", prog, line)
    print(f"{prog}: {line}", file=sys.stderr)
    return 1


def listen_error(
    exc: OSError, group: str, host: str, port: int
) -> StartupError:
    """A bind failure as a :class:`StartupError` naming the address and
    the options that chose it."""
    what = {
        errno.EADDRINUSE: "the address is already in use",
        errno.EACCES: "permission denied",
        errno.EADDRNOTAVAIL: "no such address on this host",
    }.get(exc.errno or 0, exc.strerror or str(exc))
    return StartupError(
        f"cannot listen on {host}:{port} ([{group}] bind_host, bind_port): "
        f"{what}"
    )


def check_database(
    conf: cfg.ConfigOpts,
    at_head: bool = False,
    max_retries: int | None = None,
) -> None:
    """Connect to ``[database] connection`` once and look for keel-heat's
    schema, before a service starts the processes that would each fail
    (and for ``keel-heat-status upgrade check``).

    :param at_head: also require the schema to be this release's head,
        with no difference from the models.
    :param max_retries: oslo.db's connection retries (its default: None).
    :raises StartupError: no connection is configured, the database has
        no schema (``keel-heat-manage db sync`` never ran) or, with
        ``at_head``, not this release's
    :raises DBConnectionError: the database does not answer (see
        :func:`describe`)
    """
    from keel_heat_core.cmd.manage_db import db_check
    from keel_heat_core.db.database import Database
    from keel_heat_core.migrations import runner

    if not conf.database.connection:
        raise StartupError("[database] connection is not set")
    retries: dict[str, Any] = (
        {} if max_retries is None else {"max_retries": max_retries}
    )
    db = Database(
        conf.database.connection, conf.auth_encryption_key, **retries
    )
    try:
        if runner.current(db.engine) is None:
            raise StartupError(
                f"the database {shown_url(conf)} has no keel-heat schema: "
                "run `keel-heat-manage db sync`"
            )
        problems = db_check(db) if at_head else []
    finally:
        db.engine.dispose()
    if problems:
        raise StartupError("; ".join(problems))
