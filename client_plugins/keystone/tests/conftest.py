"""Fixtures of the keystone client plugin's tests.

The real Keystone fixture is shared with the core's tests (one Keystone per
process); pytest refuses ``pytest_plugins`` below the top-level conftest,
so it is imported instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from keel_heat_client_keystone.plugin import KeystoneClientPlugin
from keystoneauth1 import session as ks_session

from keel_heat_core.testing.keystone import keystone  # noqa: F401


@dataclass
class Clients:
    """``context.clients``: one plugin instance per service name."""

    context: Any
    plugins: dict[str, Any] = field(default_factory=dict)

    def client_plugin(self, name: str) -> Any:
        assert name == "keystone"
        if name not in self.plugins:
            self.plugins[name] = KeystoneClientPlugin(self.context)
        return self.plugins[name]


@dataclass
class Context:
    """The engine's context, as far as this plugin is concerned."""

    keystone_session: ks_session.Session | None
    region_name: str | None = "RegionOne"
    clients: Clients = field(init=False)

    def __post_init__(self) -> None:
        self.clients = Clients(self)


@pytest.fixture
def make_context() -> Callable[[ks_session.Session | None], Context]:
    """Build a request context holding a Keystone session."""
    return Context
