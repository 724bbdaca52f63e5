"""The CFN app wired to :class:`FakeEngine` over oslo.messaging ``fake://``.

Used by the unit tests (noauth mode, or the EC2 middleware with a fake
Keystone session) and by the functional tests (real Keystone).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import oslo_messaging as messaging
import webob
from oslo_config import cfg
from oslo_service import backend as service_backend

from keel_heat_api import cfn
from keel_heat_core.rpc.client import ALLOWED_EXMODS, EngineClient
from tests.unit.api_cfn.fake_engine import FakeEngine

PROJECT = "tenant-1"

# No eventlet: oslo.messaging's threading executor on oslo.service's
# threading backend, as the services run.
if service_backend.get_backend_type() is None:
    service_backend.register_backend_default_hook(
        lambda: service_backend.BackendType.THREADING
    )


class CfnHarness:
    """A CFN app, an engine client and a running fake engine.

    :param overrides: ``{(group, name): value}`` configuration overrides
        (``api.auth_strategy`` is ``noauth`` unless overridden).
    :param ec2_session: the session of the EC2 middleware's calls.
    """

    def __init__(
        self,
        overrides: dict[tuple[str | None, str], Any] | None = None,
        ec2_session: Any = None,
    ) -> None:
        self.conf = cfg.ConfigOpts()
        cfn.register_opts(self.conf)
        self.conf([], project="keel-heat-test", default_config_files=[])
        settings: dict[tuple[str | None, str], Any] = {
            ("api", "auth_strategy"): "noauth",
            ("api", "noauth_project_id"): PROJECT,
        }
        settings.update(overrides or {})
        for (group, name), value in settings.items():
            self.conf.set_override(name, value, group=group)
        # Each fake:// transport has its own exchanges.
        self.transport = messaging.get_rpc_transport(
            self.conf, url="fake:/", allowed_remote_exmods=ALLOWED_EXMODS
        )
        self.engine = FakeEngine()
        self.server = messaging.get_rpc_server(
            self.transport,
            messaging.Target(topic="engine", server="fake-engine"),
            [self.engine],
            executor="threading",
        )
        self.server.start()
        self.rpc = EngineClient(self.conf, transport=self.transport)
        self.app = cfn.setup_app(
            self.conf, rpc=self.rpc, ec2_session=ec2_session
        )

    def request(
        self,
        params: dict[str, str] | None = None,
        method: str = "GET",
        path: str = "/v1/",
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> webob.Response:
        """Send a request; query parameters go in the URL (or form)."""
        query = urlencode(params or {})
        if method == "POST" and body is None and params is not None:
            req = webob.Request.blank(path, method="POST")
            req.content_type = "application/x-www-form-urlencoded"
            req.body = query.encode()
        else:
            req = webob.Request.blank(
                path + ("?" + query if query else ""), method=method
            )
            if body is not None:
                req.body = body
        for key, value in (headers or {}).items():
            req.headers[key] = value
        resp: webob.Response = req.get_response(self.app)
        return resp

    def action(self, action: str, **params: str) -> webob.Response:
        """Run a query-API action with ``Action`` and ``params``."""
        return self.request({"Action": action, **params})

    def stop(self) -> None:
        """Stop the fake engine server."""
        self.server.stop()
        self.server.wait()
        self.transport.cleanup()
