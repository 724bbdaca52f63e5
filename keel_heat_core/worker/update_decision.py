"""What the plugin and the definitions say about an update.

Read-only questions the worker asks before it updates a resource in
place (:class:`~keel_heat_core.worker.resource.ConvergenceResource`):
whether its type now names another class, whether a FAILED resource is
fixed in place, the plugin's own ``_needs_update``, and the stored
property values as the plugin's :class:`Properties`. Nothing here
writes state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.plugin_api import properties as props_mod
from keel_heat_core.plugin_api import protocol as lifecycle
from keel_heat_core.plugin_api.resource import Resource as PluginResource


def instantiated_class(definition: Any) -> Any:
    """The class a definition's type resolves to through its template's
    environment, or None when the definition cannot tell."""
    resolve = getattr(definition, "instantiated_class", None)
    if not callable(resolve):
        return None
    try:
        return resolve()
    except Exception:  # no longer known (a pack gone): names decide
        return None


def type_changed(old_type: str, old_definition: Any, definition: Any) -> bool:
    """Whether the new type is implemented by another class than the
    old one was (as Heat decides): a rename to an alias of the same
    class, or from one template resource type to another, updates in
    place; the same name mapped to another class replaces. A
    deprecated class's named substitute also updates in place.
    Definitions that cannot name their class compare type names."""
    old_cls = instantiated_class(old_definition)
    new_cls = instantiated_class(definition)
    if old_cls is None or new_cls is None:
        return bool(old_type != definition.resource_type)
    if old_cls is new_cls:
        return False
    status = getattr(old_cls, "support_status", None)
    substitute = getattr(status, "substitute_class", None)
    return bool(substitute is None or substitute is not new_cls)


def fixed_in_place(plugin: object, row_action: str) -> bool:
    """Whether a FAILED resource is updated rather than replaced: a
    plugin that says so (a child stack that exists is updated, and
    its own resources decide), unless a check failed it."""
    if row_action == r.CHECK or not lifecycle.replaces_when_failed(plugin):
        return False
    return not plugin.needs_replace_failed()


def plugin_definition(plugin: object, definition: Any) -> Any:
    """The definition the plugin was built with (its ``t``), or
    ``definition`` for a plugin without one."""
    if lifecycle.has_definition(plugin):
        return plugin.t
    return definition


def plugin_needs_update(
    plugin: object, old_definition: Any, before: props_mod.Properties | None
) -> bool | None:
    """A plugin's own ``_needs_update`` (OS::Heat::None never updates,
    an UpdateWaitConditionHandle is always replaced); None when the
    plugin keeps the engine's rule (any change of the definition).

    :raises UpdateReplace: the plugin asks for a replacement.
    """
    if (
        not isinstance(plugin, PluginResource)
        or type(plugin)._needs_update is PluginResource._needs_update
        or before is None
    ):
        return None
    return bool(
        plugin._needs_update(
            plugin.t, old_definition, plugin.properties, before, None
        )
    )


def before_properties(
    plugin: object, old_properties: Mapping[str, Any] | None
) -> props_mod.Properties | None:
    """The stored (resolved) property values as the plugin's
    Properties, translated as its own are; None for a plugin that is
    not a plugin_api Resource."""
    if not isinstance(plugin, PluginResource):
        return None
    before = props_mod.Properties(
        plugin.properties_schema,
        dict(old_properties or {}),
        context=plugin.context,
        section="Properties",
    )
    plugin.translate_properties(before, ignore_resolve_error=True)
    return before
