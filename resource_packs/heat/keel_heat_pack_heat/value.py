"""``OS::Heat::Value``: expose a computed value as an attribute."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api

Schema = api.properties.Schema

#: HOT parameter type -> the property type the value is converted to.
VALUE_TYPES = {
    "string": Schema.STRING,
    "number": Schema.NUMBER,
    "comma_delimited_list": Schema.LIST,
    "json": Schema.MAP,
    "boolean": Schema.BOOLEAN,
}


class Value(api.Resource):
    """Holds a value computed in the template, as its ``value`` attribute.

    Handy to compute something once (from parameters, other resources'
    attributes, functions) and use it in several places.  With ``type``
    the value is checked and converted as a property of that type
    (``json`` is a map, ``comma_delimited_list`` a list).  Updates never
    replace the resource.
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

    def __init__(self, name: str, definition: Any, stack: Any) -> None:
        super().__init__(name, definition, stack)
        self._apply_value_type()

    def _apply_value_type(self) -> None:
        """Give the value property the schema of the declared type."""
        kind = VALUE_TYPES.get(self.properties.get(self.TYPE) or "")
        if kind is None:
            return
        self.properties.props[self.VALUE] = api.properties.Property(
            Schema(
                kind,
                "The value to expose.",
                required=True,
                update_allowed=True,
            ),
            self.VALUE,
            self.context,
        )

    def action_is_local(self, action: str) -> bool:
        return True  # nothing outside the engine's database

    def handle_create(self) -> None:
        self.resource_id_set(self.physical_resource_name())

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        # Only the attribute changes; nothing to do on the outside.
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        self._apply_value_type()

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.VALUE_ATTR:
            # The value as given (resolved), not converted by ``type``:
            # Heat re-parses the properties with the plain schema before
            # the attribute is read (vectors fn/get_attr/value_type_number,
            # runtime/value_type_mismatch).
            return self.properties.resolve(
                self.properties.data.get(self.VALUE)
            )
        return None
