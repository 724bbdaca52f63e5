"""The database and configuration of an in-process test cloud.

See :class:`keel_heat_core.testing.cloud.InProcessCloud`, which uses
these; they also serve tests that run engines alone or in processes of
their own.
"""

from __future__ import annotations

import contextlib
import pathlib
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import sqlalchemy as sa
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core.db.database import Database
from keel_heat_core.template import environment

#: ``auth_encryption_key`` of every test cloud (32 characters).
KEY = "0123456789abcdef0123456789abcdef"
#: Server databases :func:`scratch_database` creates its databases on.
ADMIN_URLS = {
    "mariadb": "mysql+pymysql://root@127.0.0.1:3306/",
    # the same MariaDB through mysqlclient (MySQLdb), where it is installed
    "mysqldb": "mysql+mysqldb://root@127.0.0.1:3306/",
    "postgresql": "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres",
}


def serialize_sqlite_writers(db: Database) -> None:
    """One transaction at a time on a shared SQLite database.

    SQLite allows one writer; under oslo.db's deferred BEGIN two threads
    that read then write fail with "database is locked" instead of
    waiting. Engines of one process share the Database object, so a lock
    around its transactions serialises them (MariaDB and PostgreSQL need
    nothing of the kind). Threads then also queue on the lock rather than
    in SQLite's busy handler, which sleeps up to 100 ms between tries.
    """
    if db.dialect != "sqlite":
        return
    lock = threading.RLock()
    transaction = db.transaction

    @contextlib.contextmanager
    def serialized() -> Iterator[Any]:
        with lock, transaction() as session:
            yield session

    db.transaction = serialized  # type: ignore[method-assign]


@contextlib.contextmanager
def scratch_database(
    backend: str,
    workdir: pathlib.Path | None = None,
    prefix: str = "keel_cloud_",
    admin_url: str | None = None,
) -> Iterator[str]:
    """Create an empty database ``<prefix><random>``; yield its URL.

    :param backend: ``sqlite`` (a file in ``workdir``), ``mariadb``
        (``mysqldb``: the same server through mysqlclient) or
        ``postgresql``.
    :param workdir: the folder of a SQLite database.
    :param prefix: the start of the database's name.
    :param admin_url: a superuser URL of the server; by default the
        shared one of ``backend`` (:data:`ADMIN_URLS`).
    :raises ValueError: for another backend, or SQLite without
        ``workdir``.

    A server database is dropped afterwards, its connections closed
    first (the server may have been restarted meanwhile: no pool).
    """
    name = f"{prefix}{uuid.uuid4().hex[:12]}"
    if backend == "sqlite":
        if workdir is None:
            raise ValueError("a SQLite scratch database needs a workdir")
        yield f"sqlite:///{workdir / name}.sqlite"
        return
    if backend not in ADMIN_URLS:
        raise ValueError(backend)
    admin_url = admin_url or ADMIN_URLS[backend]
    server = sa.engine.make_url(admin_url)
    mysql = server.get_backend_name() == "mysql"
    if mysql:
        url = server.set(database=name, query={"charset": "utf8mb4"})
        create = f"CREATE DATABASE {name} CHARACTER SET utf8mb4"
        drop = f"DROP DATABASE IF EXISTS {name}"
    else:
        url = server.set(database=name)
        create = f"CREATE DATABASE {name}"
        drop = f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    admin = sa.create_engine(
        admin_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool
    )
    with admin.connect() as conn:
        conn.execute(sa.text(create))
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            if mysql:
                kill_mariadb_connections(conn, name)
            conn.execute(sa.text(drop))
        admin.dispose()


def kill_mariadb_connections(conn: sa.Connection, name: str) -> int:
    """``KILL`` every MariaDB connection to database ``name``.

    :returns: how many were killed.
    """
    ids = conn.execute(
        sa.text("SELECT id FROM information_schema.processlist WHERE db = :n"),
        {"n": name},
    ).scalars()
    count = 0
    for ident in list(ids):
        with contextlib.suppress(sa.exc.DBAPIError):
            conn.execute(sa.text(f"KILL {int(ident)}"))
            count += 1
    return count


