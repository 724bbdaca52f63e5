"""The lifecycle protocol: what the engine calls on a resource plugin.

The worker drives whatever object the plugin factory builds for a
resource. A :class:`~keel_heat_core.plugin_api.resource.Resource` is a
:class:`ResourcePlugin`: it has every member below (mypy checks that, in
``resource.py``). Most members are optional for a plugin, as in Heat: a
type without ``handle_update`` is replaced on any property change, one
without ``handle_check`` has nothing to check, and the worker's own unit
tests drive bare objects that have only a few of them.

So each capability the engine uses is declared once here, as a
:class:`~typing.Protocol`, with the one function that tells whether a
plugin has it (a :class:`~typing.TypeGuard`: after ``if
updates_in_place(plugin):`` mypy checks the call to ``handle_update``).
The engine asks these functions and never looks a member up by name
itself. The hooks of one action are named after it (``handle_<a>``,
``check_<a>_complete``, ``handle_<a>_cancel``); :func:`action_hooks`
finds them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from typing import Any, Protocol, TypeGuard


class ShowsState(Protocol):
    """Shows the state the engine writes for the resource."""

    action: str
    status: str
    status_reason: str


class HasPhysicalId(Protocol):
    """Knows its physical resource id (``resource_id_set``)."""

    resource_id: str | None


class HasStore(Protocol):
    """Keeps its persistent state in a :class:`.runtime.ResourceStore`;
    the engine swaps the store while a local action runs."""

    store: Any


class HasDefinition(Protocol):
    """Was built from a resource definition, its ``t``."""

    t: Any


class HasValidatedProperties(Protocol):
    """Has properties that validate their resolved values."""

    properties: Any


class DecidesReplace(Protocol):
    """Decides from the new property values whether to be replaced."""

    def needs_replace(self, after_props: Any) -> bool:
        """Whether the new properties force a replacement."""


class UpdatesInPlace(Protocol):
    """Can be updated in place."""

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> Any:
        """Start the update; see :mod:`.lifecycle`."""


class ReplacesOnTemplateDiff(Protocol):
    """Decides from the definition's other changes whether to be
    replaced."""

    def needs_replace_with_tmpl_diff(self, tmpl_diff: Any) -> bool:
        """Whether a template change besides properties forces it."""


class ReplacesWhenFailed(Protocol):
    """Decides whether it is replaced rather than updated when FAILED."""

    def needs_replace_failed(self) -> bool:
        """Whether a FAILED resource is replaced at update."""


class DeclaresUpdateAllowed(Protocol):
    """Names the properties that may change in place (a bare plugin;
    a Resource's schema says it with ``update_allowed``)."""

    @property
    def update_allowed_properties(self) -> Collection[str]:
        """The property names."""


class HasAttributes(Protocol):
    """Resolves ``get_attr``."""

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        """The value of attribute ``key`` (following ``path``)."""


class HasReference(Protocol):
    """Resolves ``get_resource`` / ``Ref``."""

    def FnGetRefId(self) -> str:  # noqa: N802 - Heat's name
        """The reference id."""


class AwaitsStack(Protocol):
    """Waits for another stack's traversal (the nested-stack types)."""

    def awaited_stack_id(self) -> str | None:
        """The stack whose end should wake the worker's polls."""


class RunsLocally(Protocol):
    """Says which of its actions may run before the resource lock."""

    def action_is_local(self, action: str) -> bool:
        """Whether ``action`` stays inside the engine and ends at once."""


class HasData(Protocol):
    """Keeps resource data (hooks remember what they paused)."""

    def data(self) -> dict[str, str]:
        """All resource data."""

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        """Store one item."""


class Preemptible(Protocol):
    """Can be told a newer traversal took over its running action."""

    def handle_preempt(self) -> None:
        """Stop what the action started elsewhere (a child stack)."""


class ResourcePlugin(
    ShowsState,
    HasPhysicalId,
    HasStore,
    HasDefinition,
    HasValidatedProperties,
    DecidesReplace,
    UpdatesInPlace,
    ReplacesOnTemplateDiff,
    ReplacesWhenFailed,
    HasAttributes,
    HasReference,
    RunsLocally,
    HasData,
    Preemptible,
    Protocol,
):
    """Every capability above: what a Resource offers the engine."""


def shows_state(plugin: object) -> TypeGuard[ShowsState]:
    """Whether ``plugin`` shows the state the engine writes."""
    return hasattr(plugin, "status")


def has_physical_id(plugin: object) -> TypeGuard[HasPhysicalId]:
    """Whether ``plugin`` has a ``resource_id``."""
    return hasattr(plugin, "resource_id")


def has_store(plugin: object) -> TypeGuard[HasStore]:
    """Whether ``plugin`` keeps its state in a store."""
    return getattr(plugin, "store", None) is not None


def has_definition(plugin: object) -> TypeGuard[HasDefinition]:
    """Whether ``plugin`` has the definition it was built from."""
    return hasattr(plugin, "t")


def has_validated_properties(
    plugin: object,
) -> TypeGuard[HasValidatedProperties]:
    """Whether ``plugin``'s properties can validate themselves."""
    properties = getattr(plugin, "properties", None)
    return callable(getattr(properties, "validate", None))


def decides_replace(plugin: object) -> TypeGuard[DecidesReplace]:
    """Whether ``plugin`` decides replacement from new properties."""
    return getattr(plugin, "needs_replace", None) is not None


def updates_in_place(plugin: object) -> TypeGuard[UpdatesInPlace]:
    """Whether ``plugin`` can be updated in place."""
    return hasattr(plugin, "handle_update")


def replaces_on_template_diff(
    plugin: object,
) -> TypeGuard[ReplacesOnTemplateDiff]:
    """Whether ``plugin`` judges the definition's other changes."""
    return getattr(plugin, "needs_replace_with_tmpl_diff", None) is not None


def replaces_when_failed(plugin: object) -> TypeGuard[ReplacesWhenFailed]:
    """Whether ``plugin`` decides how it leaves a FAILED state."""
    return callable(getattr(plugin, "needs_replace_failed", None))


def declares_update_allowed(
    plugin: object,
) -> TypeGuard[DeclaresUpdateAllowed]:
    """Whether ``plugin`` names the properties it updates in place."""
    return hasattr(plugin, "update_allowed_properties")


def has_attributes(plugin: object) -> TypeGuard[HasAttributes]:
    """Whether ``plugin`` resolves ``get_attr``."""
    return getattr(plugin, "FnGetAtt", None) is not None


def has_reference(plugin: object) -> TypeGuard[HasReference]:
    """Whether ``plugin`` resolves ``get_resource``."""
    return getattr(plugin, "FnGetRefId", None) is not None


def awaits_stack(plugin: object) -> TypeGuard[AwaitsStack]:
    """Whether ``plugin`` may wait for another stack."""
    return callable(getattr(plugin, "awaited_stack_id", None))


def runs_locally(plugin: object) -> TypeGuard[RunsLocally]:
    """Whether ``plugin`` says which actions may run before the lock."""
    return getattr(plugin, "action_is_local", None) is not None


def has_data(plugin: object) -> TypeGuard[HasData]:
    """Whether ``plugin`` keeps resource data."""
    return callable(getattr(plugin, "data", None))


def preemptible(plugin: object) -> TypeGuard[Preemptible]:
    """Whether ``plugin`` can be pre-empted."""
    return getattr(plugin, "handle_preempt", None) is not None


@dataclasses.dataclass(frozen=True)
class ActionHooks:
    """The hooks of one action of a plugin (None: the plugin has none).

    :ivar handle: ``handle_<a>(*args)``, starts the action; its result is
        the cookie the others get.
    :ivar check: ``check_<a>_complete(cookie)``, true when done.
    :ivar cancel: ``handle_<a>_cancel(cookie)``, on timeout or cancel.
    """

    handle: Callable[..., Any] | None
    check: Callable[[Any], Any] | None
    cancel: Callable[[Any], Any] | None

    @property
    def empty(self) -> bool:
        """Whether the plugin has neither handle nor check: nothing to
        run for the action."""
        return self.handle is None and self.check is None


def action_hooks(plugin: object, action: str) -> ActionHooks:
    """The hooks ``plugin`` has for ``action`` (``CREATE``, ``CHECK``…)."""
    lower = action.lower()
    return ActionHooks(
        getattr(plugin, f"handle_{lower}", None),
        getattr(plugin, f"check_{lower}_complete", None),
        getattr(plugin, f"handle_{lower}_cancel", None),
    )
