"""Wire the API app to the fake engine over oslo.messaging's ``fake://``."""

from __future__ import annotations

from typing import Any

from oslo_config import cfg

from keel_heat_api import app as api_app
from keel_heat_api import opts
from keel_heat_core.rpc.client import ALLOWED_EXMODS, EngineClient
from keel_heat_core.rpc.engine_base import messaging
from keel_heat_core.testing.fake_engine import serve


class Harness:
    """An API app, an engine client and a running fake engine server.

    :param auth_strategy: ``noauth`` (default) or ``keystone``.
    :param overrides: ``{(group, name): value}`` configuration overrides.
    """

    def __init__(
        self,
        auth_strategy: str = "noauth",
        overrides: dict[tuple[str | None, str], Any] | None = None,
    ) -> None:
        self.conf = cfg.ConfigOpts()
        opts.register_opts(self.conf)
        self.conf([], project="keel-heat-test")
        self.conf.set_override("auth_strategy", auth_strategy, group="api")
        for (group, name), value in (overrides or {}).items():
            self.conf.set_override(name, value, group=group)
        # Each fake:// transport has its own exchanges: harnesses never meet.
        self.transport = messaging.get_rpc_transport(
            self.conf, url="fake:/", allowed_remote_exmods=ALLOWED_EXMODS
        )
        self.engine, self.server = serve(self.transport)
        self.rpc = EngineClient(self.conf, transport=self.transport)
        self.app = api_app.setup_app(self.conf, rpc=self.rpc)

    def stop(self) -> None:
        """Stop the fake engine server."""
        self.server.stop()
        self.server.wait()
        self.transport.cleanup()
