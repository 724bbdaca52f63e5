"""The in-process cloud of :mod:`tests.functional.identity.harness`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from openstack import connection

from keel_heat_core.testing.keystone import KeystoneServer
from tests.functional.engine import conftest as _engine_conftest  # noqa: F401
from tests.functional.identity.harness import KeystoneCloud


@pytest.fixture(scope="module")
def cloud(
    keystone: KeystoneServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KeystoneCloud]:
    tmp = tmp_path_factory.mktemp("kscloud")
    with KeystoneCloud(keystone, tmp) as running:
        yield running


@pytest.fixture
def conn(keystone: KeystoneServer) -> Iterator[connection.Connection]:
    """openstacksdk as the Keystone admin, to check what the engine did."""
    found = connection.Connection(
        session=keystone.admin_session(), region_name="RegionOne"
    )
    yield found
    found.close()
