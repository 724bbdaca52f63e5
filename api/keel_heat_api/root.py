"""The pecan root controller: hands every path to the route table."""

from __future__ import annotations

import json
from typing import Any

import pecan
import webob
import webob.exc

from keel_heat_api.errors import HTTPMethodNotAllowed
from keel_heat_api.request import ApiRequest
from keel_heat_api.routing import Router


def _default(value: Any) -> Any:
    isoformat = getattr(value, "isoformat", None)
    if isoformat is not None:
        return isoformat()
    return str(value)


def json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> webob.Response:
    """Return ``body`` as JSON (key order kept, datetimes ISO)."""
    resp = webob.Response(
        status=status, content_type="application/json", charset="UTF-8"
    )
    resp.text = json.dumps(body, default=_default)
    for key, value in (headers or {}).items():
        resp.headers[key] = value
    return resp


class RootController:
    """Dispatch through :class:`Router`; handlers return data or a
    response."""

    def __init__(self, router: Router) -> None:
        self.router = router

    @pecan.expose()  # type: ignore[untyped-decorator]
    def _route(self, args: list[str], request: Any) -> tuple[Any, list[str]]:
        return self.dispatch, []

    @pecan.expose(content_type="application/json")  # type: ignore[untyped-decorator]
    def dispatch(self) -> webob.Response:
        """Serve the current request."""
        req = pecan.request
        found = self.router.match(req.method, req.path_info)
        if found is None:
            return webob.exc.HTTPNotFound()
        route, params = found
        if route is None:
            assert isinstance(params, list)
            if req.method == "OPTIONS":
                resp = webob.Response(status=204)
                resp.headers["Allow"] = ",".join(params)
                return resp
            raise HTTPMethodNotAllowed(params)
        assert isinstance(params, dict)
        api_req = ApiRequest(req, req.context, req.conf, req.enforcer, req.rpc)
        result = route.handler(api_req, **params)
        if isinstance(result, webob.Response):
            return result
        return json_response(result)
