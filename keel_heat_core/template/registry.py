"""The resource registry: which implementation a resource type names.

An environment's ``resource_registry`` maps type names to:

* a plugin class (global entries, from the ``keel_heat.resources`` entry
  points) - :class:`ClassResourceInfo`;
* another type name (``"OS::X": "OS::Y"``) - :class:`MapResourceInfo`;
* a glob (``"OS::Net::*": "OS::Neutron::*"``) - :class:`GlobResourceInfo`;
* a template (a name or value ending ``.yaml``/``.template``) -
  :class:`TemplateResourceInfo`, a template (provider) resource;

plus per-resource overrides under ``resources: {<name or glob>: {...}}``
(type mappings for that resource only, ``hooks``, ``restricted_actions``,
nested maps for the resources of a nested stack).  User entries win over
global ones, then the more specific path.
"""

from __future__ import annotations

import contextvars
import fnmatch
import logging
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from keel_heat_core import exception
from keel_heat_core.template.heat_types import SERVICE_OF

#: the types being resolved by the lookups under way in this thread (a
#: mapping's lookup runs inside the lookup of the type it maps)
_RESOLVING: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "_RESOLVING", default=()
)

LOG = logging.getLogger(__name__)

HOOK_TYPES = (
    HOOK_PRE_CREATE,
    HOOK_PRE_UPDATE,
    HOOK_PRE_DELETE,
    HOOK_POST_CREATE,
    HOOK_POST_UPDATE,
    HOOK_POST_DELETE,
) = (
    "pre-create",
    "pre-update",
    "pre-delete",
    "post-create",
    "post-update",
    "post-delete",
)

RESTRICTED_ACTIONS = (UPDATE, REPLACE) = ("update", "replace")

TEMPLATE_SUFFIXES = (".yaml", ".template")

#: What :meth:`TemplateResourceInfo.get_class_to_instantiate` returns; the
#: engine sets it to its template-resource class.
template_resource_class: Any = "TemplateResource"


def _all_valid(value: Any, valid: tuple[str, ...]) -> bool:
    if isinstance(value, str):
        return value in valid
    if isinstance(value, Sequence):
        return all(isinstance(v, str) and v in valid for v in value)
    return False


def is_hook_definition(key: str, value: Any) -> bool:
    """Whether ``key: value`` is a ``hooks`` entry (checking its hooks).

    :raises InvalidBreakPointHook: for an unknown hook type.
    """
    if key != "hooks":
        return False
    if not _all_valid(value, HOOK_TYPES):
        raise exception.InvalidBreakPointHook(
            message=f'Invalid hook type "{value}" for resource breakpoint, '
            f"acceptable hook types are: {HOOK_TYPES}"
        )
    return True


def is_valid_restricted_action(key: str, value: Any) -> bool:
    """Whether ``key: value`` is a ``restricted_actions`` entry.

    :raises InvalidRestrictedAction: for an action other than update or
        replace.
    """
    if key != "restricted_actions":
        return False
    if not _all_valid(value, RESTRICTED_ACTIONS):
        raise exception.InvalidRestrictedAction(
            message=f'Invalid restricted_action type "{value}" for '
            "resource, acceptable restricted_action types are: "
            f"{RESTRICTED_ACTIONS}"
        )
    return True


def overrides_for(
    resources: Mapping[str, Any], resource_name: str
) -> dict[str, Any]:
    """The ``resources`` overrides a child stack of ``resource_name``
    inherits: every entry whose name or glob matches, merged (the exact
    name last)."""
    kept: dict[str, Any] = {}
    for pattern, entry in resources.items():
        if isinstance(entry, dict) and fnmatch.fnmatchcase(
            resource_name, pattern
        ):
            kept.update(entry)
    exact = resources.get(resource_name)
    if isinstance(exact, dict):
        kept.update(exact)
    return kept


def _as_set(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, Sequence):
        return set(value)
    return set()


