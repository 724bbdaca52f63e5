"""Fixtures of the Swift pack's tests.

``heat`` is keel-heat (engine, native and CFN APIs) in this process on a
MariaDB database and a private RabbitMQ virtual host, registered in the
test cloud's Keystone and finding Swift through its catalog, as in a real
cloud; stacks are made by the cloud's member user, and ``store`` (the
member's openstacksdk object store) checks Swift. The cloud fixture of
the testing kit is imported: pytest refuses ``pytest_plugins`` below the
top-level conftest.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core.testing.cloud import InProcessCloud
from keel_heat_core.testing.cloud_setup import (
    private_vhost,
    rabbit_url,
    scratch_database,
)
from keel_heat_core.testing.openstack.fixture import (  # noqa: F401
    CloudAccess,
    openstack_cloud,
    pytest_runtest_makereport,
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "openstack_cloud" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.cloud)


@pytest.fixture(scope="session")
def heat(
    openstack_cloud: CloudAccess,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[InProcessCloud]:
    """keel-heat behind the cloud's Keystone (one per xdist worker)."""
    with (
        scratch_database("mariadb", prefix="keel_swiftpack_") as url,
        private_vhost() as vhost,
        InProcessCloud(
            tmp_path_factory.mktemp("heat"),
            database_url=url,
            transport_url=rabbit_url(vhost),
            keystone=openstack_cloud.keystone,
            cfn_api=True,
        ) as cloud,
    ):
        yield cloud


@pytest.fixture
def store(openstack_cloud: CloudAccess) -> Any:  # noqa: F811
    """The member's object store (openstacksdk)."""
    return openstack_cloud.conn.object_store


@pytest.fixture
def unique() -> str:
    """A short unique text for names."""
    return "swp-" + uuid.uuid4().hex[:10]
