"""Resource definitions of a stored template, as the engine uses them.

:class:`StoredTemplate` parses one ``raw_template`` row (template,
environment, files) once; the engine caches it per template id. A
traversal node resolves the definition of its resource against a
:class:`~keel_heat_core.template.protocols.StackView` built from its
predecessors' node data (never by reading other resource rows).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from keel_heat_core.model.identifier import StackIdentifier
from keel_heat_core.plugin_api import properties as props_mod
from keel_heat_core.template import versions
from keel_heat_core.template.environment import Environment
from keel_heat_core.template.parameters import make_parameters
from keel_heat_core.template.protocols import PendingStackView, StackView
from keel_heat_core.template.rsrc_defn import DefinitionDiff, OutputDefinition
from keel_heat_core.template.stack_definition import StackDefinition


class StoredTemplate(Mapping[str, "TemplateResource"]):
    """A parsed stored template: ``{name: TemplateResource}``.

    :param template: the parsed template document.
    :param environment: the stored environment document.
    :param files: the files map.
    :param identifier: the stack identity (pseudo parameters).
    """

    def __init__(
        self,
        template: Mapping[str, Any],
        environment: Mapping[str, Any] | None,
        files: Mapping[str, Any] | None,
        identifier: StackIdentifier | None = None,
    ) -> None:
        self.env = Environment(environment or {})
        self.t = versions.load(template, files=files, env=self.env)
        tmpl: Any = self.t
        self.parameters = make_parameters(
            tmpl, self.env.params, self.env.param_defaults, identifier
        )
        pending = StackDefinition(self.t, self.parameters, PendingStackView())
        self._pending = pending
        self._dep_attrs: dict[str, set[Any]] | None = None
        self._outputs_view = ThreadView()
        self._outputs: dict[str, OutputDefinition] | None = None
        self._outputs_lock = threading.Lock()
        self._output_names: dict[str | None, frozenset[str] | None] | None = (
            None
        )
        self._resources = {
            name: TemplateResource(self, name, rdefn.resource_type)
            for name, rdefn in pending.resource_definitions().items()
        }

    def __getitem__(self, name: str) -> TemplateResource:
        return self._resources[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._resources)

    def __len__(self) -> int:
        return len(self._resources)

    def stack_definition(self, view: StackView) -> StackDefinition:
        """A definition of the stack whose functions read ``view``."""
        return StackDefinition(self.t, self.parameters, view)

    @contextlib.contextmanager
    def outputs(
        self, view: StackView
    ) -> Iterator[Mapping[str, OutputDefinition]]:
        """The outputs' definitions, their functions reading ``view``
        in this thread until the block ends.

        The outputs are parsed once per stored template (a show of a
        stack with 100 outputs parsed them all at every request); their
        functions read the view the calling thread bound, so readers of
        the same stack in other threads do not see each other's.
        """
        with self._outputs_view.bound(view):
            if self._outputs is None:
                with self._outputs_lock:
                    if self._outputs is None:
                        stack = StackDefinition(
                            self.t, self.parameters, self._outputs_view
                        )
                        self._outputs = stack.outputs()
            yield self._outputs

    def output_resource_names(
        self, key: str | None = None
    ) -> frozenset[str] | None:
        """The resources the outputs' values refer to: every output's, or
        only output ``key``'s. Worked out once per stored template.

        :returns: ``None`` when they are not known: the outputs section
            does not parse, or an output names a resource the template
            does not have. The read of the outputs then reports why, as
            each output's error.
        """
        if self._output_names is None:
            try:
                defined = self._pending.outputs()
            except Exception:
                return None
            names: dict[str | None, frozenset[str] | None] = {}
            for name, output in defined.items():
                try:
                    names[name] = frozenset(output.required_resource_names())
                except Exception:
                    names[name] = None
            every = list(names.values())
            names[None] = (
                None
                if any(one is None for one in every)
                else frozenset().union(*(one or () for one in every))
            )
            self._output_names = names
        return self._output_names.get(key, frozenset())

    def dependency_names(self, name: str) -> list[str]:
        """Names ``name`` depends on (explicit, then implicit)."""
        rdefn = self._pending.resource_definitions()[name]
        return list(dict.fromkeys(rdefn.dependencies(self._pending)))

    def dep_attrs(self, name: str) -> set[Any]:
        """Attributes of ``name`` that other resources or outputs use."""
        if self._dep_attrs is None:
            # one pass over the template for every resource, not one per
            # node: a node asks for its own resource only
            found: dict[str, set[Any]] = {}
            pairs: list[Any] = [
                rdefn.all_dep_attrs()
                for rdefn in self._pending.resource_definitions().values()
            ]
            pairs += [
                o.all_dep_attrs() for o in self._pending.outputs().values()
            ]
            for source in pairs:
                for res, attr in source:
                    found.setdefault(res, set()).add(attr)
            self._dep_attrs = found
        return set(self._dep_attrs.get(name, ()))


class ThreadView:
    """A :class:`StackView` that reads the view its caller's thread
    bound with :meth:`bound`."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextlib.contextmanager
    def bound(self, view: StackView) -> Iterator[None]:
        before = getattr(self._local, "view", None)
        self._local.view = view
        try:
            yield
        finally:
            self._local.view = before

    @property
    def _view(self) -> StackView:
        view: StackView | None = getattr(self._local, "view", None)
        if view is None:
            raise RuntimeError("no stack view bound in this thread")
        return view

    def reference_id(self, name: str) -> str | None:
        return self._view.reference_id(name)

    def attribute(self, name: str, attr: str, path: Sequence[Any] = ()) -> Any:
        return self._view.attribute(name, attr, path)

    def all_attributes(self, name: str) -> dict[str, Any] | None:
        return self._view.all_attributes(name)

    def attribute_names(
        self, name: str, resource_type: str
    ) -> Collection[str] | None:
        return self._view.attribute_names(name, resource_type)

    def resource_facade(self, kind: str) -> Any:
        return self._view.resource_facade(kind)

    def availability_zones(self) -> list[str]:
        return self._view.availability_zones()

    def resource_action(self, name: str) -> str | None:
        return self._view.resource_action(name)


