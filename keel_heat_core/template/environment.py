"""Stack environments: format, validation, the environment object, globals.

An environment is a YAML or JSON map with the sections ``parameters``,
``parameter_defaults``, ``resource_registry``, ``event_sinks``,
``encrypted_param_names`` and ``parameter_merge_strategies``
(:func:`parse`).  :class:`Environment` holds one stack's environment, with
its :class:`~keel_heat_core.template.registry.ResourceRegistry` chained to
the global environment (:func:`global_env`: every plugin from the
``keel_heat.resources`` entry points plus the files of ``environment.d``).
Merging several environment files is in
:mod:`~keel_heat_core.template.environment_merge`.
"""

from __future__ import annotations

import copy
import glob
import importlib.metadata
import logging
import os
import threading
from collections.abc import Mapping
from typing import Any

import yaml

from keel_heat_core import exception, nesting
from keel_heat_core.template import custom_constraints
from keel_heat_core.template import format as template_format
from keel_heat_core.template.registry import ResourceInfo, ResourceRegistry

LOG = logging.getLogger(__name__)

SECTIONS = (
    PARAMETERS,
    RESOURCE_REGISTRY,
    PARAMETER_DEFAULTS,
    ENCRYPTED_PARAM_NAMES,
    EVENT_SINKS,
    PARAMETER_MERGE_STRATEGIES,
) = (
    "parameters",
    "resource_registry",
    "parameter_defaults",
    "encrypted_param_names",
    "event_sinks",
    "parameter_merge_strategies",
)

RESOURCES_GROUP = "keel_heat.resources"
EVENT_SINKS_GROUP = "keel_heat.event_sinks"


def parse(env_str: str | bytes | None) -> dict[str, Any]:
    """Parse environment text into a validated map.

    :raises ValueError: for bad YAML (PyYAML's message), a document that is
        not a map, an unknown or empty section.
    """
    if env_str is None:
        return {}
    if isinstance(env_str, bytes):
        env_str = env_str.decode("utf-8")
    try:
        env = template_format.yaml_load(env_str)
    except RecursionError:
        raise nesting.too_deep("The environment") from None
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from exc
    if env is None:
        env = {}
    nesting.check(env, "The environment")
    if not isinstance(env, dict):
        raise ValueError(
            "The environment is not a valid YAML mapping data type."
        )
    return validate(env)


def validate(env: dict[str, Any]) -> dict[str, Any]:
    """Refuse unknown and empty sections.

    :raises ValueError: ``environment has wrong section "foo"`` or
        ``environment has empty section "parameters"``.
    """
    for section in env:
        if section not in SECTIONS:
            raise ValueError(f'environment has wrong section "{section}"')
        if env[section] is None:
            raise ValueError(f'environment has empty section "{section}"')
    return env


def default_for_missing(env: dict[str, Any]) -> None:
    """Add the missing sections (lists for sinks and encrypted names)."""
    for section in SECTIONS:
        if section not in env and section != PARAMETER_MERGE_STRATEGIES:
            if section in (ENCRYPTED_PARAM_NAMES, EVENT_SINKS):
                env[section] = []
            else:
                env[section] = {}


