"""The CloudFormation-compatible query API (port 8000).

Middleware, outermost first (Heat's ``heat-api-cfn`` pipeline):
healthcheck, CORS, request id, proxy headers, version negotiation, the
EC2 signature check, keystonemiddleware's auth_token (validating the
token the signature check obtained), context, then the CFN application
(:mod:`.router`). In the embedded noauth mode the EC2 and token
middleware are replaced by the fixed-project one of the native API.

There is no fault middleware: the application answers every error in
the AWS error format itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from oslo_config import cfg
from oslo_middleware import cors, http_proxy_to_wsgi, request_id

from keel_heat_api import app as native_app
from keel_heat_api import opts, template_fetch
from keel_heat_api.cfn.ec2auth import Ec2TokenMiddleware
from keel_heat_api.cfn.router import CfnApplication
from keel_heat_api.charset import CharsetGuard
from keel_heat_api.context import ContextMiddleware, NoAuthMiddleware
from keel_heat_api.fault import WSGIApp
from keel_heat_api.healthcheck import Healthcheck
from keel_heat_api.versions import VersionNegotiation
from keel_heat_core import profiling
from keel_heat_core.conf import identity as identity_conf
from keel_heat_core.policies.enforcer import Enforcer
from keel_heat_core.rpc.client import EngineClient

__all__ = ["register_opts", "setup_app"]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the options the CFN API reads (harmless twice)."""
    opts.register_opts(conf)
    identity_conf.register_opts(conf)


def template_fetcher(conf: cfg.ConfigOpts) -> Callable[[str], bytes]:
    """Return ``fetch(url) -> bytes`` for ``TemplateUrl``.

    The native API's guarded fetch (allowed hosts, size and time limits)
    serves both APIs; Heat's CFN API fetches any URL.
    """
    return functools.partial(template_fetch.fetch, conf)


def _auth(app: WSGIApp, conf: cfg.ConfigOpts, ec2_session: Any) -> WSGIApp:
    if conf.api.auth_strategy == "noauth":
        return NoAuthMiddleware(
            app,
            conf.api.noauth_project_id,
            conf.api.noauth_user_id,
            list(conf.api.noauth_roles),
        )
    from keystonemiddleware import auth_token

    app = auth_token.AuthProtocol(app, {"oslo_config_config": conf})
    return Ec2TokenMiddleware(app, conf, ec2_session)


def setup_app(
    conf: cfg.ConfigOpts,
    rpc: Any = None,
    enforcer: Any = None,
    ec2_session: Any = None,
    fetch: Callable[[str], bytes] | None = None,
) -> WSGIApp:
    """Return the CFN API WSGI application.

    :param conf: configuration; the API's options are registered on it.
    :param rpc: the engine client; an :class:`EngineClient` on the
        configured transport by default.
    :param enforcer: the policy enforcer; built from ``conf`` by default.
    :param ec2_session: the keystoneauth session of the ``ec2tokens``
        calls; loaded from ``[ec2authtoken]`` by default.
    :param fetch: ``fetch(url) -> bytes`` for ``TemplateUrl``; the
        native API's guarded fetch by default.
    """
    register_opts(conf)
    enforcer = enforcer or Enforcer(conf)
    rpc = rpc or EngineClient(conf)
    cors.set_defaults(
        allow_headers=native_app.CORS_ALLOW_HEADERS,
        expose_headers=native_app.CORS_EXPOSE_HEADERS,
        allow_methods=native_app.CORS_ALLOW_METHODS,
    )
    app: WSGIApp = CfnApplication(
        conf, enforcer, rpc, fetch or template_fetcher(conf)
    )
    app = ContextMiddleware(app, enforcer, conf.auth_encryption_key)
    app = _auth(app, conf, ec2_session)
    app = profiling.wsgi(app, conf)
    app = VersionNegotiation(app)
    app = http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    app = request_id.RequestId(app)
    app = cors.CORS(app, conf)
    return CharsetGuard(Healthcheck(app, conf))
