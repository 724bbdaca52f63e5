"""Version discovery and negotiation (``/``, ``/versions``, ``/v1``)."""

from __future__ import annotations

import json
import re
from typing import Any

import webob

from keel_heat_api.fault import StartResponse, WSGIApp

_VERSION_SEGMENT = re.compile(r"^v(\d+)(?:\.(\d+))?$")
_ACCEPT = re.compile(r"^application/vnd\.openstack\.orchestration-v(\d+)")


def version_document(request: webob.Request) -> dict[str, Any]:
    """Return the versions document for the request's host."""
    href = request.application_url.rstrip("/") + "/v1/"
    return {
        "versions": [
            {
                "id": "v1.0",
                "status": "CURRENT",
                "links": [{"rel": "self", "href": href}],
            }
        ]
    }


def versions_response(request: webob.Request) -> webob.Response:
    """Return the 300 Multiple Choices answer with the version document."""
    resp = webob.Response(
        status=300, content_type="application/json", charset="UTF-8"
    )
    resp.text = json.dumps(version_document(request))
    return resp


class VersionNegotiation:
    """Route ``/v1`` (or ``v1.0``) requests to the API, answer the rest.

    The version segment moves to ``SCRIPT_NAME``. Without one, an
    ``Accept: application/vnd.openstack.orchestration-v1`` header routes
    the path as it is.
    """

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Any:
        req = webob.Request(environ)
        try:
            path = req.path_info
        except UnicodeDecodeError:
            resp: webob.Response = webob.exc.HTTPBadRequest()
            return resp(environ, start_response)
        first = path.lstrip("/").split("/", 1)[0]
        if first in ("", "versions"):
            return versions_response(req)(environ, start_response)
        match = _VERSION_SEGMENT.match(first)
        if match:
            if match.group(1) == "1" and match.group(2) in (None, "0"):
                req.path_info_pop()
                return self.app(environ, start_response)
            return versions_response(req)(environ, start_response)
        accept = _ACCEPT.match(req.headers.get("Accept", ""))
        if accept:
            if accept.group(1) == "1":
                return self.app(environ, start_response)
            return versions_response(req)(environ, start_response)
        return webob.exc.HTTPNotFound()(environ, start_response)
