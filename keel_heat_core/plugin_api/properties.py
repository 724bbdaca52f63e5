"""Property schemas and resolved property values (``properties_schema``).

A plugin declares ``properties_schema``, a mapping of property name to
:class:`Schema`, and reads ``self.properties``, a :class:`Properties`
(reading a key resolves its functions, converts the value to the declared
type and fills the default). The classes belong to the template language,
which builds a definition's properties
(:mod:`keel_heat_core.template.properties`); this module is their place
in the plugin API.
"""

from keel_heat_core.template.properties import (
    AnyIndexDict,
    Properties,
    Property,
    Schema,
    schemata,
    visible_schemata,
)

__all__ = [
    "AnyIndexDict",
    "Properties",
    "Property",
    "Schema",
    "schemata",
    "visible_schemata",
]
