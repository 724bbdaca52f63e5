"""The database and configuration of an in-process test cloud.

See :class:`keel_heat_core.testing.cloud.InProcessCloud`, which uses
these; they also serve tests that run engines alone or in processes of
their own.
"""

from __future__ import annotations

import contextlib
import pathlib
import threading
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core.db.database import Database

#: ``auth_encryption_key`` of every test cloud (32 characters).
KEY = "0123456789abcdef0123456789abcdef"
#: Server databases :func:`scratch_database` creates its databases on.
ADMIN_URLS = {
    "mariadb": "mysql+pymysql://root@127.0.0.1:3306/",
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
    backend: str, workdir: pathlib.Path, prefix: str = "keel_cloud_"
) -> Iterator[str]:
    """Create an empty database ``<prefix><random>``; yield its URL.

    :param backend: ``sqlite`` (a file in ``workdir``), ``mariadb``
        (root on 127.0.0.1:3306) or ``postgresql`` (postgres on
        127.0.0.1:5432).
    :param workdir: the folder of a SQLite database.
    :param prefix: the start of the database's name.
    :raises ValueError: for another backend.

    A server database is dropped afterwards.
    """
    import sqlalchemy as sa

    name = f"{prefix}{uuid.uuid4().hex[:12]}"
    if backend == "sqlite":
        yield f"sqlite:///{workdir / name}.sqlite"
        return
    if backend == "mariadb":
        url = f"mysql+pymysql://root@127.0.0.1:3306/{name}?charset=utf8mb4"
        create = f"CREATE DATABASE {name} CHARACTER SET utf8mb4"
        drop = f"DROP DATABASE IF EXISTS {name}"
    elif backend == "postgresql":
        url = f"postgresql+psycopg2://postgres@127.0.0.1:5432/{name}"
        create = f"CREATE DATABASE {name}"
        drop = f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    else:
        raise ValueError(backend)
    admin = sa.create_engine(ADMIN_URLS[backend], isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(create))
    try:
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(drop))
        admin.dispose()


def make_conf(
    database_url: str,
    transport_url: str = "fake://",
    exchange: str | None = None,
    *,
    prefix: str = "keel_cloud_",
    api: bool = False,
    config_files: Iterable[str] = (),
    options: Mapping[tuple[str, str], Any] | None = None,
) -> cfg.ConfigOpts:
    """The configuration of a test cloud.

    :param database_url: ``[database] connection``.
    :param transport_url: ``transport_url`` (``fake://`` or RabbitMQ).
    :param exchange: ``control_exchange``; ``<prefix><random>`` if
        ``None``, so that clouds on one broker do not meet.
    :param prefix: see ``exchange``.
    :param api: also register the native and CFN APIs' options.
    :param config_files: files read first (the overrides win).
    :param options: ``{(group, option): value}`` overrides, ``DEFAULT``
        for the default group.
    """
    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    if api:
        from keel_heat_api import cfn as cfn_api
        from keel_heat_api import opts as api_opts

        api_opts.register_opts(conf)
        cfn_api.register_opts(conf)
    conf([], default_config_files=list(config_files))
    conf.set_override("transport_url", transport_url)
    conf.set_override(
        "control_exchange", exchange or f"{prefix}{uuid.uuid4().hex[:8]}"
    )
    conf.set_override("connection", database_url, group="database")
    conf.set_override("auth_encryption_key", KEY)
    for (group, name), value in (options or {}).items():
        conf.set_override(
            name, value, group=None if group == "DEFAULT" else group
        )
    return conf
