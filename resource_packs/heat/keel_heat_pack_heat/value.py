"""``OS::Heat::Value``: expose a computed value as an attribute."""

from __future__ import annotations

import json
from typing import Any

from keel_heat_core import plugin_api as api

Schema = api.properties.Schema

_BOOLEAN_TEXTS = frozenset(
    {"true", "false", "1", "0", "t", "f", "yes", "no", "y", "n", "on", "off"}
)

VALUE_TYPES = ("string", "number", "comma_delimited_list", "json", "boolean")


def _type_error(value: Any, value_type: str) -> str | None:
    """Why ``value`` is not of the parameter type, or None when it is."""
    if value_type == "string":
        if isinstance(value, dict | list):
            return f"Value must be a string; got {value!r}"
    elif value_type == "number":
        try:
            float(value)
        except (TypeError, ValueError):
            return f"Value '{value}' is not a number"
        if isinstance(value, bool):
            return f"Value '{value}' is not a number"
    elif value_type == "comma_delimited_list":
        if not isinstance(value, list | str):
            return f"Value must be a comma-delimited list string: {value}"
    elif value_type == "json":
        if isinstance(value, str):
            try:
                json.loads(value)
            except ValueError as exc:
                return f"Value must be valid JSON: {exc}"
        elif not isinstance(value, dict | list):
            return f"Value must be valid JSON: {value}"
    elif (
        value_type == "boolean"
        and not isinstance(value, bool)
        and str(value).lower() not in _BOOLEAN_TEXTS
    ):
        return f"Unrecognized value '{value}'"
    return None


class Value(api.Resource):
    """Holds a value computed in the template, as its ``value`` attribute.

    Handy to compute something once (from parameters, other resources'
    attributes, functions) and use it in several places.  ``type``, when
    given, checks the value as a parameter of that type would be checked.
    Updates never replace the resource.
    """

    support_status = api.SupportStatus(version="7.0.0")

    PROPERTIES = (VALUE, TYPE) = ("value", "type")
    ATTRIBUTES = (VALUE_ATTR,) = ("value",)

    properties_schema = {
        VALUE: Schema(
            Schema.ANY,
            "The value to expose.",
            required=True,
            update_allowed=True,
        ),
        TYPE: Schema(
            Schema.STRING,
            "The type the value must have.",
            constraints=[api.constraints.AllowedValues(list(VALUE_TYPES))],
            update_allowed=True,
        ),
    }

    attributes_schema = {
        VALUE_ATTR: api.attributes.Schema("The value of the value property."),
    }

    def validate(self) -> None:
        super().validate()
        value_type = self.properties[self.TYPE]
        if value_type is None:
            return
        problem = _type_error(self.properties[self.VALUE], value_type)
        if problem is not None:
            raise api.exception.StackValidationFailed(
                path=["resources", self.name, "properties", self.VALUE],
                message=problem,
            )

    def handle_create(self) -> None:
        self.resource_id_set(self.physical_resource_name())

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        # Only the attribute changes; nothing to do on the outside.
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.VALUE_ATTR:
            return self.properties[self.VALUE]
        return None
