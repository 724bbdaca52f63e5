"""Fixtures of the Keystone pack's tests.

The real Keystone fixture is shared with the core's tests (one Keystone per
process); pytest refuses ``pytest_plugins`` below the top-level conftest,
so the fixtures are imported instead.

``admin_driver`` runs resources the way the engine does, in a stack whose
request context holds the Keystone admin's session and the real
``keystone`` client plugin; ``admin_conn`` is an openstacksdk connection
to check what the resources did in Keystone.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from keel_heat_client_keystone.plugin import KeystoneClientPlugin
from openstack import connection

from keel_heat_core.testing.driver import ResourceDriver
from keel_heat_core.testing.fakes import FakeContext, FakeStack
from keel_heat_core.testing.keystone import KeystoneServer, keystone  # noqa: F401
from keel_heat_core.testing.plugin import *  # noqa: F401,F403


@pytest.fixture
def admin_context(keystone: KeystoneServer) -> FakeContext:  # noqa: F811
    """The admin's request context with the real keystone client plugin."""
    context = FakeContext(
        project_id=keystone.admin.project_id or "admin",
        user_id="admin",
        roles=("admin", "member", "reader"),
        region_name="RegionOne",
    )
    context.keystone_session = keystone.admin_session()  # type: ignore[attr-defined]
    context.clients.register("keystone", KeystoneClientPlugin(context))
    return context


@pytest.fixture
def admin_driver(admin_context: FakeContext) -> ResourceDriver:
    """A resource driver over a stack named after the test."""
    stack = FakeStack(
        name="ksp-" + uuid.uuid4().hex[:8], context=admin_context
    )
    return ResourceDriver(stack)


@pytest.fixture
def admin_conn(
    keystone: KeystoneServer,  # noqa: F811
) -> Iterator[connection.Connection]:
    """openstacksdk as the admin, to look at Keystone directly."""
    conn = connection.Connection(
        session=keystone.admin_session(), region_name="RegionOne"
    )
    yield conn
    conn.close()


@pytest.fixture
def unique() -> str:
    """A short unique text for names."""
    return "ksp-" + uuid.uuid4().hex[:10]