class TemplateResource:
    """One resource of a :class:`StoredTemplate` (engine ``Definition``)."""

    def __init__(
        self, stored: StoredTemplate, name: str, resource_type: str
    ) -> None:
        self.stored = stored
        self.name = name
        self.resource_type = resource_type

    def dependency_names(self) -> list[str]:
        return self.stored.dependency_names(self.name)

    def instantiated_class(self) -> Any:
        """The class the type resolves to in this template's environment
        (one class for every template resource)."""
        return self.stored.env.get_class_to_instantiate(
            self.resource_type, self.name
        )

    def bind(self, view: StackView) -> BoundDefinition:
        """This definition with its functions reading ``view``."""
        stack = self.stored.stack_definition(view)
        return BoundDefinition(stack.resource_definition(self.name))

    def resolve_properties(self, view: StackView) -> dict[str, Any]:
        """Resolved property values (null elision applied)."""
        return dict(self.bind(view).properties_data() or {})

    def referenced_attributes(self) -> set[Any]:
        """Attributes of this resource used elsewhere (for node data)."""
        return self.stored.dep_attrs(self.name)

    @property
    def template_definition(self) -> Any:
        """The template's ResourceDefinition, its functions reading no
        stack (what an update compares, old against new)."""
        return self.stored._pending.resource_definitions()[self.name]

    def template_diff(
        self, before: Any, properties_changed: bool
    ) -> DefinitionDiff | None:
        """What an update from ``before`` (this resource's definition in
        the template it has now) changes: the plugin's ``tmpl_diff``.

        :param properties_changed: what the engine found comparing the
            stored property values with the new ones.
        """
        old = getattr(before, "template_definition", None)
        if old is None:
            return None
        return DefinitionDiff(
            old, self.template_definition, properties_changed
        )

    @property
    def description(self) -> str:
        """The resource's ``description`` in the template (or "")."""
        rdefn = self.stored._pending.resource_definitions()[self.name]
        return str(rdefn.description or "")

    @property
    def deletion_policy(self) -> str:
        rdefn = self.stored._pending.resource_definitions()[self.name]
        return str(rdefn.deletion_policy())

    @property
    def external_id(self) -> Any:
        """The physical id the resource adopts (``external_id``), or None."""
        rdefn = self.stored._pending.resource_definitions()[self.name]
        return rdefn.external_id()


class BoundDefinition:
    """A template ResourceDefinition as plugin_api's Resource expects it
    (``properties(schema, context)``, ``update_policy(schema, context)``).
    """

    def __init__(self, rdefn: Any) -> None:
        self._rdefn = rdefn
        self.name: str = rdefn.name
        self.resource_type: str = rdefn.resource_type

    def properties_data(self) -> Any:
        return self._rdefn.properties_data()

    def properties(self, schema: Mapping[str, Any], context: Any) -> Any:
        return props_mod.Properties(
            schema,
            self._rdefn.properties_data() or {},
            context=context,
            section="Properties",
        )

    def update_policy(self, schema: Mapping[str, Any], context: Any) -> Any:
        return props_mod.Properties(
            schema,
            self._rdefn.update_policy() or {},
            context=context,
            section="UpdatePolicy",
        )

    def metadata(self) -> Any:
        return self._rdefn.metadata()

    def deletion_policy(self) -> str:
        return str(self._rdefn.deletion_policy())

    def external_id(self) -> Any:
        return self._rdefn.external_id()

    def freeze(self) -> BoundDefinition:
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BoundDefinition):
            return NotImplemented
        return (
            self.resource_type == other.resource_type
            and self.properties_data() == other.properties_data()
            and self.metadata() == other.metadata()
            and self.deletion_policy() == other.deletion_policy()
        )

    def __hash__(self) -> int:
        return hash((self.name, self.resource_type))