class Environment:
    """One stack's environment (or, with ``user_env=False``, the global
    one).

    :param env: a parsed environment: sections, or old-style flat
        parameters.
    :param user_env: ``False`` for the global environment.
    :param global_environment: the global environment to chain to; the
        process-wide one (:func:`global_env`) when ``None``.
    """

    def __init__(
        self,
        env: Mapping[str, Any] | None = None,
        user_env: bool = True,
        global_environment: Environment | None = None,
    ) -> None:
        env = dict(env or {})
        global_registry: ResourceRegistry | None = None
        self.event_sink_classes: dict[str, Any] = {}
        self.constraint_registry: Any = None
        self.global_environment: Environment | None = None
        if user_env:
            glob_env = global_environment or global_env()
            self.global_environment = glob_env
            global_registry = glob_env.registry
            self.event_sink_classes = glob_env.event_sink_classes
            self.constraint_registry = glob_env.constraint_registry
        self.param_defaults: dict[str, Any] = _section(
            env, PARAMETER_DEFAULTS, dict
        )
        self.registry: ResourceRegistry = ResourceRegistry(
            global_registry, self.param_defaults
        )
        self.registry.load(_section(env, RESOURCE_REGISTRY, dict))
        self.encrypted_param_names: list[str] = _section(
            env, ENCRYPTED_PARAM_NAMES, list
        )
        if PARAMETERS in env:
            self.params: dict[str, Any] = _section(env, PARAMETERS, dict)
        else:
            self.params = {
                k: v
                for k, v in env.items()
                if k
                not in (
                    PARAMETER_DEFAULTS,
                    ENCRYPTED_PARAM_NAMES,
                    EVENT_SINKS,
                    RESOURCE_REGISTRY,
                    PARAMETER_MERGE_STRATEGIES,
                )
            }
        self._event_sinks: list[dict[str, Any]] = []
        self._built_event_sinks: list[Any] | None = None
        self._update_event_sinks(_section(env, EVENT_SINKS, list))

    def load(self, env_snippet: Mapping[str, Any]) -> None:
        """Load another environment on top of this one."""
        self.registry.load(_section(env_snippet, RESOURCE_REGISTRY, dict))
        self.params.update(_section(env_snippet, PARAMETERS, dict))
        self.param_defaults.update(
            _section(env_snippet, PARAMETER_DEFAULTS, dict)
        )
        self._update_event_sinks(_section(env_snippet, EVENT_SINKS, list))

    def env_as_dict(self) -> dict[str, Any]:
        """The whole environment as stored (with encrypted_param_names)."""
        result = self.user_env_as_dict()
        result[ENCRYPTED_PARAM_NAMES] = self.encrypted_param_names
        return result

    def user_env_as_dict(self) -> dict[str, Any]:
        """The environment as users see it and nested stacks inherit it."""
        return {
            RESOURCE_REGISTRY: self.registry.as_dict(),
            PARAMETERS: self.params,
            PARAMETER_DEFAULTS: self.param_defaults,
            EVENT_SINKS: self._event_sinks,
        }

    def register_class(
        self,
        resource_type: str,
        resource_class: Any,
        path: list[str] | None = None,
    ) -> None:
        """Register an implementation for a type (at ``path``)."""
        self.registry.register_class(resource_type, resource_class, path)

    def register_event_sink(self, name: str, sink_class: Any) -> None:
        """Make an event sink type known (global environment)."""
        self.event_sink_classes[name] = sink_class

    def get_class(
        self,
        resource_type: str,
        resource_name: str | None = None,
        files: Mapping[str, Any] | None = None,
    ) -> Any:
        """The implementation of a type: a plugin class or a provider."""
        return self.registry.get_class(resource_type, resource_name, files)

    def get_class_to_instantiate(
        self, resource_type: Any, resource_name: str | None = None
    ) -> Any:
        """The class the engine instantiates for a resource's type."""
        return self.registry.get_class_to_instantiate(
            resource_type, resource_name
        )

    def get_resource_info(
        self,
        resource_type: str,
        resource_name: str | None = None,
        registry_type: type[ResourceInfo] | None = None,
        ignore: ResourceInfo | None = None,
    ) -> ResourceInfo:
        """The registry entry implementing a type (for a resource name)."""
        return self.registry.get_resource_info(
            resource_type, resource_name, registry_type, ignore
        )

    def get_constraint(self, name: str) -> Any:
        """The custom constraint class registered under ``name``."""
        registry = (
            self.constraint_registry or custom_constraints.default_registry()
        )
        return registry.get_constraint(name)

    def _update_event_sinks(self, sinks: list[Any]) -> None:
        for sink in sinks:
            if not isinstance(sink, Mapping) or "type" not in sink:
                raise exception.StackValidationFailed(
                    message="Each event sink must be a map with a type"
                )
            if sink["type"] not in self.event_sink_classes:
                # Heat answers a bare KeyError (500) here.
                raise exception.StackValidationFailed(
                    message=f'Unknown event sink type "{sink["type"]}"'
                )
        self._event_sinks.extend(sinks)
        self._built_event_sinks = None

    def get_event_sinks(self) -> list[Any]:
        """The event sink objects, built from their entry points."""
        if self._built_event_sinks is None:
            built = []
            for sink in self._event_sinks:
                kwargs = dict(sink)
                sink_class = self.event_sink_classes[kwargs.pop("type")]
                if callable(sink_class) and not isinstance(sink_class, type):
                    sink_class = sink_class()
                built.append(sink_class(**kwargs))
            self._built_event_sinks = built
        return self._built_event_sinks