class ResourceInfo:
    """One registry entry: a path (``[type]`` or ``['resources', name,
    type]``) and what it maps to.  ``ResourceInfo(registry, path, value)``
    makes the subclass the name and value call for."""

    description = "Base"

    def __new__(
        cls, registry: ResourceRegistry, path: list[str], value: Any
    ) -> ResourceInfo:
        if cls is not ResourceInfo:
            return super().__new__(cls)
        name = path[-1]
        klass: type[ResourceInfo]
        if name.endswith(TEMPLATE_SUFFIXES):
            klass = TemplateResourceInfo
        elif not isinstance(value, str):
            klass = ClassResourceInfo
        elif value.endswith(TEMPLATE_SUFFIXES):
            klass = TemplateResourceInfo
        elif name.endswith("*"):
            klass = GlobResourceInfo
        else:
            klass = MapResourceInfo
        return super().__new__(klass)

    def __init__(
        self, registry: ResourceRegistry, path: list[str], value: Any
    ) -> None:
        self._registry = weakref.ref(registry)
        self.path = list(path)
        self.name = path[-1]
        self.value = value
        self.user_resource = True

    @property
    def registry(self) -> ResourceRegistry:
        """The registry this entry belongs to."""
        registry = self._registry()
        if registry is None:  # pragma: no cover - registries outlive infos
            raise RuntimeError("resource registry is gone")
        return registry

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceInfo):
            return False
        return (
            self.path == other.path
            and self.value == other.value
            and self.user_resource == other.user_resource
        )

    def __hash__(self) -> int:
        return hash((tuple(self.path), self.user_resource))

    def sort_key(self) -> tuple[bool, int, list[str]]:
        """User entries first, then the longer path, then the path."""
        return (not self.user_resource, -len(self.path), self.path)

    def get_resource_info(
        self,
        resource_type: str | None = None,
        resource_name: str | None = None,
    ) -> ResourceInfo:
        """The entry that finally implements ``resource_type``."""
        return self

    def matches(self, resource_type: str) -> bool:
        """Whether this (glob) entry applies to ``resource_type``."""
        return False

    def get_class(self, files: Mapping[str, Any] | None = None) -> Any:
        """The implementation this entry stands for."""
        raise NotImplementedError

    def get_class_to_instantiate(self) -> Any:
        """The class the engine instantiates for this entry."""
        return self.get_class()

    def __str__(self) -> str:
        return (
            f"[{self.description}](User:{self.user_resource}) "
            f"{self.name} -> {self.value}"
        )


class ClassResourceInfo(ResourceInfo):
    """A plugin class (or a loader returning it, called on first use)."""

    description = "Plugin"

    def get_class(self, files: Mapping[str, Any] | None = None) -> Any:
        if callable(self.value) and not isinstance(self.value, type):
            self.value = self.value()
        return self.value


class TemplateResourceInfo(ResourceInfo):
    """A template resource: the template named by the key or the value."""

    description = "Template"

    def __init__(
        self, registry: ResourceRegistry, path: list[str], value: Any
    ) -> None:
        super().__init__(registry, path, value)
        if self.name.endswith(TEMPLATE_SUFFIXES):
            self.template_name = self.name
        else:
            self.template_name = value
        self.value = self.template_name

    def get_class(self, files: Mapping[str, Any] | None = None) -> Any:
        """The provider built from the template (files map, else fetched).

        :raises NotFound: ``Could not fetch remote template "x": ...``.
        """
        from keel_heat_core.template import provider

        if files and self.template_name in files:
            data = files[self.template_name]
        else:
            schemes = (
                provider.REMOTE_SCHEMES
                if self.user_resource
                else provider.LOCAL_SCHEMES
            )
            data = provider.get_template_file(self.template_name, schemes)
        return provider.ProviderTemplate.from_text(
            str(self.name), data, self.registry.param_defaults
        )

    def get_class_to_instantiate(self) -> Any:
        return template_resource_class