def make_conf(
    database_url: str,
    transport_url: str = "inproc://",
    exchange: str | None = None,
    *,
    prefix: str = "keel_cloud_",
    api: bool = False,
    config_files: Iterable[str] = (),
    options: Mapping[tuple[str, str], Any] | None = None,
) -> cfg.ConfigOpts:
    """The configuration of a test cloud.

    :param database_url: ``[database] connection``.
    :param transport_url: ``transport_url`` (``inproc://`` or RabbitMQ).
    :param exchange: ``control_exchange``; ``<prefix><random>`` if
        ``None``, so that clouds on one broker do not meet.
    :param prefix: see ``exchange``.
    :param api: also register the native and CFN APIs' options.
    :param config_files: files read first (``options`` win).
    :param options: ``{(group, option): value}``, ``DEFAULT`` for the
        default group: a text value as a config file holds it (parsed as
        a ``keel-heat.conf`` line is, even for options registered later,
        e.g. by oslo.messaging), any other as the option's Python value
        (set with ``set_override``).  They win over the other arguments.
    """
    given = dict(options or {})
    texts = {key: v for key, v in given.items() if isinstance(v, str)}
    fixed: dict[tuple[str, str], Any] = {
        ("DEFAULT", "transport_url"): transport_url,
        ("DEFAULT", "control_exchange"): (
            exchange or f"{prefix}{uuid.uuid4().hex[:8]}"
        ),
        ("database", "connection"): database_url,
        ("DEFAULT", "auth_encryption_key"): KEY,
    }
    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    if api:
        from keel_heat_api import cfn as cfn_api
        from keel_heat_api import opts as api_opts

        api_opts.register_opts(conf)
        cfn_api.register_opts(conf)
    with tempfile.TemporaryDirectory(prefix="keel_conf_") as folder:
        files = list(config_files)
        if texts:
            path = pathlib.Path(folder) / "options.conf"
            path.write_text(_ini(texts))
            files.append(str(path))
        conf([], default_config_files=files)
    overrides = {k: v for k, v in fixed.items() if k not in given}
    overrides.update((k, v) for k, v in given.items() if k not in texts)
    for (group, name), value in overrides.items():
        conf.set_override(
            name, value, group=None if group == "DEFAULT" else group
        )
    return conf


def _ini(options: Mapping[tuple[str, str], str]) -> str:
    groups: dict[str, list[str]] = {}
    for (group, name), value in options.items():
        groups.setdefault(group, []).append(f"{name} = {value}")
    return "".join(
        f"[{group}]\n" + "\n".join(lines) + "\n"
        for group, lines in groups.items()
    )


def rabbitmqctl(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``rabbitmqctl -q ARGS`` on the local broker (no exception on a
    non-zero exit: the caller checks ``returncode``)."""
    return subprocess.run(
        ["rabbitmqctl", "-q", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@contextlib.contextmanager
def private_vhost(prefix: str = "keel_tst_") -> Iterator[str]:
    """A RabbitMQ virtual host of our own (``<prefix><random>``), for the
    ``guest`` user, deleted afterwards.

    oslo.messaging names a topic's queue after the topic alone
    (``engine``, ``engine_worker``) whatever the exchange, so two clouds
    on one virtual host share queues and take each other's messages:
    every test cloud on RabbitMQ needs a virtual host of its own.

    :raises AssertionError: when the virtual host cannot be made.
    """
    name = f"{prefix}{uuid.uuid4().hex[:10]}"
    made = rabbitmqctl("add_vhost", name)
    assert made.returncode == 0, f"rabbitmqctl add_vhost: {made.stderr}"
    try:
        rabbitmqctl("set_permissions", "-p", name, "guest", ".*", ".*", ".*")
        yield name
    finally:
        rabbitmqctl("delete_vhost", name)


def rabbit_url(vhost: str, scheme: str = "rabbit") -> str:
    """The local broker's URL for ``vhost`` (``rabbit://`` for
    oslo.messaging, ``amqp://`` for kombu)."""
    return f"{scheme}://guest:guest@127.0.0.1:5672/{vhost}"


@contextlib.contextmanager
def registered_types(types: Mapping[str, Any]) -> Iterator[None]:
    """The engine's global environment with ``{type name: class}`` added
    (test resource types), the previous one back afterwards."""
    before = environment.global_env()
    env = environment.build_global_env()
    for name, cls in types.items():
        env.register_class(name, cls)
    environment.set_global_env(env)
    try:
        yield
    finally:
        environment.set_global_env(before)
