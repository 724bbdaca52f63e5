"""Tests against the small OpenStack of the testing kit (marker
``cloud``), see :mod:`keel_heat_core.testing.openstack.fixture`."""

import pytest

from keel_heat_core.testing.openstack.fixture import (  # noqa: F401
    openstack_cloud,
    pytest_runtest_makereport,
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "openstack_cloud" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.cloud)
