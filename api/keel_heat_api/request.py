"""The request as controllers see it: context, services, body, URLs."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import webob
from oslo_config import cfg

from keel_heat_api.errors import HTTPBadRequest, RequestLimitExceeded
from keel_heat_core import nesting

_JSON_TYPES = ("application/json", "JSON", "")


class ApiRequest:
    """A request with what the pecan hooks put on it.

    :ivar req: the WebOb request.
    :ivar context: the request context.
    :ivar conf: the configuration.
    :ivar enforcer: the policy enforcer.
    :ivar rpc: the engine client.
    """

    def __init__(
        self,
        req: webob.Request,
        context: Any,
        conf: cfg.ConfigOpts,
        enforcer: Any,
        rpc: Any,
    ) -> None:
        self.req = req
        self.context = context
        self.conf = conf
        self.enforcer = enforcer
        self.rpc = rpc
        self._body: Any = None
        self._body_parsed = False
        # URLs are built for every item of a list (an event page links
        # each event thrice); their stack part is the same for most
        self._application_url: str | None = None
        self._stack_urls: dict[tuple[str, str, str], str] = {}

    @property
    def query(self) -> Any:
        """The query-string parameters (a WebOb MultiDict)."""
        return self.req.GET

    @property
    def application_url(self) -> str:
        """Scheme, host and script name (ending in ``/v1``)."""
        if self._application_url is None:
            self._application_url = str(self.req.application_url)
        return self._application_url

    def tenant_url(self, tenant: str) -> str:
        """Return the URL of a tenant's API root."""
        return self.application_url + "/" + quote(tenant, safe="")

    def identity_url(self, identity: dict[str, Any]) -> str:
        """Return the URL of a stack (or resource/event) identity."""
        key = (
            identity["tenant"],
            identity["stack_name"],
            identity["stack_id"],
        )
        stack_url = self._stack_urls.get(key)
        if stack_url is None:
            stack_url = self._stack_urls[key] = (
                self.tenant_url(key[0])
                + "/stacks/"
                + quote(key[1], safe="")
                + "/"
                + quote(key[2], safe="")
            )
        path = identity.get("path")
        return stack_url + quote(path) if path else stack_url

    def _body_is_json(self) -> bool:
        ctype = self.req.content_type or ""
        if ctype not in _JSON_TYPES and not ctype.startswith("text/plain"):
            return False
        return bool(self.req.content_length) and self.req.body[:1] == b"{"

    def body(self) -> Any:
        """Return the JSON object body, or ``None`` when there is none.

        :raises RequestLimitExceeded: over ``max_json_body_size``.
        :raises HTTPBadRequest: for malformed JSON.
        """
        if self._body_parsed:
            return self._body
        limit = self.conf.max_json_body_size
        length = self.req.content_length
        if length is None and self.req.method in ("POST", "PUT", "PATCH"):
            data = self._body_without_length(limit)
            length = len(data)
            if length <= limit:
                self.req.body = data
        length = length or 0
        if length > limit:
            raise RequestLimitExceeded(
                f"JSON body size ({length} bytes) exceeds maximum allowed "
                f"size ({limit} bytes)."
            )
        if self._body_is_json():
            try:
                self._body = json.loads(self.req.body)
            except RecursionError:
                raise HTTPBadRequest(
                    str(nesting.too_deep("The JSON body"))
                ) from None
            except ValueError as err:
                raise HTTPBadRequest(str(err)) from None
            try:
                # a template or environment given inline sits one level
                # below the body
                nesting.check(
                    self._body, "The JSON body", nesting.MAX_DEPTH + 1
                )
            except nesting.TooDeep as err:
                raise HTTPBadRequest(str(err)) from None
        self._body_parsed = True
        return self._body

    def _body_without_length(self, limit: int) -> bytes:
        """A body sent without Content-Length, read to at most one byte
        past ``limit``.

        Only a server that decodes chunked bodies and marks the input
        terminated (``wsgi.input_terminated``: gunicorn, uwsgi) can give
        one; elsewhere (the embedded server) reading would wait for the
        client to close the connection, so a chunked body is refused and
        a request with neither header has no body, as HTTP/1.1 says.

        :raises HTTPBadRequest: for a chunked body the server cannot
            decode.
        """
        environ = self.req.environ
        if environ.get("wsgi.input_terminated"):
            data: bytes = self.req.body_file_raw.read(limit + 1)
            return data
        coding = environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if "chunked" in coding:
            raise HTTPBadRequest(
                "This server does not accept chunked request bodies: send "
                "the body with a Content-Length."
            )
        return b""

    def require_body(self) -> dict[str, Any]:
        """Return the body, which must be a JSON object.

        :raises HTTPBadRequest: when there is no JSON object body (Heat
            answers a bare 400 here).
        """
        body = self.body()
        if not isinstance(body, dict):
            raise HTTPBadRequest(
                "The request body must be a JSON object "
                "(Content-Type: application/json)."
            )
        return body

    def refuse_body(self) -> None:
        """Refuse a JSON body on an operation that takes none."""
        if self.body() is not None:
            raise HTTPBadRequest("This operation takes no request body.")
