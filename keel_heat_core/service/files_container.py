"""The ``files_container`` of stack create, update, preview and validate.

A request may name a Swift container of the caller's project instead of
(or besides) sending the ``files`` map: every object of the container is
then a file of the template, by object name, except those the request
sends itself, which win. The container is read with the caller's
session through the ``swift`` client plugin, found like any other client
plugin (the core knows no pack); its total size is limited by
``max_json_body_size``, as a request body is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core import exception

CLIENT_NAME = "swift"


def files_with_container(
    ctxt: Any,
    files_container: str | None,
    files: Mapping[str, Any] | None,
    max_bytes: int | None,
) -> Mapping[str, Any] | None:
    """``files`` completed with the objects of ``files_container``.

    :param ctxt: the caller's engine context (``clients``).
    :param max_bytes: the most the container may hold.
    :raises ClientNotAvailable: no ``swift`` client plugin is installed.
    :raises NotFound: the container cannot be read.
    :raises DownloadLimitExceeded: it holds more than ``max_bytes``.
    """
    if not files_container:
        return files
    given = dict(files or {})
    try:
        plugin = ctxt.clients.client_plugin(CLIENT_NAME)
    except exception.EntityNotFound as ex:
        raise exception.ClientNotAvailable(client_name=CLIENT_NAME) from ex
    found: dict[str, Any] = dict(
        plugin.get_files_from_container(
            files_container, list(given), max_bytes=max_bytes
        )
    )
    found.update(given)
    return found
