"""A stack's definition: template + parameters + conditions + runtime view.

:class:`StackDefinition` is what functions read through ``self.stack``:
parameter values, which resources exist (enabled by their condition),
their reference IDs and attributes (through a :class:`~.protocols.
StackView`), and the template's files and mappings.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from keel_heat_core.template import function
from keel_heat_core.template.base import Template
from keel_heat_core.template.conditions import Conditions
from keel_heat_core.template.protocols import PendingStackView, StackView
from keel_heat_core.template.rsrc_defn import (
    OutputDefinition,
    ResourceDefinition,
)


class StackDefinition:
    """Everything the functions of one stack read.

    :param template: the template.
    :param parameters: a mapping name -> converted value (pseudo
        parameters included), e.g. :mod:`.parameters`' ``Parameters``.
    :param view: runtime data of the resources; a :class:`PendingStackView`
        (nothing created yet) by default.
    """

    def __init__(
        self,
        template: Template,
        parameters: Mapping[str, Any],
        view: StackView | None = None,
    ) -> None:
        self.t = template
        self.parameters = parameters
        self.view: StackView = view if view is not None else PendingStackView()
        self._conditions: Conditions | None = None
        self._resources: dict[str, ResourceDefinition] | None = None
        self._outputs: dict[str, OutputDefinition] | None = None
        self._building = False

    def conditions(self) -> Conditions:
        """The parsed conditions (evaluated lazily, once each)."""
        if self._conditions is None:
            self._conditions = self.t.conditions(self)
        return self._conditions

    def resource_definitions(self) -> dict[str, ResourceDefinition]:
        """Definitions of the enabled resources, by name."""
        if self._resources is None:
            self._building = True
            try:
                self._resources = self.t.resource_definitions(
                    self, self.conditions()
                )
            finally:
                self._building = False
        return self._resources

    def resource_definition(self, name: str) -> ResourceDefinition:
        """The definition of one enabled resource, parsing only that one
        when the others were not needed yet (an engine node binds just
        its own resource).

        :raises KeyError: no such resource, or its condition is false.
        """
        if self._resources is not None:
            return self._resources[name]
        data = self.t.resources_section().get(name)
        if data is None:
            raise KeyError(name)
        self._building = True
        try:
            defn = self.t.enabled_resource_definition(
                self, self.conditions(), name, data
            )
        finally:
            self._building = False
        if defn is None:
            raise KeyError(name)
        return defn

    def outputs(self) -> dict[str, OutputDefinition]:
        """Definitions of the outputs, by name."""
        if self._outputs is None:
            self._outputs = self.t.outputs(self, self.conditions())
        return self._outputs

    def has_resource(self, name: Any) -> bool:
        """Whether ``name`` is an enabled resource of the stack."""
        if not isinstance(name, str):
            return False
        if self._building:
            return self.t.has_resource_named(name)
        return name in self.resource_definitions()

    def resource_type(self, name: str) -> str:
        defn = self.resource_definitions().get(name)
        return defn.resource_type if defn is not None else ""

    def reference_id(self, name: str) -> Any:
        """A resource's reference ID; its name until it has one."""
        ref = self.view.reference_id(name)
        return name if ref is None else ref

    def attribute_value(self, name: str, attr: Any, path: list[Any]) -> Any:
        """An attribute, followed along ``path`` (None for any miss)."""
        return self.view.attribute(name, attr, tuple(path))

    def all_attributes(self, name: str) -> Any:
        return self.view.all_attributes(name)

    def attribute_names(self, name: str) -> Collection[str] | None:
        return self.view.attribute_names(name, self.resource_type(name))

    def resource_facade(self, kind: str) -> Any:
        return self.view.resource_facade(kind)

    def availability_zones(self) -> list[str]:
        return self.view.availability_zones()

    def in_init(self, snippet: Any) -> bool:
        """Whether a parsed value needs a resource that is not created
        yet (its action is INIT or it has none)."""
        try:
            names = list(function.dependencies(snippet))
        except Exception:
            return False
        return any(
            self.view.resource_action(name) in (None, "INIT") for name in names
        )
