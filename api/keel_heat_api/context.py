"""Request context and the middleware that builds it.

``keel_heat_core.context.RequestContext`` is used when it exists; until
it lands a minimal subclass of oslo.context's context, carrying Heat's
extra fields, stands in.
"""

from __future__ import annotations

import importlib
from typing import Any

from oslo_context import context as oslo_context

from keel_heat_api.fault import StartResponse, WSGIApp

ENV_CONTEXT = "keel_heat.context"


class ApiRequestContext(oslo_context.RequestContext):
    """oslo.context's context plus the fields Heat puts on the bus."""

    FROM_DICT_EXTRA_KEYS = [
        "username",
        "password",
        "aws_creds",
        "auth_url",
        "region_name",
        "trust_id",
        "trustor_user_id",
        "auth_token_info",
        "project_name",
    ]

    def __init__(
        self,
        username: str | None = None,
        password: str | None = None,
        aws_creds: str | None = None,
        auth_url: str | None = None,
        region_name: str | None = None,
        trust_id: str | None = None,
        trustor_user_id: str | None = None,
        auth_token_info: dict[str, Any] | None = None,
        project_name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.username = username
        self.password = password
        self.aws_creds = aws_creds
        self.auth_url = auth_url
        self.region_name = region_name
        self.trust_id = trust_id
        self.trustor_user_id = trustor_user_id
        self.auth_token_info = auth_token_info
        self.project_name = project_name

    def to_dict(self) -> dict[str, Any]:
        values: dict[str, Any] = super().to_dict()
        for key in self.FROM_DICT_EXTRA_KEYS:
            values[key] = getattr(self, key)
        return values


def _context_class() -> type[Any]:
    try:
        core_context = importlib.import_module("keel_heat_core.context")
    except ImportError:
        return ApiRequestContext
    cls: type[Any] = getattr(core_context, "RequestContext", ApiRequestContext)
    return cls


def context_from_environ(environ: dict[str, Any]) -> Any:
    """Build the request context from the identity headers."""
    cls = _context_class()

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
            core_context = importlib.import_module("keel_heat_core.context")
            ctx.auth_handle = core_context.seal_token(
                self.handle_secret, ctx.auth_token
            )
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
