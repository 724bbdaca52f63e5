"""pytest fixtures for resource-pack authors.

Use them from a pack's ``conftest.py``::

    from keel_heat_core.testing.plugin import *  # noqa: F401,F403

or load the module as a plugin (``-p keel_heat_core.testing.plugin``).
Fixtures: ``heat_context`` (a fake request context), ``heat_stack`` (a
fake stack facade), ``engine_rpc`` (the in-memory engine that stack's
``rpc_client()`` gives), ``resource_driver`` (runs lifecycle actions like
the engine) and
``generic_resources`` (Heat's generic test types by registry name),
``fake_keystone`` (stack-domain Keystone and heat endpoint fakes) and
``heat_cloud`` (the real engine and native API in the test process, see
:mod:`keel_heat_core.testing.cloud`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from keel_heat_core.plugin_api.resource import Resource
from keel_heat_core.testing.driver import ResourceDriver
from keel_heat_core.testing.fake_clients import (
    FakeKeystoneClient,
    install_fake_clients,
)
from keel_heat_core.testing.fake_engine import FakeEngine
from keel_heat_core.testing.fakes import FakeContext, FakeStack
from keel_heat_core.testing.generic_resources import GENERIC_RESOURCES

if TYPE_CHECKING:
    from keel_heat_core.testing.cloud import InProcessCloud

#: The project of the ``heat_cloud`` fixture's APIs.
CLOUD_PROJECT = "test-project"

__all__ = [
    "engine_rpc",
    "fake_keystone",
    "generic_resources",
    "heat_cloud",
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
def engine_rpc() -> FakeEngine:
    """The in-memory engine (:mod:`keel_heat_core.testing.fake_engine`)."""
    return FakeEngine()


@pytest.fixture
def heat_stack(heat_context: FakeContext, engine_rpc: FakeEngine) -> FakeStack:
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


@pytest.fixture(scope="module")
def heat_cloud(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[InProcessCloud]:
    """The real engine and native API of this test module, on SQLite.

    Two noauth APIs serve project :data:`CLOUD_PROJECT`: ``admin`` (the
    default of the request helpers, roles admin, member and reader) and
    ``member`` (member and reader). Every installed pack is loaded.
    """
    # imported here: the engine and the API are heavy for unit tests
    from keel_heat_core.testing.cloud import InProcessCloud, NoauthAPI

    with InProcessCloud(
        tmp_path_factory.mktemp("heat_cloud"),
        apis={
            "admin": NoauthAPI(CLOUD_PROJECT, ("admin", "member", "reader")),
            "member": NoauthAPI(CLOUD_PROJECT),
        },
    ) as cloud:
        yield cloud
