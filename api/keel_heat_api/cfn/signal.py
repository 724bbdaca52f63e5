"""Wait-condition and signal URLs: ``/v1/waitcondition/<arn>`` and
``/v1/signal/<arn>``.

The engine writes these URLs, pre-signed with a stack user's EC2 key,
into instances (``cfn-signal``, curl, alarms); the EC2 middleware has
checked the signature by the time a request gets here. No policy rule
applies. The route shapes and their verbs (PUT for wait conditions, POST
for signals) are what signed URLs of existing stacks hold, so they never
change.
"""

from __future__ import annotations

import json
from typing import Any

import webob

from keel_heat_api.cfn import arn, aws_errors, serializers
from keel_heat_api.cfn.request import CfnRequest


def _resource(arn_text: str) -> tuple[dict[str, str], str]:
    try:
        identity = arn.from_arn(arn_text)
        return arn.stack_of(identity), arn.resource_name(identity)
    except ValueError as exc:
        # Heat lets this escape as a bare 500.
        raise aws_errors.InvalidParameterValue(str(exc)) from None


def _json_body(req: CfnRequest) -> Any:
    """Return the request's JSON body, ``None`` when there is none.

    :raises aws_errors.InvalidParameterValue: for malformed JSON.
    :raises aws_errors.RequestLimitExceeded: over ``max_json_body_size``.
    """
    body = req.req.body
    if not body.strip():
        return None
    limit = req.conf.max_json_body_size
    if len(body) > limit:
        raise aws_errors.RequestLimitExceeded(
            f"JSON body size ({len(body)} bytes) exceeds maximum allowed "
            f"size ({limit} bytes)."
        )
    try:
        return json.loads(body)
    except ValueError as exc:
        raise aws_errors.InvalidParameterValue(
            f"Malformed JSON body: {exc}"
        ) from None


def update_waitcondition(req: CfnRequest, arn_text: str) -> webob.Response:
    """``PUT /waitcondition/<arn>``: a wait-condition handle signal.

    The engine handles it synchronously and returns the handle's
    metadata. The XML answer holds only ``<resource>NAME</resource>``
    (Heat's serializer keeps the first key); JSON has both.
    """
    stack, name = _resource(arn_text)
    body = _json_body(req)
    if body is None:
        # Heat lets this escape as a bare 500.
        raise aws_errors.MissingParameter("A JSON request body is required")
    metadata = req.rpc.resource_signal(
        req.context,
        stack_identity=stack,
        resource_name=name,
        details=body,
        sync_call=True,
    )
    result = {"resource": name, "metadata": metadata}
    return serializers.response(result, req.as_json)


def signal(req: CfnRequest, arn_text: str) -> webob.Response:
    """``POST /signal/<arn>``: signal a resource (alarms, scaling).

    Answers 200 with an empty ``text/html`` body, or ``null`` as JSON.
    """
    stack, name = _resource(arn_text)
    req.rpc.resource_signal(
        req.context,
        stack_identity=stack,
        resource_name=name,
        details=_json_body(req),
    )
    if req.as_json:
        return serializers.response(None, as_json=True)
    resp = webob.Response(status=200, content_type="text/html")
    resp.charset = "UTF-8"
    return resp
