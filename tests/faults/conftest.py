"""Fixtures of the fault-injection suite (issue #6).

``KEEL_FAULT_REPEAT`` (default 1) runs every scenario that many times
(``attempt`` parameter); CI sets it to 5, a soak run to 50. No eventlet:
oslo.service's threading backend is chosen before oslo.messaging loads,
as in ``tests/functional/engine``.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from oslo_service import backend as _service_backend

from tests.faults import servers
from tests.faults.harness import FaultCloud, private_vhost, scratch_database

_service_backend.register_backend_default_hook(
    lambda: _service_backend.BackendType.THREADING
)
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore")
    import eventlet  # noqa: F401


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "attempt" in metafunc.fixturenames:
        repeat = int(os.environ.get("KEEL_FAULT_REPEAT", "1"))
        metafunc.parametrize("attempt", range(1, repeat + 1))


@pytest.fixture(scope="session")
def vhost() -> Iterator[str]:
    with private_vhost() as name:
        yield name


def _cloud(
    backend: str,
    tmp_path: pathlib.Path,
    vhost: str,
    admin_url: str | None = None,
    transport_url: str | None = None,
    extra_config: str = "",
) -> Iterator[FaultCloud]:
    with scratch_database(backend, admin_url) as url:
        cloud = FaultCloud(
            url,
            tmp_path,
            vhost,
            transport_url=transport_url,
            admin_url=admin_url,
            extra_config=extra_config,
        )
        try:
            yield cloud
        finally:
            cloud.close()


@pytest.fixture
def pg_cloud(tmp_path: pathlib.Path, vhost: str) -> Iterator[FaultCloud]:
    """Engines on a scratch PostgreSQL database."""
    yield from _cloud("postgresql", tmp_path, vhost)


@pytest.fixture
def pg_cloud_factory(
    tmp_path: pathlib.Path, vhost: str
) -> Iterator[Callable[[str], FaultCloud]]:
    """``make(extra_config)``: engines on a scratch PostgreSQL database,
    with more configuration appended to theirs."""
    with contextlib.ExitStack() as stack:

        def make(extra_config: str) -> FaultCloud:
            made = _cloud(
                "postgresql", tmp_path, vhost, extra_config=extra_config
            )
            stack.callback(lambda: next(made, None))
            return next(made)

        yield make


@pytest.fixture
def maria_cloud(tmp_path: pathlib.Path, vhost: str) -> Iterator[FaultCloud]:
    """Engines on a scratch MariaDB database."""
    yield from _cloud("mariadb", tmp_path, vhost)


def _private(kind: str, make: type[servers.PrivateServer]) -> Iterator[Any]:
    reason = servers.missing(kind)
    if reason:
        pytest.skip(f"cannot start a private {kind} server: {reason}")
    with servers.running(make()) as server:
        yield server


@pytest.fixture(scope="session")
def private_rabbit() -> Iterator[servers.PrivateRabbit]:
    """A RabbitMQ node of this test session, free to restart."""
    yield from _private("rabbitmq", servers.PrivateRabbit)


@pytest.fixture(scope="session")
def private_postgres() -> Iterator[servers.PrivatePostgres]:
    """A PostgreSQL cluster of this test session, free to restart."""
    yield from _private("postgresql", servers.PrivatePostgres)


@pytest.fixture(scope="session")
def private_mariadb() -> Iterator[servers.PrivateMariaDB]:
    """A MariaDB server of this test session, free to restart."""
    yield from _private("mariadb", servers.PrivateMariaDB)


@pytest.fixture
def rabbit_restart_cloud(
    tmp_path: pathlib.Path, private_rabbit: servers.PrivateRabbit
) -> Iterator[FaultCloud]:
    """Engines on a scratch PostgreSQL database (shared server) and the
    private RabbitMQ node."""
    yield from _cloud(
        "postgresql", tmp_path, "", transport_url=private_rabbit.url
    )


@pytest.fixture
def pg_restart_cloud(
    tmp_path: pathlib.Path,
    vhost: str,
    private_postgres: servers.PrivatePostgres,
) -> Iterator[FaultCloud]:
    """Engines on a database of the private PostgreSQL cluster."""
    yield from _cloud("postgresql", tmp_path, vhost, private_postgres.url)


@pytest.fixture
def maria_restart_cloud(
    tmp_path: pathlib.Path,
    vhost: str,
    private_mariadb: servers.PrivateMariaDB,
) -> Iterator[FaultCloud]:
    """Engines on a database of the private MariaDB server."""
    yield from _cloud("mariadb", tmp_path, vhost, private_mariadb.url)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Round by round: every scenario's attempt 1, then every attempt 2…

    With ``KEEL_FAULT_REPEAT`` the repeats of one scenario would
    otherwise run back to back, and a run cut short (a soak's time
    limit) would leave the last scenarios untried.
    """

    def attempt(item: pytest.Item) -> int:
        spec = getattr(item, "callspec", None)
        return int(spec.params.get("attempt", 0)) if spec else 0

    items.sort(key=attempt)  # stable: collection order within a round


@pytest.fixture
def maria_restart_window(
    tmp_path: pathlib.Path,
    vhost: str,
    private_mariadb: servers.PrivateMariaDB,
) -> Iterator[FaultCloud]:
    """Engines on a database of the private MariaDB server that ride out
    an outage of 3 s only (``[database] db_retry_timeout``)."""
    yield from _cloud(
        "mariadb",
        tmp_path,
        vhost,
        private_mariadb.url,
        extra_config="\n[database]\ndb_retry_timeout = 3\n",
    )
