"""The request as CFN actions see it, and the helpers they share."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import webob
from oslo_config import cfg

from keel_heat_api.cfn import arn, aws_errors, serializers


@dataclass
class CfnRequest:
    """One query-API request with what answers it.

    :ivar req: the WebOb request.
    :ivar context: the request context.
    :ivar conf: the configuration.
    :ivar enforcer: the policy enforcer.
    :ivar rpc: the engine client.
    :ivar fetch: ``fetch(url) -> bytes`` for ``TemplateUrl``.
    """

    req: webob.Request
    context: Any
    conf: cfg.ConfigOpts
    enforcer: Any
    rpc: Any
    fetch: Callable[[str], bytes]

    @functools.cached_property
    def params(self) -> Mapping[str, str]:
        """Query-string and form parameters, chosen as WebOb does."""
        params = self.req.params
        return {key: params[key] for key in params}

    @property
    def as_json(self) -> bool:
        """Whether the answer is JSON (``ContentType=JSON``)."""
        return serializers.wants_json(self.params)

    def require(self, name: str) -> str:
        """Return a mandatory parameter.

        :raises aws_errors.MissingParameter: naming it (Heat answers a
            500 here).
        """
        value = self.params.get(name)
        if value is None:
            raise aws_errors.MissingParameter(name)
        return value

    def identity(self, stack_name: str) -> dict[str, str]:
        """Return a stack identity from an ARN, or through the engine.

        :param stack_name: a stack ARN, name or id.
        """
        try:
            return arn.from_arn(stack_name)
        except ValueError:
            return dict(self.rpc.identify_stack(self.context, stack_name))


Action = Callable[[CfnRequest], Any]


def reformat(keymap: Mapping[str, str], values: Mapping[str, Any]) -> Any:
    """Rename the engine's keys, in ``keymap`` order, skipping absent ones.

    :returns: a new dictionary.
    """
    return {new: values[old] for old, new in keymap.items() if old in values}


def status(values: Mapping[str, Any], prefix: str) -> str:
    """Return ``<ACTION>_<STATUS>`` from ``<prefix>_action/_status``."""
    return f"{values[prefix + '_action']}_{values[prefix + '_status']}"
