"""Plugins: the registry of named plugins and the pluggy hooks.

Start-up code calls :func:`load_plugins` once::

    plugins = load_plugins(conf)
    server_cls = plugins.registry.load(RESOURCES, "OS::Nova::Server")
    plugins.hooks.stack_pre_operation(ctx, stack, "CREATE")

The services' start-up (``keel-heat-engine``, ``keel-heat-all``) then
calls :func:`install_hooks` so that engine code reaches the manager
through :func:`current_hooks`; elsewhere (tests, tools) that returns a
manager of the core's own hooks.

Packs import :data:`hookimpl` through ``keel_heat_core.plugin_api``; the
registry refuses a distribution made for another plugin API version
(:func:`~keel_heat_core.plugins.registry.check_api_version`).
"""

import dataclasses
import importlib.metadata as metadata
from collections.abc import Iterable

from oslo_config import cfg

from keel_heat_core.plugins import registry as _registry
from keel_heat_core.plugins.errors import (
    DuplicatePluginError,
    PluginApiVersionError,
    PluginError,
    PluginLoadError,
    RequiredPackError,
)
from keel_heat_core.plugins.hooks import HookManager
from keel_heat_core.plugins.hooks import current as current_hooks
from keel_heat_core.plugins.hooks import install as install_hooks
from keel_heat_core.plugins.registry import (
    CLIENTS,
    CONSTRAINTS,
    EVENT_SINKS,
    HOOKS,
    NAMED_GROUPS,
    RESOURCES,
    TEMPLATES,
    PackInfo,
    PluginEntry,
    PluginRegistry,
    discover,
)
from keel_heat_core.plugins.spec import hookimpl

__all__ = [
    "CLIENTS",
    "CONSTRAINTS",
    "EVENT_SINKS",
    "HOOKS",
    "NAMED_GROUPS",
    "RESOURCES",
    "TEMPLATES",
    "DuplicatePluginError",
    "HookManager",
    "PackInfo",
    "PluginApiVersionError",
    "PluginEntry",
    "PluginError",
    "PluginLoadError",
    "PluginRegistry",
    "Plugins",
    "RequiredPackError",
    "build_registry",
    "current_hooks",
    "discover",
    "hookimpl",
    "install_hooks",
    "load_plugins",
]


@dataclasses.dataclass
class Plugins:
    """The registry and hook manager of one process."""

    registry: PluginRegistry
    hooks: HookManager


def build_registry(
    conf: cfg.ConfigOpts,
    distributions: Iterable[metadata.Distribution] | None = None,
) -> PluginRegistry:
    """Build the registry from the installed distributions and ``[plugins]``.

    :param conf: configuration with the ``[plugins]`` options registered
    :param distributions: what to scan; the installed ones by default
    :raises DuplicatePluginError: two enabled packs register one name
    :raises RequiredPackError: a required pack is missing, disabled or
        fails to load
    """
    registry = PluginRegistry(
        _registry.discover(distributions),
        disabled_packs=conf.plugins.disabled_packs,
        disabled_types=conf.plugins.disabled_types,
    )
    registry.check_required(conf.plugins.required_packs)
    return registry


def load_plugins(
    conf: cfg.ConfigOpts,
    distributions: Iterable[metadata.Distribution] | None = None,
) -> Plugins:
    """Set up the plugins of a process; every start-up check happens here.

    :param conf: configuration with the ``[plugins]`` options registered
    :param distributions: what to scan; the installed ones by default
    :raises PluginError: when start-up must not go on
    """
    registry = build_registry(conf, distributions)
    registry.check_api_versions()
    hooks = HookManager(registry.hook_entries())
    hooks.check_pending()
    return Plugins(registry, hooks)
