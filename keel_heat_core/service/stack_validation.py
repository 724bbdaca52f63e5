"""Validate a new stack, or a template for ``POST /validate``, in Heat's
order.

The template layer's :func:`~keel_heat_core.template.validation.
validate_stack` owns the order (structure, parameters, parameter groups,
conditions, resource definitions, dependencies, resources, outputs); this
module adds what needs the engine: the resource plugin classes (their
properties, and template resources), ``get_attr`` names checked against
the plugins' attribute schemas, and Heat's circular-dependency message.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core.model.identifier import StackIdentifier
from keel_heat_core.model.template_resource import TemplateResource
from keel_heat_core.plugin_api import Resource
from keel_heat_core.plugin_api.stack_resource import StackResource
from keel_heat_core.template import provider, registry, validation, versions
from keel_heat_core.template.environment import Environment
from keel_heat_core.template.parameter_groups import ParameterGroups
from keel_heat_core.template.parameters import Parameters, make_parameters
from keel_heat_core.template.protocols import PendingStackView
from keel_heat_core.template.rsrc_defn import ResourceDefinition
from keel_heat_core.template.stack_definition import StackDefinition

#: Builds the stack a plugin sees from ``(template, environment,
#: parameters)`` (an EngineStackFacade in the engine).
FacadeFactory = Callable[[Any], Any]


def has_fixed_attributes(cls: Any) -> bool:
    """Whether ``get_attr`` names on ``cls`` are checked against its
    attributes schema at validation.

    Not for template resources and child stacks (their attributes are the
    child's outputs), types with dynamic attributes, nor types with their
    own ``get_attribute`` (``OS::Heat::None`` answers null to any name):
    Heat skips the check for these too.
    """
    if not isinstance(cls, type):
        return False
    if getattr(cls, "attributes_schema", None) is None:
        return False
    if issubclass(cls, StackResource) or getattr(
        cls, "dynamic_attributes", False
    ):
        return False
    return getattr(cls, "get_attribute", None) is Resource.get_attribute


class _TemplateResource:
    """Stands for a resource implemented by a template (validated by the
    template layer, instantiated only when created)."""


class ParsedStack:
    """A template, its environment and parameters: what a plugin reads
    from its stack while the stack is validated."""

    def __init__(
        self,
        template: Mapping[str, Any],
        environment: Mapping[str, Any] | None,
        files: Mapping[str, Any] | None,
        identifier: Any,
    ) -> None:
        self.env = Environment(dict(environment or {}))
        self.t = versions.load(template, files=files, env=self.env)
        self.files = files or {}
        self.identifier = identifier
        self.parameters: Parameters | None = None

    def make_parameters(self) -> Parameters:
        """Build the parameters (after the structure is checked, as Heat
        builds the stack).

        :raises InvalidSchemaError: for a bad declaration.
        """
        tmpl: Any = self.t
        self.parameters = make_parameters(
            tmpl, self.env.params, self.env.param_defaults, self.identifier
        )
        return self.parameters


class StackValidator:
    """Validates one parsed stack.

    :param parsed: the template, environment and identity.
    :param facade: builds the stack a plugin sees.
    :param context: the request context.
    :param strict: ``False`` for ``POST /validate``: parameter values and
        property values are not checked, only the resource templates.
    :param type_policy: called with each resource type before the
        resource is validated (strict mode); raises ``Forbidden`` for a
        type the caller may not use (``resource_types:<Type>``).
    :param parent_facade: ``resource_facade`` of a stack that a template
        resource creates.
    :param nested_depth: above 0, a child stack validated with its
        parent (as Heat does, non-strictly: every plugin's own checks and
        template resources' templates, not the property values).
    """

    def __init__(
        self,
        parsed: ParsedStack,
        facade: FacadeFactory,
        context: Any = None,
        strict: bool = True,
        type_policy: Callable[[str], None] | None = None,
        parent_facade: Callable[[str], Any] | None = None,
        nested_depth: int = 0,
    ) -> None:
        self.parsed = parsed
        self.parent_facade = parent_facade
        self.nested_depth = nested_depth
        self.type_policy = type_policy
        self.context = context
        self.strict = strict
        self._facade_factory = facade
        self._classes: dict[str, Any] = {}

    def validate(self) -> StackDefinition:
        """Validate everything; return the stack definition.

        :raises StackValidationFailed: and the other Heat errors.
        """
        parsed = self.parsed
        validation.validate_structure(StackDefinition(parsed.t, {}))
        params = parsed.make_parameters()
        self.defn = StackDefinition(
            parsed.t,
            params,
            PendingStackView(self._attribute_names, facade=self.parent_facade),
        )
        self.facade = self._facade_factory(parsed)
        self.facade.strict_validate = self.strict
        self.facade.child_validator = self._validate_child
        validation.validate_stack(
            self.defn,
            validate_parameters=lambda: params.validate(
                validate_value=self.strict, context=self.context
            ),
            validate_parameter_groups=lambda: ParameterGroups(
                parsed.t
            ).validate(),
            resource_order=self._resource_order,
            resource_hook=self._validate_resource,
        )
        return self.defn

    def _attribute_names(self, resource_type: str) -> Collection[str] | None:
        try:
            cls = self.parsed.env.get_class_to_instantiate(resource_type)
        except Exception:  # an unknown type is reported elsewhere
            return None
        if not has_fixed_attributes(cls):
            return None
        return {
            *cls.attributes_schema,
            *getattr(cls, "base_attributes_schema", {}),
            "show",
        }

    def _class_for(self, rdefn: ResourceDefinition) -> Any:
        name = rdefn.name
        if name not in self._classes:
            try:
                cls = self.parsed.env.get_class_to_instantiate(
                    rdefn.resource_type, name
                )
            except (
                exception.StackValidationFailed,
                exception.ResourceTypeUnavailable,  # Heat's own 400
            ):
                raise
            except exception.HeatException as err:
                raise exception.StackValidationFailed(
                    message=str(err)
                ) from err
            if is_template_resource(self.parsed.env, rdefn, cls):
                # Heat's texts for a template that can not be read, before
                # the resource is built from it
                provider.validate_template_resource(
                    self.parsed.env,
                    rdefn.resource_type,
                    name,
                    self.parsed.t.files,
                )
                self._check_recursion(rdefn)
            if not isinstance(cls, type) or not issubclass(cls, Resource):
                cls = _TemplateResource
            self._classes[name] = cls
        return self._classes[name]

    def _check_recursion(self, rdefn: ResourceDefinition) -> None:
        """A stack being created or updated (not POST /validate, not a
        child stack, which its root checked) refuses template resources
        nested too deep, before any child stack exists."""
        facade = self.facade
        depth: int = getattr(facade, "nested_depth", 0) or 0
        if not self.strict or depth:
            return
        provider.check_template_recursion(
            self.parsed.env,
            rdefn.resource_type,
            rdefn.name,
            self.parsed.t.files,
            self.parsed.t.RESOURCES,
            max_depth=getattr(
                facade,
                "max_nested_stack_depth",
                provider.MAX_NESTED_STACK_DEPTH,
            ),
        )

    def _resource_order(self, deps: dict[str, set[str]]) -> list[str]:
        kinds = {}
        for name, rdefn in self.defn.resource_definitions().items():
            try:
                kinds[name] = self._class_for(rdefn).__name__
            except exception.HeatException:
                kinds[name] = "Resource"
        return dependency_order(deps, kinds)

    def _validate_resource(
        self, defn: StackDefinition, rdefn: ResourceDefinition
    ) -> None:
        kind = rdefn.resource_type
        if self.strict and self.type_policy is not None and kind:
            # policy first, as Heat: a type only admins may use is
            # forbidden (403) even where no installed pack provides it
            self.type_policy(str(kind))
        cls = self._class_for(rdefn)
        if cls is _TemplateResource:
            if not self.nested_depth:
                return
            cls = TemplateResource
        try:
            instance = cls(rdefn.name, rdefn, self.facade)
            if self.strict or self.nested_depth:
                instance.validate()
            else:
                # POST /validate checks the resource template only.
                Resource.validate(instance)
        except exception.StackValidationFailed as err:
            if not err.path or err.path[0] == defn.t.RESOURCES:
                raise
            path: list[Any] = [defn.t.RESOURCES, rdefn.name]
            path.append(defn.t.get_section_name(str(err.path[0])))
            path.extend(err.path[1:])
            raise exception.StackValidationFailed(
                error=err.error, path=path, message=err.error_message
            ) from err
        except exception.HeatException:
            raise
        except Exception as err:  # a plugin's own error, as Heat words it
            if self.nested_depth:
                raise exception.StackValidationFailed(
                    error=err, path=[defn.t.RESOURCES, rdefn.name]
                ) from err
            raise exception.StackValidationFailed(message=str(err)) from err

    def _validate_child(
        self, name: str, template: Any, environment: Any, files: Any
    ) -> None:
        """Validate a child stack of a resource being validated."""
        depth = self.nested_depth + 1
        limit = int(getattr(self.facade, "max_nested_stack_depth", 5))
        if depth > limit:
            raise exception.RequestLimitExceeded(
                message=f"Recursion depth exceeds {limit}."
            )
        tenant = getattr(self.parsed.identifier, "tenant", "") or ""
        child = ParsedStack(
            template, environment, files, StackIdentifier(tenant, name, "")
        )
        StackValidator(
            child,
            self._facade_factory,
            self.context,
            strict=False,
            type_policy=self.type_policy,
            nested_depth=depth,
        ).validate()


def is_template_resource(
    env: Any, rdefn: ResourceDefinition, cls: Any
) -> bool:
    """Whether the type is implemented by a template (provider)."""
    if not isinstance(cls, type):
        return True
    try:
        info = env.get_resource_info(rdefn.resource_type, rdefn.name)
    except exception.HeatException:
        return False
    return isinstance(info, registry.TemplateResourceInfo)


def dependency_order(
    deps: Mapping[str, set[str]], kinds: Mapping[str, str]
) -> list[str]:
    """Resources in an order that respects ``deps`` (name -> needs).

    :param kinds: class name per resource, for the message.
    :raises CircularDependencyException: with Heat's text.
    """
    # Level by level (each level in the template's order), in time linear
    # in the resources and their dependencies: a chain of 5000 is 5000
    # levels.
    position = {name: i for i, name in enumerate(deps)}
    unmet: dict[str, int] = {}
    dependents: dict[str, list[str]] = {}
    for name, needs in deps.items():
        distinct = set(needs)
        unmet[name] = len(distinct)
        for need in distinct:
            dependents.setdefault(need, []).append(name)
    order: list[str] = []
    level = [name for name in deps if not unmet[name]]
    while level:
        order.extend(level)
        freed = []
        for name in level:
            for waiter in dependents.get(name, ()):
                unmet[waiter] -= 1
                if not unmet[waiter]:
                    freed.append(waiter)
        level = sorted(freed, key=position.__getitem__)
    if len(order) < len(deps):
        done = set(order)
        remaining = {n: set(d) for n, d in deps.items() if n not in done}
        raise exception.CircularDependencyException(
            cycle=_cycle_text(remaining, kinds)
        )
    return order


def _cycle_text(
    remaining: Mapping[str, set[str]], kinds: Mapping[str, str]
) -> str:
    def label(name: str) -> str:
        return f'{kinds.get(name, "Resource")} "{name}"'

    items = []
    for name, needs in remaining.items():
        inner = ", ".join(label(x) for x in sorted(needs & set(remaining)))
        items.append(f"{label(name)}: {{{inner}}}")
    return "{" + ", ".join(items) + "}"
