"""The in-process cloud of :mod:`tests.functional.software.harness`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core.testing.fake_clients import install_fake_clients
from keel_heat_core.testing.fakes import FakeContext
from tests.functional.engine import conftest as _engine_conftest  # noqa: F401
from tests.functional.software.harness import PROJECTS, Cloud

PROJECT = PROJECTS[0]


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    with Cloud(tmp_path_factory.mktemp("soft")) as running:
        yield running


@pytest.fixture(scope="module")
def fakes(cloud: Cloud) -> Iterator[Any]:
    """Fake keystone/heat client plugins for the engine's resources."""
    context = FakeContext(project_id=PROJECT)
    keystone = install_fake_clients(context)
    context.clients.client_plugin("heat").heat_url = cloud.url(PROJECT)
    factory = cloud.endpoint()._api.deps.plugins
    factory.clients = context.clients
    try:
        yield keystone
    finally:
        factory.clients = None
