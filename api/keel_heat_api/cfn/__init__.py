"""The CloudFormation-compatible query API (heat-api-cfn), first cut.

Only the frame exists so far: ``/healthcheck``, request ids, the version
document, and AWS-style XML errors. Every query action answers 400
``InvalidAction`` until the actions are implemented (see api-cfn.md).
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

import webob
from oslo_config import cfg
from oslo_middleware import request_id

from keel_heat_api import opts
from keel_heat_api.fault import StartResponse, WSGIApp
from keel_heat_api.healthcheck import HealthCheck, Healthcheck
from keel_heat_api.versions import VersionNegotiation


def aws_error(
    status: int, code: str, explanation: str, detail: str = ""
) -> webob.Response:
    """Return an AWS query-API error (XML, reason phrase = the code)."""
    message = explanation + (":" + detail if detail else "")
    kind = "Server" if status >= 500 else "Sender"
    resp = webob.Response(
        status=f"{status} {code}", content_type="text/xml", charset="UTF-8"
    )
    resp.text = (
        "<ErrorResponse><Error>"
        f"<Type>{kind}</Type><Code>{escape(code)}</Code>"
        f"<Message>{escape(message)}</Message>"
        "</Error></ErrorResponse>"
    )
    return resp


def _query_app(environ: dict[str, Any], start_response: StartResponse) -> Any:
    req = webob.Request(environ)
    action = req.params.get("Action", "")
    detail = f"{action} is not implemented" if action else ""
    resp = aws_error(
        400,
        "InvalidAction",
        "The action or operation requested is invalid",
        detail,
    )
    return resp(environ, start_response)


def setup_app(
    conf: cfg.ConfigOpts, db_check: HealthCheck | None = None
) -> WSGIApp:
    """Return the CFN API WSGI application."""
    opts.register_opts(conf)
    app: WSGIApp = VersionNegotiation(_query_app)
    app = request_id.RequestId(app)
    checks = {"database": db_check} if db_check is not None else {}
    return Healthcheck(app, checks)
