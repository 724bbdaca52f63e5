"""Stack validation in Heat's order, for the parts the template layer owns.

Order (Heat's): template structure -> parameters ->
parameter groups -> conditions -> resource definitions -> names used both
as parameter and resource -> dependencies -> per-resource validation (the
functions here, then whatever the engine adds through ``resource_hook``) ->
outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from keel_heat_core import exception
from keel_heat_core.template import function
from keel_heat_core.template.rsrc_defn import ResourceDefinition
from keel_heat_core.template.stack_definition import StackDefinition

ResourceHook = Callable[[StackDefinition, ResourceDefinition], None]


def validate_structure(defn: StackDefinition) -> None:
    """Top-level sections and resource shapes, as Heat's create checks
    them before building the stack (any error becomes a
    StackValidationFailed with the bare message)."""
    try:
        defn.t.validate()
    except exception.StackValidationFailed:
        raise
    except Exception as err:
        raise exception.StackValidationFailed(message=str(err)) from err


def check_resource_limit(
    defn: StackDefinition, max_resources: int = 1000
) -> None:
    """Refuse a template with more than ``max_resources`` resources
    (``max_resources_per_stack``; -1 means no limit).  For nested stacks the
    engine counts the whole tree.

    :raises RequestLimitExceeded: when there are too many.
    """
    count = len(defn.t.resources_section())
    if max_resources != -1 and count > max_resources:
        raise exception.RequestLimitExceeded(
            message="Maximum resources per stack exceeded."
        )


def validate_conditions(defn: StackDefinition) -> None:
    """Parse and evaluate every condition."""
    defn.conditions().validate()


def dependency_map(defn: StackDefinition) -> dict[str, set[str]]:
    """``name -> names it needs`` for the enabled resources.

    :raises InvalidTemplateReference: for a reference to an unknown or
        disabled resource.
    """
    return {
        name: set(rsrc.dependencies(defn))
        for name, rsrc in defn.resource_definitions().items()
    }


def validate_resource_functions(
    defn: StackDefinition, rsrc: ResourceDefinition
) -> None:
    """Validate the functions of one resource, with Heat's error path."""
    try:
        rsrc.validate()
    except exception.StackValidationFailed as err:
        path: list[Any] = [defn.t.RESOURCES, rsrc.name]
        if err.path:
            path.append(defn.t.get_section_name(str(err.path[0])))
            path.extend(err.path[1:])
        raise exception.StackValidationFailed(
            error=err.error, path=path, message=err.error_message
        ) from err


def validate_outputs(defn: StackDefinition) -> None:
    """Build and validate every output."""
    value_key = defn.t.OUTPUT_VALUE
    for name, output in defn.outputs().items():
        try:
            output.validate(value_key)
        except exception.StackValidationFailed as err:
            raise exception.StackValidationFailed(
                error=err.error,
                path=[defn.t.OUTPUTS, name, *err.path],
                message=err.error_message,
            ) from err


def duplicate_names(defn: StackDefinition) -> None:
    """A name used both as a parameter and as a resource is an error."""
    dup = set(defn.parameters) & set(defn.resource_definitions())
    if dup:
        raise exception.StackValidationFailed(message=f"Duplicate names {dup}")


def validate_stack(
    defn: StackDefinition,
    validate_parameters: Callable[[], None] | None = None,
    validate_parameter_groups: Callable[[], None] | None = None,
    resource_order: Callable[[dict[str, set[str]]], list[str]] | None = None,
    resource_hook: ResourceHook | None = None,
) -> None:
    """Validate a stack definition in Heat's order.

    :param validate_parameters: checks the parameter values.
    :param validate_parameter_groups: checks ``parameter_groups``.
    :param resource_order: orders resources from the dependency map (and
        raises for a cycle); template order by default.
    :param resource_hook: engine checks of one resource (properties, type).
    """
    validate_structure(defn)
    if validate_parameters is not None:
        validate_parameters()
    if validate_parameter_groups is not None:
        validate_parameter_groups()
    validate_conditions(defn)
    resources = defn.resource_definitions()
    duplicate_names(defn)
    deps = dependency_map(defn)
    order = resource_order(deps) if resource_order else list(resources)
    for name in order:
        rsrc = resources[name]
        validate_resource_functions(defn, rsrc)
        if resource_hook is not None:
            resource_hook(defn, rsrc)
    validate_outputs(defn)


def resolve_outputs(
    defn: StackDefinition,
) -> tuple[dict[str, Any], dict[str, str]]:
    """Resolve each output on its own: ``(values, errors)``.

    A failing output gives an ``output_error`` (the error's text) and no
    value; it never fails the stack.
    """
    values: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, output in defn.outputs().items():
        try:
            values[name] = function.resolve(output.get_value())
        except Exception as err:  # each failure is reported, not raised
            errors[name] = str(err)
    return values, errors


def template_validate_result(
    defn: StackDefinition, env: Any, params: Any
) -> dict[str, Any]:
    """The body of ``POST /validate`` for a template that validated.

    :param defn: the stack definition.
    :param env: the stack's :class:`~.environment.Environment`.
    :param params: its :class:`~.parameters.Parameters`.
    """
    from keel_heat_core.template.parameters import format_validate_parameter

    description = defn.t.get(defn.t.DESCRIPTION)
    result: dict[str, Any] = {
        "Description": "No description"
        if description is None
        else description,
        "Parameters": {
            name: format_validate_parameter(params.params[name])
            for name in params.non_pseudo_param_keys
        },
    }
    groups = defn.t.parameter_groups_section()
    if groups:
        result["ParameterGroups"] = groups
    result["Environment"] = env.user_env_as_dict()
    return result
