"""Request context and the middlewares that build it (keystone, noauth)."""

from __future__ import annotations

from typing import Any

from keel_heat_api.fault import StartResponse, WSGIApp
from keel_heat_core.context import RequestContext, seal_token

ENV_CONTEXT = "keel_heat.context"


def context_from_environ(environ: dict[str, Any]) -> Any:
    """Build the request context from the identity headers."""
    cls = RequestContext

    def header(name: str) -> str | None:
        value = environ.get("HTTP_" + name.upper().replace("-", "_"))
        return None if value is None else str(value)

    extra: dict[str, Any] = {
        "username": header("X-Auth-User") or header("X-User-Name"),
        "password": header("X-Auth-Key"),
        "aws_creds": header("X-Auth-EC2-Creds"),
        "auth_url": header("X-Auth-Url"),
        "region_name": header("X-Region-Name"),
        "auth_token_info": environ.get("keystone.token_info"),
        "project_name": header("X-Project-Name"),
    }
    return cls.from_environ(environ, **extra)


class ContextMiddleware:
    """Put the request context on ``environ[ENV_CONTEXT]``.

    :param app: the wrapped application.
    :param enforcer: decides ``is_admin`` through ``context_is_admin``.
    """

    def __init__(
        self, app: WSGIApp, enforcer: Any, handle_secret: str | None = None
    ) -> None:
        self.app = app
        self.enforcer = enforcer
        self.handle_secret = handle_secret

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Any:
        ctx = context_from_environ(environ)
        ctx.is_admin = self.enforcer.check_is_admin(ctx)
        if (
            self.handle_secret
            and ctx.auth_token
            and hasattr(ctx, "auth_handle")
        ):
            # The token itself never crosses the bus: the engine gets it
            # sealed with a key only API and engine processes hold.
            ctx.auth_handle = seal_token(self.handle_secret, ctx.auth_token)
        if self.handle_secret and getattr(ctx, "password", None):
            # deferred_auth_method = password: stored by the engine
            ctx.auth_key_handle = seal_token(self.handle_secret, ctx.password)
        environ[ENV_CONTEXT] = ctx
        return self.app(environ, start_response)


class NoAuthMiddleware:
    """Embedded mode: every request acts in one fixed project.

    Identity headers a caller sends are replaced, never trusted.
    """

    def __init__(
        self, app: WSGIApp, project_id: str, user_id: str, roles: list[str]
    ) -> None:
        self.app = app
        self.headers = {
            "HTTP_X_IDENTITY_STATUS": "Confirmed",
            "HTTP_X_PROJECT_ID": project_id,
            "HTTP_X_TENANT_ID": project_id,
            "HTTP_X_USER_ID": user_id,
            "HTTP_X_ROLES": ",".join(roles),
            "HTTP_X_IS_ADMIN_PROJECT": "True",
        }

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Any:
        environ.update(self.headers)
        environ.pop("HTTP_X_SERVICE_CATALOG", None)
        return self.app(environ, start_response)