class MapResourceInfo(ResourceInfo):
    """One type name mapped to another (``OS::X -> OS::Y``)."""

    description = "Mapping"

    def get_class(self, files: Mapping[str, Any] | None = None) -> Any:
        return None

    def get_resource_info(
        self,
        resource_type: str | None = None,
        resource_name: str | None = None,
    ) -> ResourceInfo:
        return self.registry.get_resource_info(self.value, resource_name)


class GlobResourceInfo(MapResourceInfo):
    """A prefix mapping (``OS::Net::* -> OS::Neutron::*``, or many to one,
    ``OS::* -> OS::Heat::None``)."""

    description = "Wildcard Mapping"

    def get_resource_info(
        self,
        resource_type: str | None = None,
        resource_name: str | None = None,
    ) -> ResourceInfo:
        prefix = self.name[:-1]
        if self.value.endswith("*"):
            new_type = self.value[:-1] + (resource_type or "")[len(prefix) :]
        else:
            new_type = self.value
        return self.registry.get_resource_info(new_type, resource_name)

    def matches(self, resource_type: str) -> bool:
        # A mapping never matches its own target (OS::* -> OS::Heat::None).
        return resource_type != self.value and resource_type.startswith(
            self.name[:-1]
        )


class ResourceRegistry:
    """The registry of one environment, chained to the global one.

    :param global_registry: the process-wide registry, or ``None`` when
        this *is* the global registry.
    :param param_defaults: the environment's ``parameter_defaults`` (given
        to template resources).
    """

    def __init__(
        self,
        global_registry: ResourceRegistry | None,
        param_defaults: Mapping[str, Any],
    ) -> None:
        self._registry: dict[str, Any] = {"resources": {}}
        self.global_registry = global_registry
        self.param_defaults = param_defaults

    def load(self, json_snippet: Mapping[str, Any]) -> None:
        """Add the entries of a ``resource_registry`` section."""
        self._load_registry([], json_snippet)

    def register_class(
        self,
        resource_type: str,
        resource_class: Any,
        path: list[str] | None = None,
    ) -> None:
        """Register a plugin class (or a loader of it) for a type."""
        path = path or [resource_type]
        self._register_info(path, ResourceInfo(self, path, resource_class))

    def _load_registry(self, path: list[str], registry: Any) -> None:
        if not isinstance(registry, Mapping):
            raise exception.StackValidationFailed(
                message="Invalid resource_registry"
                + (f" entry {'/'.join(path)}" if path else "")
                + ": expected a map"
            )
        for key, value in registry.items():
            key = str(key)
            if not path and key == "resources":
                self._load_overrides(value)
            elif value is None:
                self._register_info([*path, key], None)
            elif is_hook_definition(key, value) or is_valid_restricted_action(
                key, value
            ):
                self._register_item([*path, key], value)
            elif isinstance(value, dict):
                self._load_registry([*path, key], value)
            else:
                info = ResourceInfo(self, [*path, key], value)
                self._register_info([*path, key], info)

    def _load_overrides(self, value: Any) -> None:
        if value is None:
            self._registry["resources"] = {}
            return
        if not isinstance(value, dict):
            # Heat fails later with a raw AttributeError.
            raise exception.StackValidationFailed(
                message="Invalid resource_registry entry resources: "
                "expected a map"
            )
        for name, entry in value.items():
            if entry is None:
                self._registry["resources"].pop(str(name), None)
            elif not isinstance(entry, dict):
                raise exception.StackValidationFailed(
                    message="Invalid resource_registry entry "
                    f"resources/{name}: expected a map"
                )
            else:
                self._load_registry(["resources", str(name)], entry)

    def _level(self, path: list[str]) -> dict[str, Any]:
        level = self._registry
        for key in path[:-1]:
            level = level.setdefault(key, {})
        return level

    def _register_item(self, path: list[str], item: Any) -> None:
        self._level(path)[path[-1]] = item

    def _register_info(
        self, path: list[str], info: ResourceInfo | None
    ) -> None:
        name = path[-1]
        level = self._level(path)
        if info is None:
            if name.endswith("*"):
                for key in [
                    k
                    for k, v in level.items()
                    if isinstance(v, ResourceInfo) and k.startswith(name[:-1])
                ]:
                    LOG.warning("Removing %s from %s", key, "/".join(path))
                    del level[key]
            else:
                level.pop(name, None)
            return
        old = level.get(name)
        if isinstance(old, ResourceInfo) and old != info:
            LOG.warning(
                "Changing %s from %s to %s", "/".join(path), old.value, info
            )
        info.user_resource = self.global_registry is not None
        level[name] = info

    def remove_item(self, info: ResourceInfo) -> None:
        """Drop a template-resource entry (a child's own provider entry)."""
        if not isinstance(info, TemplateResourceInfo):
            return
        level: Any = self._registry
        for key in info.path[:-1]:
            level = level.get(key, {})
        level.pop(info.path[-1], None)

    def _matching_overrides(self, resource_name: str) -> Iterator[Any]:
        for pattern, entry in self._registry["resources"].items():
            if isinstance(entry, dict) and fnmatch.fnmatchcase(
                resource_name, pattern
            ):
                yield entry

    def get_rsrc_restricted_actions(self, resource_name: str) -> set[str]:
        """The actions (``update``, ``replace``) restricted for a resource."""
        actions: set[str] = set()
        for entry in self._matching_overrides(resource_name):
            actions |= _as_set(entry.get("restricted_actions"))
        return actions

    def matches_hook(self, resource_name: str, hook: str) -> bool:
        """Whether a hook (``pre-create``...) is set for a resource."""
        return any(
            hook in _as_set(entry.get("hooks"))
            for entry in self._matching_overrides(resource_name)
        )

    def remove_resources_except(self, resource_name: str) -> None:
        """Keep only the overrides of one resource (for its child stack)."""
        self._registry["resources"] = overrides_for(
            self._registry["resources"], resource_name
        )

    def iterable_by(
        self, resource_type: str, resource_name: str | None = None
    ) -> Iterator[ResourceInfo]:
        """The entries that may implement a type, in no particular order."""
        if self.global_registry is not None and resource_type.endswith(
            TEMPLATE_SUFFIXES
        ):
            # A type that is itself a template name: only user registries.
            if not isinstance(self._registry.get(resource_type), ResourceInfo):
                info = ResourceInfo(self, [resource_type], None)
                self._register_info([resource_type], info)
            yield self._registry[resource_type]
        if resource_name:
            impl = self._registry["resources"].get(resource_name)
            if isinstance(impl, dict) and isinstance(
                impl.get(resource_type), ResourceInfo
            ):
                yield impl[resource_type]
        impl = self._registry.get(resource_type)
        if isinstance(impl, ResourceInfo):
            yield impl
        for pattern, entry in list(self._registry.items()):
            if (
                pattern.endswith("*")
                and isinstance(entry, ResourceInfo)
                and entry.matches(resource_type)
            ):
                yield entry

    def get_resource_info(
        self,
        resource_type: str,
        resource_name: str | None = None,
        registry_type: type[ResourceInfo] | None = None,
        ignore: ResourceInfo | None = None,
    ) -> ResourceInfo:
        """The entry that implements a type (for a resource name).

        :raises EntityNotFound: ``The Resource Type (x) could not be
            found.``
        :raises StackValidationFailed: the registry maps the type back to
            itself (``A: B, B: A``, or ``A: A``), where Heat recurses
            until Python stops it.
        """
        chain = _RESOLVING.get()
        if resource_type in chain:
            loop = " -> ".join(
                [*chain[chain.index(resource_type) :], resource_type]
            )
            raise exception.StackValidationFailed(
                message=f"The resource_registry maps {resource_type} back to "
                f"itself: {loop}"
            )
        token = _RESOLVING.set((*chain, resource_type))
        try:
            return self._resource_info(
                resource_type, resource_name, registry_type, ignore
            )
        finally:
            _RESOLVING.reset(token)

    def _resource_info(
        self,
        resource_type: str,
        resource_name: str | None,
        registry_type: type[ResourceInfo] | None,
        ignore: ResourceInfo | None,
    ) -> ResourceInfo:
        candidates = list(self.iterable_by(resource_type, resource_name))
        if self.global_registry is not None:
            candidates += self.global_registry.iterable_by(
                resource_type, resource_name
            )
        for info in sorted(candidates, key=ResourceInfo.sort_key):
            try:
                match = info.get_resource_info(resource_type, resource_name)
            except exception.EntityNotFound:
                continue
            if registry_type is not None and not isinstance(
                match, registry_type
            ):
                continue
            if ignore is not None and match == ignore:
                continue
            self._remember(resource_type, info, match)
            return match
        raise exception.EntityNotFound(
            entity="Resource Type", name=resource_type
        )

    def _remember(
        self, resource_type: str, info: ResourceInfo, match: ResourceInfo
    ) -> None:
        """Keep a mapping that led to a global type under the looked-up
        type too, as Heat does (so that it survives in the stored
        environment): after ``OS::Nova::* -> OS::Heat::None`` resolved
        ``OS::Nova::Server``, the user registry also maps
        ``OS::Nova::Server`` (POST /validate shows it)."""
        if (
            self.global_registry is not None
            and info.registry is self
            and not match.user_resource
            and not isinstance(info, TemplateResourceInfo | ClassResourceInfo)
        ):
            self._register_info([resource_type], info)

    def get_class(
        self,
        resource_type: str,
        resource_name: str | None = None,
        files: Mapping[str, Any] | None = None,
    ) -> Any:
        """The implementation of a type (a plugin class or a provider)."""
        info = self.get_resource_info(resource_type, resource_name)
        return info.get_class(files=files)

    def get_class_to_instantiate(
        self, resource_type: Any, resource_name: str | None = None
    ) -> Any:
        """The class to instantiate for a resource definition's type.

        :raises StackValidationFailed: for an empty, missing, non-string or
            unknown type (Heat's messages).
        """
        if resource_type == "":
            raise exception.StackValidationFailed(
                message=f'Resource "{resource_name}" has no type'
            )
        if resource_type is None:
            raise exception.StackValidationFailed(
                message="Non-empty resource type is required for resource "
                f'"{resource_name}"'
            )
        if not isinstance(resource_type, str):
            raise exception.StackValidationFailed(
                message=f'Resource "{resource_name}" type is not a string'
            )
        try:
            info = self.get_resource_info(resource_type, resource_name)
        except exception.EntityNotFound as exc:
            service = SERVICE_OF.get(resource_type)
            if service is not None:
                # one of Heat's types, whose pack is not installed here
                raise exception.ResourceTypeUnavailable(
                    service_name=service,
                    resource_type=resource_type,
                    reason="no installed keel-heat pack provides it",
                ) from exc
            raise exception.StackValidationFailed(message=str(exc)) from exc
        return info.get_class_to_instantiate()

    def as_dict(self) -> dict[str, Any]:
        """The user entries, as the environment stores them."""

        def level_dict(level: Mapping[str, Any]) -> dict[str, Any]:
            result: dict[str, Any] = {}
            for key, value in level.items():
                if isinstance(value, dict):
                    result[key] = level_dict(value)
                elif not isinstance(value, ResourceInfo):
                    result[key] = value  # hooks, restricted_actions
                elif value.user_resource:
                    result[key] = value.value
            return result

        return level_dict(self._registry)

    def type_names(
        self, keep: Callable[[str, ResourceInfo], bool] | None = None
    ) -> list[str]:
        """Names of the types that are plugins or templates (for listing).

        :param keep: a filter on (name, info), e.g. support status, service
            availability and policy, which the engine supplies.
        """
        return [
            name
            for name, info in self._registry.items()
            if isinstance(info, ClassResourceInfo | TemplateResourceInfo)
            and (keep is None or keep(name, info))
        ]
