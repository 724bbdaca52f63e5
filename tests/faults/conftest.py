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
from collections.abc import Iterator

import pytest
from oslo_service import backend as _service_backend

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
    backend: str, tmp_path: pathlib.Path, vhost: str
) -> Iterator[FaultCloud]:
    with scratch_database(backend) as url:
        cloud = FaultCloud(url, tmp_path, vhost)
        try:
            yield cloud
        finally:
            cloud.close()


@pytest.fixture
def pg_cloud(tmp_path: pathlib.Path, vhost: str) -> Iterator[FaultCloud]:
    """Engines on a scratch PostgreSQL database."""
    yield from _cloud("postgresql", tmp_path, vhost)


@pytest.fixture
def maria_cloud(tmp_path: pathlib.Path, vhost: str) -> Iterator[FaultCloud]:
    """Engines on a scratch MariaDB database."""
    yield from _cloud("mariadb", tmp_path, vhost)
