"""The declared inputs and outputs of a software config, as stored.

``create_software_config`` stores each input and output in Heat's
normalised form: the schema defaults filled in (``type`` ``String``,
``error_output`` false), keys whose value is null dropped,
``replace_on_change`` kept only when true, an input's ``default``
converted to the input's type and its ``value`` (set on derived configs)
kept as given. A malformed entry is a ``ValueError`` (400 at the API).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from keel_heat_core import exception
from keel_heat_core.plugin_api import constraints
from keel_heat_core.plugin_api.properties import Properties
from keel_heat_core.template.property_schema import Schema

KEYS = (NAME, DESCRIPTION, TYPE, DEFAULT, REPLACE_ON_CHANGE, VALUE) = (
    "name",
    "description",
    "type",
    "default",
    "replace_on_change",
    "value",
)
ERROR_OUTPUT = "error_output"

TYPES = (STRING_TYPE, NUMBER_TYPE, LIST_TYPE, JSON_TYPE, BOOLEAN_TYPE) = (
    "String",
    "Number",
    "CommaDelimitedList",
    "Json",
    "Boolean",
)

#: the property type a typed ``default`` is converted with
_DEFAULT_KIND = {
    STRING_TYPE: Schema.STRING,
    NUMBER_TYPE: Schema.NUMBER,
    LIST_TYPE: Schema.LIST,
    JSON_TYPE: Schema.MAP,
    BOOLEAN_TYPE: Schema.BOOLEAN,
}


def _common() -> dict[str, Schema]:
    return {
        NAME: Schema(Schema.STRING, "Name.", required=True),
        DESCRIPTION: Schema(Schema.STRING, "Description."),
        TYPE: Schema(
            Schema.STRING,
            "Type of the value.",
            default=STRING_TYPE,
            constraints=[constraints.AllowedValues(list(TYPES))],
        ),
    }


def _input_schema(config: Mapping[str, Any]) -> dict[str, Schema]:
    schema = _common()
    schema[DEFAULT] = Schema(Schema.ANY, "Default value.")
    schema[REPLACE_ON_CHANGE] = Schema(
        Schema.BOOLEAN, "Replace on change.", default=False
    )
    kind = _DEFAULT_KIND.get(str(config.get(TYPE)))
    legacy = config.get(DEFAULT) == "" and config.get(TYPE) != STRING_TYPE
    if TYPE in config and DEFAULT in config and kind and not legacy:
        # an old config stored '' as the default of any type: kept as is
        schema[DEFAULT] = Schema(kind, "Default value.")
    return schema


def _output_schema() -> dict[str, Schema]:
    schema = _common()
    schema[ERROR_OUTPUT] = Schema(
        Schema.BOOLEAN, "Error output.", default=False
    )
    return schema


def _normalise(schema: dict[str, Schema], config: Mapping[str, Any]) -> Any:
    props = Properties(schema, dict(config))
    try:
        props.validate()
    except exception.StackValidationFailed as exc:
        raise ValueError(str(exc)) from exc
    return {k: props[k] for k in props if props[k] is not None}


def check_io_schema_list(io_configs: Any) -> None:
    """A list of objects, or Heat's ``TypeError``."""
    if not isinstance(io_configs, Sequence) or isinstance(
        io_configs, str | Mapping
    ):
        raise TypeError("Software Config I/O Schema must be in a list")
    if not all(isinstance(conf, Mapping) for conf in io_configs):
        raise TypeError("Software Config I/O Schema must be a dict")


def normalise_input(config: Mapping[str, Any]) -> dict[str, Any]:
    """One input as Heat stores it."""
    config = dict(config)
    has_value = VALUE in config
    value = config.pop(VALUE, None)
    out: dict[str, Any] = _normalise(_input_schema(config), config)
    if not out.get(REPLACE_ON_CHANGE):
        out.pop(REPLACE_ON_CHANGE, None)
    if has_value:
        out[VALUE] = value
    return out


def normalise_output(config: Mapping[str, Any]) -> dict[str, Any]:
    """One output as Heat stores it."""
    out: dict[str, Any] = _normalise(_output_schema(), config)
    return out


def normalise_inputs(inputs: Any) -> list[dict[str, Any]]:
    """Every input, after :func:`check_io_schema_list`."""
    check_io_schema_list(inputs)
    return [normalise_input(i) for i in inputs]


def normalise_outputs(outputs: Any) -> list[dict[str, Any]]:
    """Every output, after :func:`check_io_schema_list`."""
    check_io_schema_list(outputs)
    return [normalise_output(o) for o in outputs]


def input_values(inputs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``{name: value}`` of a derived config's inputs (null if unset)."""
    return {str(i.get(NAME)): i.get(VALUE) for i in inputs or ()}
