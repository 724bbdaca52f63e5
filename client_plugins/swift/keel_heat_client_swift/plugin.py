"""The ``swift`` client plugin: Swift through the context's session.

The client is a :class:`~.object_store.SwiftConnection` on the request
context's keystoneauth1 session (``context.keystone_session``: for stack
work, the session of the stack's trust), finding Swift's storage URL in
the catalog for ``context.region_name``. The catalog interface is
``[clients_swift] endpoint_type``, else ``[clients] endpoint_type``, else
``public``.

Besides the client it offers what Heat's resources build on Swift:
temporary URLs (:meth:`SwiftClientPlugin.get_temp_url`), the signal URL
of a ``SwiftSignalHandle`` (:meth:`SwiftClientPlugin.get_signal_url`)
and the files of a ``files_container``
(:meth:`SwiftClientPlugin.get_files_from_container`).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any
from urllib import parse

from keystoneauth1 import exceptions as ks_exc

from keel_heat_client_swift import temp_url
from keel_heat_client_swift.object_store import SERVICE_TYPE, SwiftConnection
from keel_heat_core.plugin_api import ClientPlugin, exception

#: The body of a signal object before the first signal replaces it.
IN_PROGRESS = "in progress"

_INTERFACES = {
    "publicURL": "public",
    "internalURL": "internal",
    "adminURL": "admin",
}


def _status(ex: BaseException) -> int | None:
    if isinstance(ex, ks_exc.HttpError):
        return ex.http_status
    return None


class SwiftClientPlugin(ClientPlugin):
    """Object storage client plugin (Heat's ``swift`` client)."""

    exceptions_module = [ks_exc, ks_exc.http]
    service_types = [SERVICE_TYPE]

    def _interface(self) -> str:
        conf = getattr(self.context, "engine_conf", None)
        for group in ("clients_swift", "clients"):
            try:
                value = getattr(conf, group).endpoint_type
            except Exception:  # noqa: BLE001,S112 - group or option absent
                continue
            if value:
                return _INTERFACES.get(str(value), str(value))
        return "public"

    def _create(self, version: Any = None) -> SwiftConnection:
        session = getattr(self.context, "keystone_session", None)
        if session is None:
            raise exception.AuthorizationFailure(
                failure_reason=" The request context has no Keystone session."
            )
        return SwiftConnection(
            session,
            region_name=getattr(self.context, "region_name", None),
            interface=self._interface(),
        )

    def is_client_exception(self, ex: BaseException) -> bool:
        """keystoneauth1's errors (every Swift call raises them)."""
        return isinstance(ex, ks_exc.ClientException)

    def is_not_found(self, ex: BaseException) -> bool:
        """Swift answered 404."""
        return _status(ex) == 404

    def is_over_limit(self, ex: BaseException) -> bool:
        """Swift answered 413 (quota or object too large)."""
        return _status(ex) == 413

    def is_conflict(self, ex: BaseException) -> bool:
        """Swift answered 409 (e.g. deleting a non-empty container)."""
        return _status(ex) == 409

    def is_valid_temp_url_path(self, path: str) -> bool:
        """Whether ``path`` is a temporary URL's object path in the
        context's project (see :func:`.temp_url.is_valid_temp_url_path`).
        """
        return temp_url.is_valid_temp_url_path(
            path, str(self.context.project_id)
        )

    def get_temp_url(
        self,
        container_name: str,
        obj_name: str,
        timeout: int | None = None,
        method: str = "PUT",
    ) -> str:
        """A temporary URL for ``method`` on an object.

        The account gets a random ``Temp-URL-Key`` first when it has
        none.

        :param timeout: seconds the URL stays valid; by default as long
            as a temporary URL can (see :func:`.temp_url.default_lifetime`).
        """
        client = self.client()
        account = client.head_account()
        key = account.get(temp_url.TEMP_URL_KEY_HEADER)
        if not key:
            client.post_account(
                {temp_url.TEMP_URL_KEY_HEADER: temp_url.new_temp_url_key()}
            )
            key = client.head_account()[temp_url.TEMP_URL_KEY_HEADER]
        if timeout is None:
            timeout = temp_url.default_lifetime()
        expires = int(datetime.datetime.now(datetime.UTC).timestamp())
        path = temp_url.object_path(client.url, container_name, obj_name)
        signed = temp_url.sign_path(path, expires + timeout, key, method)
        storage = parse.urlparse(client.url)
        return f"{storage.scheme}://{storage.netloc}{signed}"

    def get_signal_url(
        self, container_name: str, obj_name: str, timeout: int | None = None
    ) -> str:
        """A ``PUT`` temporary URL to signal through.

        The container keeps the older versions of its objects in itself
        (``X-Versions-Location``), so every signal PUT to the one URL is
        kept; the object starts as :data:`IN_PROGRESS`.
        """
        client = self.client()
        client.put_container(
            container_name, {"x-versions-location": container_name}
        )
        client.put_object(container_name, obj_name, IN_PROGRESS)
        return self.get_temp_url(container_name, obj_name, timeout)

    def parse_last_modified(
        self, value: str | None
    ) -> datetime.datetime | None:
        """A ``Last-Modified`` header as a naive UTC datetime."""
        return temp_url.parse_last_modified(value)

    def get_files_from_container(
        self,
        files_container: str,
        files_to_skip: Iterable[str] | None = None,
        max_bytes: int | None = None,
    ) -> dict[str, str]:
        """Every object of a container as ``{name: text}``.

        :param files_to_skip: names not to download (given otherwise).
        :param max_bytes: refuse a container holding more than this.
        :raises DownloadLimitExceeded: over ``max_bytes``.
        :raises NotFound: Swift refused (no such container …).
        """
        client = self.client()
        skip = set(files_to_skip or ())
        files: dict[str, str] = {}
        try:
            headers, objects = client.get_container(files_container)
            used = int(headers.get("x-container-bytes-used", 0))
            if max_bytes is not None and used > max_bytes:
                raise exception.DownloadLimitExceeded(
                    message=(
                        f"Total size of files to download ({used} bytes) "
                        f"exceeds maximum allowed ({max_bytes} bytes)."
                    )
                )
            for obj in objects:
                name = obj["name"]
                if name in skip:
                    continue
                body = client.get_object(files_container, name)[1]
                files[name] = body.decode("utf-8")
        except ks_exc.ClientException as ex:
            raise exception.NotFound(
                f"Could not fetch files from container {files_container}, "
                f"reason: {ex}."
            ) from ex
        return files
