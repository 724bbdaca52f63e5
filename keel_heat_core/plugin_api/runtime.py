"""What a Resource sees of the engine: the runtime facade.

A plugin never touches the database, the message bus or another process.
Everything it needs from the engine arrives through the objects described
here; the engine (``keel_heat_core.model``) provides real ones and
``keel_heat_core.testing`` provides fakes.  See
``docs/design/plugin-contract.md`` for the full contract.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class ResourceDefinitionLike(Protocol):
    """A resource's definition in the template (Heat's ResourceDefinition).

    The engine passes one to the Resource constructor and as the first
    argument of ``handle_update``.
    """

    name: str
    resource_type: str

    def properties(self, schema: Mapping[str, Any], context: Any) -> Any:
        """The :class:`~.properties.Properties` for ``schema``."""

    def metadata(self) -> dict[str, Any]:
        """The resolved ``metadata`` section."""

    def update_policy(self, schema: Mapping[str, Any], context: Any) -> Any:
        """The ``update_policy`` section as Properties of ``schema``."""

    def deletion_policy(self) -> str:
        """``Delete``, ``Retain`` or ``Snapshot``."""

    def external_id(self) -> str | None:
        """The ``external_id`` of an adopted physical resource."""


class ResourceStore(Protocol):
    """Persistent state of one resource, kept by the engine.

    Writes are the engine's business (compare-and-swap on the resource row,
    encryption of redacted data); a plugin only calls the Resource methods
    that use this store.
    """

    def set_resource_id(self, resource_id: str | None) -> None:
        """Store the physical resource id."""

    def data(self) -> dict[str, str]:
        """All resource data as text (redacted values decrypted)."""

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        """Store one resource-data item (encrypted when ``redact``)."""

    def data_delete(self, key: str) -> bool:
        """Remove one item; True when it existed."""

    def metadata(self) -> dict[str, Any] | None:
        """The stored ``rsrc_metadata`` or None when never written."""

    def metadata_set(
        self, metadata: dict[str, Any], merge_metadata: Any = None
    ) -> None:
        """Write ``rsrc_metadata`` (retried under the resource lock).

        :param merge_metadata: a callable ``(new, latest) -> merged``;
            when given, the store reads the latest stored metadata first
            (under the lock) and writes what the callable returns.
        :raises ResourceNotAvailable: when the resource is being deleted.
        """


class MemoryResourceStore:
    """A :class:`ResourceStore` in memory (tests, previews, validation)."""

    def __init__(self) -> None:
        self.resource_id: str | None = None
        self._data: dict[str, str] = {}
        self.redacted: set[str] = set()
        self._metadata: dict[str, Any] | None = None

    def set_resource_id(self, resource_id: str | None) -> None:
        self.resource_id = resource_id

    def data(self) -> dict[str, str]:
        return dict(self._data)

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        self._data[key] = value
        if redact:
            self.redacted.add(key)
        else:
            self.redacted.discard(key)

    def data_delete(self, key: str) -> bool:
        self.redacted.discard(key)
        return self._data.pop(key, None) is not None

    def metadata(self) -> dict[str, Any] | None:
        return copy.deepcopy(self._metadata)

    def metadata_set(
        self, metadata: dict[str, Any], merge_metadata: Any = None
    ) -> None:
        if merge_metadata is not None:
            metadata = merge_metadata(metadata, self._metadata or {})
        self._metadata = copy.deepcopy(metadata)


class StackFacade(Protocol):
    """What a Resource may read or ask of its stack.

    Attributes: ``context`` (the request context), ``id``, ``name``,
    ``t`` (the Template: ``t.get_section_name(name)``, ``t.files``),
    ``env`` (the Environment), ``parameters``, ``timeout_mins``,
    ``stack_user_project_id``, ``nested_depth``, ``parent_resource_name``,
    ``strict_validate``, ``action``, ``status``.
    """

    context: Any
    id: str | None
    name: str
    #: the client-plugin factory: ``client(name, version=None)`` and
    #: ``client_plugin(name)``
    clients: Any

    def identifier(self) -> Any:
        """The stack identifier (tenant, name, id, path; ``arn()``)."""

    def timeout_secs(self) -> int | None:
        """The stack timeout in seconds, if any."""

    def rpc_client(self) -> Any:
        """An engine RPC client (Heat's EngineClient method names)."""

    def resource_by_refid(self, refid: str) -> Any:
        """The Resource whose reference id is ``refid``, or None."""

    def resource_get(self, name: str) -> Any:
        """The Resource of the stack named ``name``, or None."""

    def fetch_url(self, url: str) -> str:
        """The text at ``url`` (Heat's urlfetch: allowed schemes, size
        limit ``max_template_size``); raises on failure."""

    def referenced_attrs(self, resource_name: str) -> list[Any]:
        """The attributes of ``resource_name`` the stack's templates read
        (names, or tuples ``(name, *path)``): groups add child outputs for
        them."""

    def child_stack_status(
        self, stack_id: str
    ) -> tuple[str, str, str, Any] | None:
        """``(action, status, status_reason, updated_time)`` of a child
        stack, or None when it does not exist (yet)."""

    def validate_child_stack(
        self, name: str, template: Any, params: Any, files: Any
    ) -> None:
        """Validate a child stack non-strictly (optional: StackResource
        skips the check when the facade lacks it); raise its error.

        :param params: the child's environment, as
            :meth:`child_environment` makes it."""

    def child_environment(
        self, user_params: Any, child_resource_name: str
    ) -> dict[str, Any]:
        """The environment (as a dict) for a child stack: the parent's
        registry with ``user_params`` as parameters."""
