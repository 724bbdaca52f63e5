"""Swift's account, container and object calls on a keystoneauth1 session.

The storage URL (``…/v1/AUTH_<project>``) is the ``object-store``
endpoint of the session's catalog. Every call raises keystoneauth1's
HTTP errors (``keystoneauth1.exceptions.http``) for error answers, so a
missing container is a ``NotFound`` (404) and a non-empty one a
``Conflict`` (409). Headers come back as a dict with lower-case names,
as python-swiftclient gives them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib import parse

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session

#: The catalog type of Swift.
SERVICE_TYPE = "object-store"

#: Objects per listing page (Swift's own default limit).
PAGE_SIZE = 10000


def _headers(response: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items()}


def failure(
    method: str, url: str, storage_url: str, response: Any
) -> ks_exc.HttpError:
    """keystoneauth1's error for an error answer, its message in
    python-swiftclient's words: what failed, the URL, the status and the
    start of Swift's explanation."""
    below = url[len(storage_url) :].strip("/")
    depth = min(below.count("/") + bool(below), 2)
    kind = ("Account", "Container", "Object")[depth]
    message = (
        f"{kind} {method} failed: {url} {response.status_code} "
        f"{response.reason}"
    )
    body = (response.text or "")[:60]
    if body and method != "HEAD":
        message += f"  [first 60 chars of response] {body}"
    cls = type(ks_exc.from_response(response, method, url))
    if not issubclass(cls, ks_exc.HttpError):
        cls = ks_exc.HttpError
    return cls(
        message=message,
        details=response.text,
        response=response,
        request_id=response.headers.get("x-openstack-request-id"),
        url=url,
        method=method,
        http_status=response.status_code,
    )


class SwiftConnection:
    """One account of Swift, reached through the catalog.

    :param session: a keystoneauth1 session (with its auth plugin).
    :param region_name: the catalog region, if any.
    :param interface: the catalog interface (``public`` …).
    """

    def __init__(
        self,
        session: ks_session.Session,
        region_name: str | None = None,
        interface: str = "public",
    ) -> None:
        self.session = session
        self._filter: dict[str, Any] = {
            "service_type": SERVICE_TYPE,
            "interface": interface,
        }
        if region_name:
            self._filter["region_name"] = region_name
        self._url: str | None = None

    @property
    def url(self) -> str:
        """The storage URL of the account."""
        if self._url is None:
            endpoint = self.session.get_endpoint(**self._filter)
            if not endpoint:
                raise LookupError("no object-store endpoint in the catalog")
            self._url = str(endpoint).rstrip("/")
        return self._url

    def get_auth(self) -> tuple[str, str | None]:
        """The storage URL and a token, as python-swiftclient's."""
        return self.url, self.session.get_token()

    def _path(
        self, container: str | None = None, obj: str | None = None
    ) -> str:
        path = self.url
        if container is not None:
            path += "/" + parse.quote(container, safe="")
        if obj is not None:
            path += "/" + parse.quote(obj)
        return path

    def _request(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> Any:
        response = self.session.request(
            url,
            method,
            headers=dict(headers or {}),
            raise_exc=False,
            **kwargs,
        )
        if response.status_code >= 400:
            raise failure(method, url, self.url, response)
        return response

    def head_account(self) -> dict[str, str]:
        """The account's headers (its metadata and usage)."""
        return _headers(self._request("HEAD", self._path()))

    def post_account(self, headers: Mapping[str, str]) -> None:
        """Set account headers (``X-Account-Meta-*`` …)."""
        self._request("POST", self._path(), headers)

    def put_container(
        self, container: str, headers: Mapping[str, str] | None = None
    ) -> None:
        """Create the container or update its headers."""
        self._request("PUT", self._path(container), headers)

    def post_container(
        self, container: str, headers: Mapping[str, str]
    ) -> None:
        """Update the container's headers."""
        self._request("POST", self._path(container), headers)

    def head_container(self, container: str) -> dict[str, str]:
        """The container's headers (metadata, ACLs, object count)."""
        return _headers(self._request("HEAD", self._path(container)))

    def get_container(
        self, container: str
    ) -> tuple[dict[str, str], list[dict[str, Any]]]:
        """The container's headers and its whole object listing (each
        object a dict with ``name``, ``bytes``, ``hash`` …)."""
        objects: list[dict[str, Any]] = []
        marker: str | None = None
        while True:
            params: dict[str, Any] = {"format": "json", "limit": PAGE_SIZE}
            if marker is not None:
                params["marker"] = marker
            response = self._request(
                "GET", self._path(container), params=params
            )
            if marker is None:
                headers = _headers(response)
            page = json.loads(response.text or "[]")
            objects.extend(page)
            if len(page) < PAGE_SIZE:
                return headers, objects
            marker = page[-1]["name"]

    def delete_container(self, container: str) -> None:
        """Delete the container (Swift refuses a non-empty one: 409)."""
        self._request("DELETE", self._path(container))

    def put_object(
        self,
        container: str,
        obj: str,
        contents: bytes | str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Store an object."""
        data = contents.encode() if isinstance(contents, str) else contents
        self._request("PUT", self._path(container, obj), headers, data=data)

    def get_object(
        self, container: str, obj: str
    ) -> tuple[dict[str, str], bytes]:
        """An object's headers and body."""
        response = self._request("GET", self._path(container, obj))
        return _headers(response), bytes(response.content)

    def delete_object(self, container: str, obj: str) -> None:
        """Delete an object (with versioning on, its newest version)."""
        self._request("DELETE", self._path(container, obj))
