"""The CFN application behind the middleware: dispatch and errors.

Query-API requests go to ``/`` (``/v1/`` outside) with the action named
by the exact value of the ``Action`` parameter, whatever the HTTP method.
``POST /stacks`` is CreateStack (a leftover of Heat's REST-style routes);
other ``/stacks`` paths are an invalid action. ``PUT /waitcondition/<arn>``
and ``POST /signal/<arn>`` are the signed-URL routes.

Every error becomes an AWS error answer: policy denials, bad parameters,
engine errors (mapped by class name) and anything unexpected (an
internal failure), in JSON when the request asked for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import webob
import webob.exc

from keel_heat_api.cfn import aws_errors, resources, serializers, signal
from keel_heat_api.cfn import stacks as cfn_stacks
from keel_heat_api.cfn.request import Action, CfnRequest
from keel_heat_api.context import ENV_CONTEXT
from keel_heat_api.fault import StartResponse
from keel_heat_core.policies.enforcer import PolicyDenied

LOG = logging.getLogger(__name__)

#: Action name -> handler; each is guarded by ``cloudformation:<name>``.
ACTIONS: dict[str, Action] = {
    "ListStacks": cfn_stacks.list_stacks,
    "CreateStack": cfn_stacks.create_stack,
    "DescribeStacks": cfn_stacks.describe_stacks,
    "DeleteStack": cfn_stacks.delete_stack,
    "UpdateStack": cfn_stacks.update_stack,
    "CancelUpdateStack": cfn_stacks.cancel_update_stack,
    "DescribeStackEvents": resources.describe_stack_events,
    "ValidateTemplate": cfn_stacks.validate_template,
    "GetTemplate": cfn_stacks.get_template,
    "EstimateTemplateCost": cfn_stacks.estimate_template_cost,
    "DescribeStackResource": resources.describe_stack_resource,
    "DescribeStackResources": resources.describe_stack_resources,
    "ListStackResources": resources.list_stack_resources,
}

_SIGNAL_ROUTES: dict[str, tuple[str, Callable[..., webob.Response]]] = {
    "waitcondition": ("PUT", signal.update_waitcondition),
    "signal": ("POST", signal.signal),
}


def enforce(req: CfnRequest, action: str) -> None:
    """Check ``cloudformation:<action>`` for the caller's project.

    Heat checks with an empty target, so every default rule naming
    ``project_id`` fails and every action is denied; the caller's
    project is the target here, as in the native API.

    :raises aws_errors.AccessDenied: when the rule refuses.
    :raises aws_errors.InternalFailure: when the check itself fails.
    """
    target = {"project_id": req.context.project_id}
    try:
        req.enforcer.enforce(req.context, "cloudformation:" + action, target)
    except PolicyDenied:
        raise aws_errors.AccessDenied(
            f"Action {action} not allowed for user"
        ) from None
    except Exception:  # noqa: BLE001 - Heat's answer to any failure
        LOG.exception("Policy check of %s failed", action)
        raise aws_errors.InternalFailure(
            f"Error authorizing action {action}"
        ) from None


def run_action(req: CfnRequest, action: str) -> webob.Response:
    """Enforce the policy, run the action and serialise its result."""
    handler = ACTIONS.get(action)
    if handler is None:
        raise aws_errors.InvalidAction()
    enforce(req, action)
    result = handler(req)
    return serializers.response(
        serializers.format_result(action, result), req.as_json
    )


class CfnApplication:
    """The WSGI application of the CFN API (inside the middleware).

    :param conf: the configuration.
    :param enforcer: the policy enforcer.
    :param rpc: the engine client.
    :param fetch: ``fetch(url) -> bytes`` for ``TemplateUrl``.
    """

    def __init__(
        self,
        conf: Any,
        enforcer: Any,
        rpc: Any,
        fetch: Callable[[str], bytes],
    ) -> None:
        self.conf = conf
        self.enforcer = enforcer
        self.rpc = rpc
        self.fetch = fetch

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Any:
        webreq = webob.Request(environ)
        req = CfnRequest(
            req=webreq,
            context=environ.get(ENV_CONTEXT),
            conf=self.conf,
            enforcer=self.enforcer,
            rpc=self.rpc,
            fetch=self.fetch,
        )
        try:
            resp = self.dispatch(req)
        except aws_errors.AwsError as err:
            resp = serializers.error_response(err, req.as_json)
        except Exception as exc:  # noqa: BLE001 - Heat maps every error
            mapped = aws_errors.map_remote_error(exc)
            if mapped.status >= 500:
                LOG.error("CFN request failed", exc_info=exc)
            resp = serializers.error_response(mapped, req.as_json)
        return resp(environ, start_response)

    def dispatch(self, req: CfnRequest) -> webob.Response:
        """Route the request; raise what goes wrong."""
        path = req.req.path_info.strip("/")
        first, _, rest = path.partition("/")
        method = req.req.method
        if first in _SIGNAL_ROUTES:
            verb, handler = _SIGNAL_ROUTES[first]
            if method != verb or not rest:
                return webob.exc.HTTPNotFound()
            return handler(req, rest)
        if first == "":
            return run_action(req, req.params.get("Action", ""))
        if first == "stacks":
            if method == "POST" and not rest:
                return run_action(req, "CreateStack")
            raise aws_errors.InvalidAction()
        return webob.exc.HTTPNotFound()
