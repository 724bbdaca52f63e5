"""Tenant and policy checks shared by every controller."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import webob.exc

from keel_heat_api import errors
from keel_heat_api.request import ApiRequest
from keel_heat_core.policies.enforcer import PolicyDenied

Handler = Callable[..., Any]


def check_tenant(req: ApiRequest, tenant_id: str) -> str:
    """Return the project the request acts in, checking the path's one.

    Admins may name any tenant (the caller's project is used); others
    must name their own.

    :raises errors.HTTPForbidden: for a foreign tenant.
    """
    ctx = req.context
    if ctx.is_admin and ctx.project_id:
        return str(ctx.project_id)
    if ctx.project_id != tenant_id:
        raise errors.HTTPForbidden()
    return tenant_id


def enforce(req: ApiRequest, rule: str, project_id: str) -> None:
    """Enforce a registered rule on the project.

    :raises errors.Forbidden: naming the rule.
    """
    try:
        req.enforcer.enforce(req.context, rule, {"project_id": project_id})
    except PolicyDenied as denied:
        raise errors.Forbidden(denied.action) from None


def policy(rule: str) -> Callable[[Handler], Handler]:
    """Check the tenant then ``rule``; the handler gets no tenant_id."""

    def decorator(handler: Handler) -> Handler:
        @functools.wraps(handler)
        def wrapped(req: ApiRequest, tenant_id: str, **kwargs: Any) -> Any:
            project = check_tenant(req, tenant_id)
            enforce(req, rule, project)
            return handler(req, **kwargs)

        return wrapped

    return decorator


def stack_identity(
    req: ApiRequest, stack_name: str, stack_id: str, path: str = ""
) -> dict[str, str]:
    """Return the identity of a stack in the caller's project."""
    return {
        "tenant": str(req.context.project_id),
        "stack_name": stack_name,
        "stack_id": stack_id,
        "path": path,
    }


def stack_policy(rule: str) -> Callable[[Handler], Handler]:
    """Like :func:`policy`; the handler gets the stack identity."""

    def decorator(handler: Handler) -> Handler:
        @functools.wraps(handler)
        def wrapped(
            req: ApiRequest,
            tenant_id: str,
            stack_name: str,
            stack_id: str,
            **kwargs: Any,
        ) -> Any:
            project = check_tenant(req, tenant_id)
            enforce(req, rule, project)
            identity = stack_identity(req, stack_name, stack_id)
            return handler(req, identity, **kwargs)

        return wrapped

    return decorator


def accepted() -> webob.exc.HTTPAccepted:
    """Return a 202 (WebOb's body chosen by ``Accept``)."""
    return webob.exc.HTTPAccepted()


def no_content() -> webob.exc.HTTPNoContent:
    """Return a 204 with no body."""
    return webob.exc.HTTPNoContent()
