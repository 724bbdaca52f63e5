"""Pecan hooks putting context, conf, policy and RPC on the request."""

from __future__ import annotations

from typing import Any

from oslo_config import cfg
from pecan import hooks

from keel_heat_api.context import ENV_CONTEXT, context_from_environ


class NoNegotiationHook(hooks.PecanHook):  # type: ignore[misc]
    """Skip pecan's Accept negotiation: handlers choose their bodies."""

    def on_route(self, state: Any) -> None:
        state.request.pecan["content_type"] = "application/json"


class ContextHook(hooks.PecanHook):  # type: ignore[misc]
    """Expose the context the context middleware built."""

    def __init__(self, enforcer: Any) -> None:
        self.enforcer = enforcer

    def before(self, state: Any) -> None:
        ctx = state.request.environ.get(ENV_CONTEXT)
        if ctx is None:
            ctx = context_from_environ(state.request.environ)
            ctx.is_admin = self.enforcer.check_is_admin(ctx)
        state.request.context = ctx


class ConfigHook(hooks.PecanHook):  # type: ignore[misc]
    """Expose the configuration."""

    def __init__(self, conf: cfg.ConfigOpts) -> None:
        self.conf = conf

    def before(self, state: Any) -> None:
        state.request.conf = self.conf


class PolicyHook(hooks.PecanHook):  # type: ignore[misc]
    """Expose the policy enforcer."""

    def __init__(self, enforcer: Any) -> None:
        self.enforcer = enforcer

    def before(self, state: Any) -> None:
        state.request.enforcer = self.enforcer


class RPCHook(hooks.PecanHook):  # type: ignore[misc]
    """Expose the engine client."""

    def __init__(self, rpc: Any) -> None:
        self.rpc = rpc

    def before(self, state: Any) -> None:
        state.request.rpc = self.rpc
