"""Resource and output definitions built from a template."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from keel_heat_core import exception
from keel_heat_core.template import function
from keel_heat_core.template import properties as props

if TYPE_CHECKING:
    from keel_heat_core.template.stack_definition import StackDefinition

#: Section names used in dependency and validation paths (CFN spelling,
#: as Heat writes them, e.g. ``r2.Properties.value``).
PROPERTIES, METADATA = "Properties", "Metadata"


def _absent(value: Any) -> bool:
    while isinstance(value, function.Macro):
        value = value.parsed
    return value is function.ABSENT


class _Unassigned(function.Function):
    """A required property unset by a false two-argument ``if``."""

    def result(self) -> Any:
        raise ValueError(f"Property {self.fn_name} not assigned")


def _unset_absent(data: Mapping[Any, Any], schema: Any) -> Any:
    """Drop properties that a false two-argument ``if`` unsets; a required
    one without default then reports "not assigned" at its own path."""
    out = {}
    for key, value in data.items():
        if not _absent(value):
            out[key] = value
            continue
        if key in schema:
            prop = props.Property(schema[key], key)
            if prop.required() and not prop.has_default():
                out[key] = _Unassigned(None, str(key), None)
    return out


class ResourceDefinition:
    """One resource of a template, with its fields parsed.

    :param name: the resource name.
    :param resource_type: the type, a literal string.
    :param properties: parsed properties (functions unresolved), or None.
    :param metadata: parsed metadata, or None.
    :param depends: explicit dependencies (names), or None.
    :param deletion_policy: ``Delete``, ``Retain`` or ``Snapshot`` (None
        means the default, Delete).
    :param update_policy: parsed update policy, or None.
    :param description: the description, or None.
    :param external_id: parsed external id, or None.
    :param condition: the condition (name, boolean or parsed function).
    """

    def __init__(
        self,
        name: str,
        resource_type: str,
        properties: Any = None,
        metadata: Any = None,
        depends: list[str] | None = None,
        deletion_policy: str | None = None,
        update_policy: Any = None,
        description: str | None = None,
        external_id: Any = None,
        condition: Any = None,
    ) -> None:
        self.name = name
        self.resource_type = resource_type
        self._properties = properties
        self._metadata = metadata
        self._depends = list(depends or [])
        self._deletion_policy = deletion_policy
        self._update_policy = update_policy
        self.description = description or ""
        self._external_id = external_id
        self._condition = condition
        #: the stack definition that built this one (set by the template)
        self.stack: StackDefinition | None = None

    def properties_snippet(self) -> Any:
        """The parsed properties (functions unresolved)."""
        return {} if self._properties is None else self._properties

    def properties_data(self) -> Any:
        """The resolved properties (null elision applied)."""
        return function.resolve(self.properties_snippet())

    def metadata(self) -> Any:
        """The resolved metadata (``{}`` by default)."""
        if self._metadata is None:
            return {}
        return function.resolve(self._metadata)

    def update_policy_data(self) -> Any:
        """The resolved update policy (``{}`` by default)."""
        if self._update_policy is None:
            return {}
        return function.resolve(self._update_policy)

    def properties(self, schema: Any, context: Any = None) -> Any:
        """The ``Properties`` over this definition's values.

        :param schema: the resource type's properties schema.
        :param context: the request context (custom constraints).
        """
        data = self.properties_snippet()
        if isinstance(data, function.Function):
            data = function.resolve(data) or {}
        elif isinstance(data, Mapping):
            data = _unset_absent(data, schema)
        stack = self.stack
        return props.Properties(
            schema,
            data,
            resolver=function.resolve,
            context=context,
            section=PROPERTIES,
            rsrc_description=self.description,
            in_init=None if stack is None else stack.in_init,
        )

    def update_policy(self, schema: Any = None, context: Any = None) -> Any:
        """The ``Properties`` over the update policy; without
        a schema, the resolved update policy (``{}`` by default), as
        :meth:`update_policy_data`."""
        if schema is None:
            return self.update_policy_data()
        data = self._update_policy
        if isinstance(data, function.Function):
            data = function.resolve(data)
        return props.Properties(
            schema,
            data or {},
            resolver=function.resolve,
            context=context,
            section="UpdatePolicy",
        )

    def deletion_policy(self) -> str:
        """``Delete``, ``Retain`` or ``Snapshot`` (Retain when external)."""
        if self.external_id() is not None:
            return "Retain"
        return self._deletion_policy or "Delete"

    def external_id(self) -> Any:
        return function.resolve(self._external_id)

    def condition(self) -> Any:
        return self._condition

    def explicit_dependencies(self) -> list[str]:
        return list(self._depends)

    def validate(self) -> None:
        """Validate the functions in the properties and metadata.

        :raises StackValidationFailed: with a path that starts at
            ``Properties`` or ``Metadata``.
        """
        function.validate(self._properties, PROPERTIES)
        function.validate(self._metadata, METADATA)

    def dependencies(self, stack: StackDefinition) -> Iterator[str]:
        """Names of the resources this one needs, explicit ones first.

        Explicit dependencies on a resource disabled by a condition are
        dropped; any other unknown name is an error.

        :raises InvalidTemplateReference: for an unknown name.
        :raises InvalidExternalResourceDependency: for explicit dependencies
            of a resource with an external id.
        """
        if self._depends and self._external_id is not None:
            raise exception.InvalidExternalResourceDependency(
                external_id=self.external_id(),
                resource_type=self.resource_type,
            )
        explicit = []
        for dep in self._depends:
            if stack.has_resource(dep):
                explicit.append(dep)
            elif not stack.t.has_resource_named(dep):
                raise exception.InvalidTemplateReference(
                    resource=dep, key=self.name
                )
        implicit = itertools.chain(
            function.dependencies(
                self._properties, f"{self.name}.{PROPERTIES}"
            ),
            function.dependencies(self._metadata, f"{self.name}.{METADATA}"),
        )
        return itertools.chain(explicit, implicit)

    def required_resource_names(self, stack: StackDefinition) -> set[str]:
        return set(self.dependencies(stack))

    def dep_attrs(self, resource_name: str) -> Iterator[Any]:
        return itertools.chain(
            function.dep_attrs(self._properties, resource_name),
            function.dep_attrs(self._metadata, resource_name),
        )

    def all_dep_attrs(self) -> Iterator[tuple[str, Any]]:
        """``(resource, attribute)`` pairs this definition reads."""
        return itertools.chain(
            function.all_dep_attrs(self._properties),
            function.all_dep_attrs(self._metadata),
        )

    def freeze(self, **overrides: Any) -> ResourceDefinition:
        """A copy with its functions resolved (what a plugin's
        ``handle_restore`` returns); keyword arguments replace fields.

        :param overrides: any of ``properties``, ``metadata``,
            ``depends``, ``deletion_policy``, ``update_policy``,
            ``description``, ``external_id`` (the condition is kept).
        :raises TypeError: for another keyword.
        """
        fields: dict[str, Any] = {
            "properties": self._properties,
            "metadata": self._metadata,
            "depends": self._depends,
            "deletion_policy": self._deletion_policy,
            "update_policy": self._update_policy,
            "description": self.description,
            "external_id": self._external_id,
        }
        unknown = set(overrides) - set(fields)
        if unknown:
            raise TypeError(
                f"freeze() got unexpected fields {sorted(unknown)}"
            )
        values = {
            key: overrides[key]
            if key in overrides
            else function.resolve(value)
            for key, value in fields.items()
        }
        frozen = ResourceDefinition(
            self.name,
            self.resource_type,
            condition=self._condition,
            **values,
        )
        frozen.stack = self.stack
        return frozen

    def render_hot(self) -> dict[str, Any]:
        """The definition as a HOT resource snippet (what the engine
        stores and compares on update); empty fields are left out."""
        out: dict[str, Any] = {"type": self.resource_type}
        fields = (
            ("properties", self._properties),
            ("metadata", self._metadata),
            ("depends_on", self._depends or None),
            ("deletion_policy", self._deletion_policy),
            ("update_policy", self._update_policy),
            ("external_id", self._external_id),
            ("condition", self._condition),
        )
        for key, value in fields:
            rendered = function.unparse(value)
            if rendered is not None and rendered is not function.ABSENT:
                out[key] = rendered
        if self.description:
            out["description"] = self.description
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceDefinition):
            return NotImplemented
        return (self.name, self.render_hot()) == (
            other.name,
            other.render_hot(),
        )

    def __sub__(self, before: object) -> DefinitionDiff:
        if not isinstance(before, ResourceDefinition):
            return NotImplemented
        return DefinitionDiff(before, self)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<ResourceDefinition {self.name} ({self.resource_type})>"


def _resolved(value: Any) -> Any:
    """A field's value with its functions resolved; when that fails
    (a function of an older template that no longer resolves), the
    field as written, so that a diff still sees a change."""
    try:
        return function.resolve(value)
    except Exception:
        return function.unparse(value)


class DefinitionDiff:
    """What an update changes in one resource's definition: the
    ``tmpl_diff`` a plugin's ``handle_update`` and
    ``needs_replace_with_tmpl_diff`` get.

    True when the properties, the metadata or the update policy differ;
    :meth:`changed` also counts the other fields (type, dependencies,
    deletion policy, external id), which make an update run the plugin's
    ``handle_update`` with nothing in this diff, as in Heat. Each field
    is resolved and compared once per diff, however often it is asked.
    """

    def __init__(
        self,
        before: ResourceDefinition,
        after: ResourceDefinition,
        properties_changed: bool | None = None,
    ) -> None:
        self.before = before
        self.after = after
        self._verdicts: dict[str, bool] = {}
        # the engine knows from the stored values (the old definition's
        # functions resolved in the old stack, not this one)
        if properties_changed is not None:
            self._verdicts["_properties"] = properties_changed

    def _field(self, name: str) -> bool:
        if name not in self._verdicts:
            old = _resolved(getattr(self.before, name))
            self._verdicts[name] = bool(
                old != _resolved(getattr(self.after, name))
            )
        return self._verdicts[name]

    def properties_changed(self) -> bool:
        """The properties differ."""
        return self._field("_properties")

    def metadata_changed(self) -> bool:
        """The metadata differs."""
        return self._field("_metadata")

    def update_policy_changed(self) -> bool:
        """The update policy differs."""
        return self._field("_update_policy")

    def changed(self) -> bool:
        """Anything of the definition differs (the resource is updated
        even when no property changed)."""
        if self:
            return True
        before, after = self.before, self.after
        return bool(
            before.resource_type != after.resource_type
            or before.deletion_policy() != after.deletion_policy()
            or sorted(before.explicit_dependencies())
            != sorted(after.explicit_dependencies())
            or self._field("_external_id")
        )

    def __bool__(self) -> bool:
        return (
            self.properties_changed()
            or self.metadata_changed()
            or self.update_policy_changed()
        )

    def __repr__(self) -> str:
        return (
            f"<DefinitionDiff {self.after.name} properties="
            f"{self.properties_changed()} metadata={self.metadata_changed()}"
            f" update_policy={self.update_policy_changed()}>"
        )


class OutputDefinition:
    """One output: a parsed value and a description.

    :param name: the output name.
    :param value: the parsed value (None when its condition is false).
    :param description: the description as written, or None.
    """

    def __init__(self, name: str, value: Any, description: Any = None) -> None:
        self.name = name
        self._value = value
        self._description = description

    def validate(self, section: str = "value") -> None:
        """Validate the functions of the value.

        :raises StackValidationFailed: with a path starting at ``section``.
        """
        function.validate(self._value, section)

    def get_value(self) -> Any:
        """Resolve the value (may raise anything the functions raise)."""
        return function.resolve(self._value)

    def description(self) -> str:
        if self._description is None:
            return "No description given"
        return str(self._description)

    def required_resource_names(self) -> set[str]:
        return set(function.dependencies(self._value))

    def dep_attrs(self, resource_name: str) -> Iterator[Any]:
        return function.dep_attrs(self._value, resource_name)

    def all_dep_attrs(self) -> Iterator[tuple[str, Any]]:
        """``(resource, attribute)`` pairs this output reads."""
        return function.all_dep_attrs(self._value)
