"""Custom constraints: the base class and the registry of names.

A custom constraint is named in a template (``custom_constraint: ip_addr``)
or a property schema, so it is a stevedore-style entry point of the group
``keel_heat.constraints``: one implementation per name.  The core registers
its local constraints (no service needed) in its own ``pyproject.toml``;
client plugins register the ones that ask a service (``nova.flavor``, ...).

A constraint class is instantiated once per use and offers
``validate(value, context) -> bool`` and, optionally, ``error(value)`` for
the failure text and ``message`` for documentation.
"""

from __future__ import annotations

import importlib.metadata
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from keel_heat_core import exception

LOG = logging.getLogger(__name__)

#: The entry-point group custom constraints are registered under.
ENTRY_POINT_GROUP = "keel_heat.constraints"


class BaseCustomConstraint:
    """Base of custom constraints, most of which look a value up.

    A subclass either overrides :meth:`validate`, setting
    ``_error_message`` when the value is bad, or names the client plugin
    and its getter (``resource_client_name``, ``resource_getter_name``):
    the value is valid when the getter does not raise one of
    ``expected_exceptions``.
    """

    expected_exceptions: tuple[type[BaseException], ...] = (
        exception.EntityNotFound,
    )
    resource_client_name: str | None = None
    resource_getter_name: str | None = None

    def __init__(self) -> None:
        self._error_message: str | None = None

    def error(self, value: Any) -> str:
        """The failure text for ``value`` (Heat's wording)."""
        if self._error_message is None:
            return f"Error validating value '{value}'"
        return f"Error validating value '{value}': {self._error_message}"

    def validate(self, value: Any, context: Any) -> bool:
        """Return whether ``value`` is valid, asking the client plugin."""
        try:
            self.validate_with_client(context.clients, value)
        except self.expected_exceptions as exc:
            self._error_message = str(exc)
            return False
        return True

    def validate_with_client(self, client: Any, resource_id: Any) -> None:
        """Look ``resource_id`` up; raise when it does not exist."""
        if not (self.resource_client_name and self.resource_getter_name):
            raise exception.InvalidSchemaError(
                message="Client name and resource getter name must be "
                "specified."
            )
        plugin = client.client_plugin(self.resource_client_name)
        getattr(plugin, self.resource_getter_name)(resource_id)


class DuplicateConstraintError(RuntimeError):
    """Two distributions register the same custom-constraint name."""


class ConstraintRegistry:
    """Custom constraint classes by name, loaded on first use.

    :param entries: name to class, or to a zero-argument loader returning
        the class (an entry point's ``load``).
    """

    def __init__(
        self, entries: Mapping[str, Any | Callable[[], Any]] | None = None
    ) -> None:
        self._loaders: dict[str, Callable[[], Any]] = {}
        self._classes: dict[str, Any] = {}
        self._lock = threading.Lock()
        for name, entry in (entries or {}).items():
            if isinstance(entry, type):
                self._classes[name] = entry
            else:
                self._loaders[name] = entry

    @classmethod
    def from_entry_points(
        cls,
        entry_points: Iterable[importlib.metadata.EntryPoint] | None = None,
    ) -> ConstraintRegistry:
        """Build the registry from the ``keel_heat.constraints`` group.

        :raises DuplicateConstraintError: naming both distributions when a
            name is registered twice.
        """
        if entry_points is None:
            entry_points = importlib.metadata.entry_points(
                group=ENTRY_POINT_GROUP
            )
        seen: dict[str, importlib.metadata.EntryPoint] = {}
        for ep in entry_points:
            if ep.name in seen and seen[ep.name].value != ep.value:
                first = seen[ep.name]
                raise DuplicateConstraintError(
                    f"custom constraint {ep.name!r} is registered by "
                    f"{_dist_name(first)} ({first.value}) and by "
                    f"{_dist_name(ep)} ({ep.value})"
                )
            seen[ep.name] = ep
        return cls({name: ep.load for name, ep in seen.items()})

    def register(self, name: str, constraint_class: Any) -> None:
        """Add or replace the class registered under ``name``."""
        with self._lock:
            self._loaders.pop(name, None)
            self._classes[name] = constraint_class

    def names(self) -> list[str]:
        """Every registered name, sorted."""
        return sorted(set(self._classes) | set(self._loaders))

    def get_constraint(self, name: str) -> Any:
        """The class registered under ``name``, or ``None``.

        A class whose module cannot be imported (a missing client library)
        is logged and treated as not registered.
        """
        if not isinstance(name, str):
            return None
        with self._lock:
            if name in self._classes:
                return self._classes[name]
            loader = self._loaders.get(name)
            if loader is None:
                return None
            try:
                loaded = loader()
            except Exception:
                LOG.exception("Could not load custom constraint %s", name)
                return None
            self._classes[name] = loaded
            del self._loaders[name]
            return loaded


def _dist_name(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return str(dist.name) if dist is not None else "an unknown distribution"


_default: ConstraintRegistry | None = None
_default_lock = threading.Lock()


def default_registry() -> ConstraintRegistry:
    """The process-wide registry built from the installed entry points."""
    global _default
    with _default_lock:
        if _default is None:
            _default = ConstraintRegistry.from_entry_points()
        return _default


def set_default_registry(registry: ConstraintRegistry | None) -> None:
    """Replace the process-wide registry (``None`` rebuilds it lazily)."""
    global _default
    with _default_lock:
        _default = registry
