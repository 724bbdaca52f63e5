"""Keystone's v3 REST API as plain JSON, over the identity proxy.

Heat's Keystone resources send Keystone the bodies python-keystoneclient
builds (extra attributes included, e.g. an endpoint's ``name``) and show
Keystone's own JSON as the ``show`` attribute.  :class:`IdentityAPI` does
the same through the openstacksdk identity proxy, which is a keystoneauth1
adapter on the request's session: ``create``/``show``/``update``/
``delete`` on a collection (``projects``, ``users`` …), ``put``/``remove``
on a relation (group membership, role grants) and listing.

Errors are raised as openstacksdk exceptions
(:class:`openstack.exceptions.NotFoundException` for 404,
:class:`openstack.exceptions.ConflictException` for 409 …), which the
``keystone`` client plugin classifies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib import parse

from openstack import exceptions as sdk_exc

#: The JSON key of one object of each collection.
MEMBER_KEYS = {
    "domains": "domain",
    "endpoints": "endpoint",
    "groups": "group",
    "projects": "project",
    "regions": "region",
    "roles": "role",
    "services": "service",
    "users": "user",
}


def _quoted(obj_id: str) -> str:
    # Ids are opaque: a region id may itself hold "%" or "/".
    return parse.quote(str(obj_id), safe="")


class IdentityAPI:
    """JSON calls on Keystone v3.

    :param adapter: a keystoneauth1 adapter of the identity service
        (``connection.identity`` of an openstacksdk connection).
    """

    def __init__(self, adapter: Any) -> None:
        self._adapter = adapter

    def _call(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        kwargs: dict[str, Any] = {"raise_exc": False}
        if body is not None:
            kwargs["json"] = body
        if params:
            kwargs["params"] = dict(params)
        response = self._adapter.request(path, method, **kwargs)
        sdk_exc.raise_from_response(response)
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    def create(
        self, collection: str, attrs: Mapping[str, Any]
    ) -> dict[str, Any]:
        """POST ``/<collection>``; returns the new object."""
        key = MEMBER_KEYS[collection]
        body = self._call("POST", f"/{collection}", {key: dict(attrs)})
        return dict(body[key])

    def show(self, collection: str, obj_id: str) -> dict[str, Any]:
        """GET ``/<collection>/<id>``: the object as Keystone shows it."""
        body = self._call("GET", f"/{collection}/{_quoted(obj_id)}")
        return dict(body[MEMBER_KEYS[collection]])

    def update(
        self, collection: str, obj_id: str, attrs: Mapping[str, Any]
    ) -> dict[str, Any]:
        """PATCH ``/<collection>/<id>`` with ``attrs``."""
        key = MEMBER_KEYS[collection]
        body = self._call(
            "PATCH", f"/{collection}/{_quoted(obj_id)}", {key: dict(attrs)}
        )
        return dict(body[key])

    def delete(self, collection: str, obj_id: str) -> None:
        """DELETE ``/<collection>/<id>``."""
        self._call("DELETE", f"/{collection}/{_quoted(obj_id)}")

    def put(self, path: str) -> None:
        """PUT a relation, e.g. ``/groups/<g>/users/<u>``."""
        self._call("PUT", path)

    def remove(self, path: str) -> None:
        """DELETE a relation, e.g. ``/projects/<p>/users/<u>/roles/<r>``."""
        self._call("DELETE", path)

    def exists(self, path: str) -> bool:
        """HEAD a relation: True when Keystone answers 2xx, False on 404."""
        try:
            self._call("HEAD", path)
        except sdk_exc.NotFoundException:
            return False
        return True

    def list(self, path: str, **params: Any) -> list[dict[str, Any]]:
        """GET a listing, e.g. ``projects`` or ``users/<id>/groups``.

        :param path: the collection path; its last part is the JSON key
            of the answer's list.
        :param params: query parameters (``name``, ``user.id`` …).
        """
        key = path.rstrip("/").rsplit("/", 1)[-1]
        body = self._call("GET", "/" + path.lstrip("/"), params=params)
        return [dict(item) for item in body[key]]
