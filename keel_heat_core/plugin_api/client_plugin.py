"""The base of client plugins: one service's client for one request.

A client plugin (entry point group ``keel_heat.clients``) builds a service
client from the request context, caches it per API version, classifies
the client's errors for the engine (not found, conflict, over limit) and
offers finders used by custom constraints and ``Resolve`` translation
rules.  Resource plugins reach it with ``self.client_plugin()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any, ClassVar

from oslo_utils import excutils

from keel_heat_core import exception


class ClientPlugin:
    """Base class of client plugins.

    :param context: the request context (Keystone session, region).

    Subclasses set :attr:`service_types` (catalog types whose endpoint
    makes the service available), :attr:`exceptions_module` (module or
    modules whose classes are the client's errors), optionally
    :attr:`default_version`/:attr:`supported_versions`, and implement
    :meth:`_create`.
    """

    exceptions_module: ClassVar[ModuleType | Sequence[ModuleType] | None] = (
        None
    )
    service_types: ClassVar[Sequence[str]] = ()
    default_version: ClassVar[Any] = None
    supported_versions: ClassVar[Sequence[Any]] = ()

    def __init__(self, context: Any) -> None:
        self.context = context
        self._client_instances: dict[Any, Any] = {}

    def client(self, version: Any = None) -> Any:
        """The service client, created once per version.

        :raises InvalidServiceVersion: for a version not supported.
        """
        if not version:
            version = self.default_version
        if version in self._client_instances:
            return self._client_instances[version]
        if version is None:
            created = self._create()
        else:
            if version not in self.supported_versions:
                raise exception.InvalidServiceVersion(
                    version=version, service=type(self).__name__
                )
            created = self._create(version=version)
        self._client_instances[version] = created
        return created

    def _create(self, version: Any = None) -> Any:
        """Build the client; subclasses implement this."""
        raise NotImplementedError

    @classmethod
    def is_available(cls, context: Any) -> bool:
        """Whether the service can be used in this cloud.

        The default looks each of :attr:`service_types` up in the
        context's service catalog (``context.has_service(type)``), and is
        true for plugins without service types.
        """
        if not cls.service_types:
            return True
        has_service = getattr(context, "has_service", None)
        if has_service is None:
            return True
        return any(has_service(t) for t in cls.service_types)

    def is_client_exception(self, ex: BaseException) -> bool:
        """Whether ``ex`` is one of the client library's errors."""
        modules = self.exceptions_module
        if modules is None:
            return False
        if isinstance(modules, ModuleType):
            modules = [modules]
        return any(type(ex) in vars(m).values() for m in modules)

    def is_not_found(self, ex: BaseException) -> bool:
        """Whether ``ex`` says the object does not exist."""
        return False

    def is_over_limit(self, ex: BaseException) -> bool:
        """Whether ``ex`` says a quota or rate limit was hit."""
        return False

    def is_conflict(self, ex: BaseException) -> bool:
        """Whether ``ex`` says the object is in a conflicting state."""
        return False

    @excutils.exception_filter  # type: ignore[arg-type]
    def ignore_not_found(self, ex: BaseException) -> bool:
        """Swallow not-found errors (call with an error or use ``with``)."""
        return self.is_not_found(ex)

    @excutils.exception_filter  # type: ignore[arg-type]
    def ignore_conflict_and_not_found(self, ex: BaseException) -> bool:
        """Swallow conflict and not-found errors."""
        return self.is_conflict(ex) or self.is_not_found(ex)


class DefaultClientPlugin(ClientPlugin):
    """The plugin of engine-internal types: no client, no known errors."""

    def _create(self, version: Any = None) -> Any:
        return None
