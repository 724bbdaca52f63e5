"""The CFN app wired to the fake engine over oslo.messaging ``fake://``.

Used by the unit tests (noauth mode, or the EC2 middleware with a fake
Keystone session) and by the functional tests (real Keystone).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import oslo_messaging as messaging
import webob
from oslo_config import cfg

from keel_heat_api import cfn
from keel_heat_core.rpc.client import ALLOWED_EXMODS, EngineClient
from keel_heat_core.testing.fake_engine import serve

PROJECT = "tenant-1"
#: the time of every engine write
TIME = "2026-01-02T03:04:05Z"


class CfnHarness:
    """A CFN app, an engine client and a running fake engine.

    :param overrides: ``{(group, name): value}`` configuration overrides
        (``api.auth_strategy`` is ``noauth`` unless overridden).
    :param ec2_session: the session of the EC2 middleware's calls.
    :param enforcer: a policy enforcer instead of the configured one.
    :param config_files: configuration files to read.
    """

    def __init__(
        self,
        overrides: dict[tuple[str | None, str], Any] | None = None,
        ec2_session: Any = None,
        enforcer: Any = None,
        config_files: list[str] | None = None,
    ) -> None:
        self.config_files = list(config_files or [])
        self.conf = cfg.ConfigOpts()
        cfn.register_opts(self.conf)
        self._parse()
        self.settings: dict[tuple[str | None, str], Any] = {
            ("api", "auth_strategy"): "noauth",
            ("api", "noauth_project_id"): PROJECT,
        }
        self.settings.update(overrides or {})
        self._apply_settings()
        # Each fake:// transport has its own exchanges.
        self.transport = messaging.get_rpc_transport(
            self.conf, url="fake:/", allowed_remote_exmods=ALLOWED_EXMODS
        )
        self.engine, self.server = serve(self.transport)
        # the times the expected answers show
        self.engine.clock = lambda: TIME
        self.rpc = EngineClient(self.conf, transport=self.transport)
        self._fetch: Callable[[str], bytes] = self._no_fetch
        self.app = cfn.setup_app(
            self.conf,
            rpc=self.rpc,
            ec2_session=ec2_session,
            enforcer=enforcer,
            fetch=lambda url: self._fetch(url),
        )

    def _parse(self) -> None:
        self.conf(
            [],
            project="keel-heat-test",
            default_config_files=self.config_files,
        )

    def _apply_settings(self) -> None:
        for (group, name), value in self.settings.items():
            self.conf.set_override(name, value, group=group)

    def reset(self) -> None:
        """Forget stacks, calls, fetcher and later overrides (next test)."""
        self.engine.reset()
        self._fetch = self._no_fetch
        self.conf.reset()
        self._parse()
        self._apply_settings()

    @staticmethod
    def _no_fetch(url: str) -> bytes:
        raise AssertionError(f"unexpected fetch of {url}")

    def app_fetch(self, fetch: Callable[[str], bytes]) -> None:
        """Answer ``TemplateUrl`` fetches with ``fetch``."""
        self._fetch = fetch

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
