"""pytest fixtures for resource-pack authors.

Use them from a pack's ``conftest.py``::

    from keel_heat_core.testing.plugin import *  # noqa: F401,F403

or load the module as a plugin (``-p keel_heat_core.testing.plugin``).
Fixtures: ``heat_context`` (a fake request context), ``heat_stack`` (a
fake stack facade), ``engine_rpc`` (the in-memory engine RPC client of that
stack), ``resource_driver`` (runs lifecycle actions like the engine) and
``generic_resources`` (Heat's generic test types by registry name) and
``fake_keystone`` (stack-domain Keystone and heat endpoint fakes).
"""

from __future__ import annotations

import pytest

from keel_heat_core.plugin_api.resource import Resource
from keel_heat_core.testing.driver import ResourceDriver
from keel_heat_core.testing.fake_clients import (
    FakeKeystoneClient,
    install_fake_clients,
)
from keel_heat_core.testing.fake_rpc import FakeEngineRPC
from keel_heat_core.testing.fakes import FakeContext, FakeStack
from keel_heat_core.testing.generic_resources import GENERIC_RESOURCES

__all__ = [
    "engine_rpc",
    "fake_keystone",
    "generic_resources",
    "heat_context",
    "heat_stack",
    "resource_driver",
]


@pytest.fixture
def heat_context() -> FakeContext:
    """A member's request context with every service in the catalog."""
    return FakeContext()


@pytest.fixture
def fake_keystone(heat_context: FakeContext) -> FakeKeystoneClient:
    """Fake ``keystone`` and ``heat`` client plugins on the context."""
    return install_fake_clients(heat_context)


@pytest.fixture
def engine_rpc() -> FakeEngineRPC:
    """The in-memory engine RPC client."""
    return FakeEngineRPC()


@pytest.fixture
def heat_stack(
    heat_context: FakeContext, engine_rpc: FakeEngineRPC
) -> FakeStack:
    """A stack facade named ``test_stack``."""
    return FakeStack(context=heat_context, rpc=engine_rpc)


@pytest.fixture
def resource_driver(heat_stack: FakeStack) -> ResourceDriver:
    """Creates resources in ``heat_stack`` and runs their actions."""
    return ResourceDriver(heat_stack)


@pytest.fixture
def generic_resources() -> dict[str, type[Resource]]:
    """Heat's generic test resource classes by registry name."""
    return dict(GENERIC_RESOURCES)
