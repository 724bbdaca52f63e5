"""Assemble the native Orchestration API v1 WSGI application.

Middleware, outermost first (as Heat's ``api-paste.ini`` orders it):
healthcheck, CORS, request id, fault wrapper, proxy headers, version
negotiation, authentication (keystonemiddleware's auth_token, or noauth in
embedded mode), context, then the pecan application.
"""

from __future__ import annotations

from typing import Any

import pecan
from oslo_config import cfg
from oslo_middleware import cors, http_proxy_to_wsgi, request_id

from keel_heat_api import argspecs, hooks, opts, v1
from keel_heat_api.charset import CharsetGuard
from keel_heat_api.context import ContextMiddleware, NoAuthMiddleware
from keel_heat_api.fault import FaultWrapper, WSGIApp
from keel_heat_api.healthcheck import Healthcheck
from keel_heat_api.root import RootController
from keel_heat_api.versions import VersionNegotiation
from keel_heat_core import profiling
from keel_heat_core.policies.enforcer import Enforcer
from keel_heat_core.rpc.client import EngineClient

CORS_ALLOW_HEADERS = [
    "X-Auth-Token",
    "X-Identity-Status",
    "X-Roles",
    "X-Service-Catalog",
    "X-User-Id",
    "X-Tenant-Id",
    "X-OpenStack-Request-ID",
]
CORS_EXPOSE_HEADERS = [
    "X-Auth-Token",
    "X-Subject-Token",
    "X-Service-Token",
    "X-OpenStack-Request-ID",
]
CORS_ALLOW_METHODS = ["GET", "PUT", "POST", "DELETE", "PATCH"]


def _auth(app: WSGIApp, conf: cfg.ConfigOpts) -> WSGIApp:
    if conf.api.auth_strategy == "noauth":
        return NoAuthMiddleware(
            app,
            conf.api.noauth_project_id,
            conf.api.noauth_user_id,
            list(conf.api.noauth_roles),
        )
    from keystonemiddleware import auth_token

    wrapped: WSGIApp = auth_token.AuthProtocol(
        app, {"oslo_config_config": conf}
    )
    return wrapped


def pecan_app(conf: cfg.ConfigOpts, enforcer: Any, rpc: Any) -> WSGIApp:
    """Return the bare pecan application (no middleware)."""
    argspecs.install()
    app: WSGIApp = pecan.make_app(
        RootController(v1.router()),
        hooks=[
            hooks.NoNegotiationHook(),
            hooks.ConfigHook(conf),
            hooks.ContextHook(enforcer),
            hooks.PolicyHook(enforcer),
            hooks.RPCHook(rpc),
        ],
        force_canonical=False,
        guess_content_type_from_ext=False,
        debug=False,
        logging=False,
    )
    return app


def setup_app(
    conf: cfg.ConfigOpts,
    rpc: Any = None,
    enforcer: Any = None,
) -> WSGIApp:
    """Return the native API WSGI application.

    :param conf: configuration; the API's options are registered on it.
    :param rpc: the engine client; an :class:`EngineClient` on the
        configured transport by default.
    :param enforcer: the policy enforcer; built from ``conf`` by default.
    """
    opts.register_opts(conf)
    enforcer = enforcer or Enforcer(conf)
    rpc = rpc or EngineClient(conf)
    cors.set_defaults(
        allow_headers=CORS_ALLOW_HEADERS,
        expose_headers=CORS_EXPOSE_HEADERS,
        allow_methods=CORS_ALLOW_METHODS,
    )
    app = pecan_app(conf, enforcer, rpc)
    app = ContextMiddleware(app, enforcer, conf.auth_encryption_key)
    app = _auth(app, conf)
    app = profiling.wsgi(app, conf)
    app = VersionNegotiation(app)
    app = http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    app = FaultWrapper(app, lambda: bool(conf.debug))
    app = request_id.RequestId(app)
    app = cors.CORS(app, conf)
    return CharsetGuard(Healthcheck(app, conf))
