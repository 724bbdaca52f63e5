"""Fixtures of the swift client plugin's tests.

The cloud fixture of the testing kit is imported (pytest refuses
``pytest_plugins`` below the top-level conftest); tests that use it are
marked ``cloud``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from keel_heat_client_swift.plugin import SwiftClientPlugin
from openstack import exceptions as sdk_exc

from keel_heat_core.testing.fakes import FakeContext
from keel_heat_core.testing.openstack.fixture import (  # noqa: F401
    CloudAccess,
    openstack_cloud,
    pytest_runtest_makereport,
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "openstack_cloud" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.cloud)


@pytest.fixture
def member_plugin(
    openstack_cloud: CloudAccess,  # noqa: F811
) -> SwiftClientPlugin:
    """The plugin on a context holding the member's Keystone session."""
    member = openstack_cloud.member
    context = FakeContext(
        project_id=str(member.project_id),
        user_id=member.user_id,
        region_name="RegionOne",
    )
    context.keystone_session = openstack_cloud.keystone.session(member)  # type: ignore[attr-defined]
    return SwiftClientPlugin(context)


@pytest.fixture
def container(openstack_cloud: CloudAccess) -> Iterator[str]:  # noqa: F811
    """A container name, the container deleted with its objects after."""
    name = "swp-" + uuid.uuid4().hex[:10]
    yield name
    store = openstack_cloud.conn.object_store
    try:
        objects = list(store.objects(name))
    except sdk_exc.NotFoundException:
        return
    for obj in objects:
        store.delete_object(obj, container=name)
    store.delete_container(name)