def _section(env: Mapping[str, Any], name: str, kind: type) -> Any:
    value = env.get(name)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        # Heat fails on these with raw AttributeError/TypeError.
        what = "a map" if kind is dict else "a list"
        raise exception.StackValidationFailed(
            message=f'environment section "{name}" must be {what}'
        )
    return value


def get_child_environment(
    parent_env: Environment,
    child_params: Mapping[str, Any] | None,
    item_to_remove: ResourceInfo | None = None,
    child_resource_name: str | None = None,
) -> Environment:
    """The environment of a nested stack.

    The child inherits the parent's registry and ``parameter_defaults``;
    its parameters are ``child_params`` (flat values, or an environment
    loaded on top).  The registry entry that made the template resource is
    removed, and only the parent's overrides for ``child_resource_name``
    (plus matching globs) are kept.
    """
    flat = child_params is not None and not any(
        section in child_params for section in SECTIONS
    )
    child_env = copy.deepcopy(parent_env.user_env_as_dict())
    child_env[PARAMETERS] = dict(child_params or {}) if flat else {}
    new_env = Environment(global_environment=parent_env.global_environment)
    new_env.load(child_env)
    if not flat and child_params is not None:
        new_env.load(child_params)
    if item_to_remove is not None:
        new_env.registry.remove_item(item_to_remove)
    if child_resource_name:
        new_env.registry.remove_resources_except(child_resource_name)
    return new_env


def read_global_environment(env: Environment, env_dir: str) -> None:
    """Load every file of ``env_dir`` into the global environment.

    Files are taken in sorted name order (Heat: directory order); a file
    that does not parse is logged and skipped.
    """
    try:
        paths = sorted(glob.glob(os.path.join(env_dir, "*")))
    except OSError:
        LOG.exception("Failed to read %s", env_dir)
        return
    for path in paths:
        try:
            with open(path) as handle:
                LOG.info("Loading %s", path)
                body = parse(handle.read())
                default_for_missing(body)
                env.load(body)
        except (
            OSError,
            ValueError,
            exception.HeatException,
        ):
            LOG.exception("Failed to parse %s", path)


def _entry_point_loaders(group: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for ep in importlib.metadata.entry_points(group=group):
        found[ep.name] = ep.load
    return found


def build_global_env(
    resource_classes: Mapping[str, Any] | None = None,
    env_dir: str | None = None,
    event_sinks: Mapping[str, Any] | None = None,
    constraint_registry: Any = None,
) -> Environment:
    """Build a global environment.

    :param resource_classes: type name to plugin class (or loader); the
        ``keel_heat.resources`` entry points when ``None``.
    :param env_dir: the ``environment.d`` directory to load, if any.
    :param event_sinks: sink name to class; ``keel_heat.event_sinks`` entry
        points when ``None``.
    """
    env = Environment({}, user_env=False)
    env.constraint_registry = (
        constraint_registry or custom_constraints.default_registry()
    )
    if resource_classes is None:
        resource_classes = _entry_point_loaders(RESOURCES_GROUP)
    for name, cls in resource_classes.items():
        env.register_class(name, cls)
    if event_sinks is None:
        event_sinks = _entry_point_loaders(EVENT_SINKS_GROUP)
    for name, sink in event_sinks.items():
        env.register_event_sink(name, sink)
    if env_dir:
        read_global_environment(env, env_dir)
    return env


_global: Environment | None = None
_global_lock = threading.Lock()


def global_env() -> Environment:
    """The process-wide global environment (built on first use, from the
    installed entry points; :func:`set_global_env` installs the one the
    engine builds at start-up with its ``environment_dir``)."""
    global _global
    with _global_lock:
        if _global is None:
            _global = build_global_env()
        return _global


def set_global_env(env: Environment | None) -> None:
    """Install the global environment (``None``: rebuild lazily)."""
    global _global
    with _global_lock:
        _global = env
