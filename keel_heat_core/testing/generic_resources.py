"""Generic resource types for tests, after Heat's own test resources.

Register them under names such as ``GenericResourceType`` in a test stack
to exercise the engine or a template function without a real service.
"""

from __future__ import annotations

import logging
from typing import Any

from keel_heat_core.plugin_api import attributes, constraints, support
from keel_heat_core.plugin_api import properties as props
from keel_heat_core.plugin_api.resource import Resource

LOG = logging.getLogger(__name__)

Schema = props.Schema


class GenericResource(Resource):
    """Does nothing but log its actions; any update is done in place."""

    properties_schema = {}
    attributes_schema = {
        "foo": attributes.Schema("A generic attribute"),
        "Foo": attributes.Schema("Another generic attribute"),
    }

    def handle_create(self) -> None:
        LOG.warning("Creating generic resource (Type %s)", self.type())

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        LOG.warning("Updating generic resource (Type %s)", self.type())

    def handle_delete(self) -> None:
        LOG.warning("Deleting generic resource (Type %s)", self.type())

    def _resolve_attribute(self, name: str) -> Any:
        return self.name

    def handle_suspend(self) -> None:
        LOG.warning("Suspending generic resource (Type %s)", self.type())

    def handle_resume(self) -> None:
        LOG.warning("Resuming generic resource (Type %s)", self.type())


class ResWithShowAttr(GenericResource):
    """A generic resource whose ``show`` lists its attributes."""

    def _show_resource(self) -> dict[str, Any]:
        return {"foo": self.name, "Foo": self.name, "Another": "Something"}


class ResourceWithProps(GenericResource):
    """A generic resource with one string property ``Foo``."""

    properties_schema = {
        "Foo": Schema(Schema.STRING),
        "FooInt": Schema(Schema.INTEGER),
    }


class ResourceWithPropsAndAttrs(ResourceWithProps):
    """Properties plus an attribute ``Bar``."""

    attributes_schema = {"Bar": attributes.Schema("Something.")}


class ResourceWithRequiredProps(GenericResource):
    """A generic resource whose ``Foo`` is required."""

    properties_schema = {"Foo": Schema(Schema.STRING, required=True)}


class ResourceWithComplexAttributes(GenericResource):
    """Attributes that are lists and maps, for ``get_attr`` paths."""

    attributes_schema = {
        "list": attributes.Schema("A list", type=attributes.Schema.LIST),
        "flat_dict": attributes.Schema("A flat dict"),
        "nested_dict": attributes.Schema("A nested dict"),
        "none": attributes.Schema("None"),
    }

    def _resolve_attribute(self, name: str) -> Any:
        values: dict[str, Any] = {
            "list": ["foo", "bar"],
            "flat_dict": {"key1": "val1", "key2": "val2", "key3": "val3"},
            "nested_dict": {
                "list": [1, 2, 3],
                "string": "abc",
                "dict": {"a": 1, "b": 2, "c": 3},
            },
            "none": None,
        }
        return values.get(name)


class ResourceWithCustomConstraint(GenericResource):
    """A property checked by the ``neutron.network`` custom constraint."""

    properties_schema = {
        "Foo": Schema(
            Schema.STRING,
            constraints=[constraints.CustomConstraint("neutron.network")],
        )
    }


class ResourceWithHiddenPropertyAndAttribute(GenericResource):
    """A hidden property and a hidden attribute (left out of schemas)."""

    properties_schema = {
        "supported": Schema(Schema.LIST, "Supported property."),
        "hidden": Schema(
            Schema.LIST,
            "Hidden property.",
            support_status=support.SupportStatus(status=support.HIDDEN),
        ),
    }
    attributes_schema = {
        "supported": attributes.Schema("Supported attribute."),
        "hidden": attributes.Schema(
            "Hidden attribute.",
            support_status=support.SupportStatus(status=support.HIDDEN),
        ),
    }


class SignalResource(GenericResource):
    """Accepts signals and remembers the last details."""

    properties_schema = {"signal_transport": Schema(Schema.STRING)}
    attributes_schema = {"AlarmUrl": attributes.Schema("The signal URL")}

    def handle_signal(self, details: Any = None) -> str:
        self.data_set("last_signal", repr(details))
        return "Signal received"

    def _resolve_attribute(self, name: str) -> Any:
        if name == "AlarmUrl":
            return self.data().get("signal_url")
        return None


#: Registry names Heat's tests use for these classes.
GENERIC_RESOURCES: dict[str, type[Resource]] = {
    "GenericResourceType": GenericResource,
    "ResWithShowAttrType": ResWithShowAttr,
    "ResourceWithPropsType": ResourceWithProps,
    "ResourceWithPropsAndAttrsType": ResourceWithPropsAndAttrs,
    "ResourceWithRequiredProps": ResourceWithRequiredProps,
    "ResourceWithComplexAttributesType": ResourceWithComplexAttributes,
    "ResourceWithCustomConstraint": ResourceWithCustomConstraint,
    "ResourceWithHiddenPropertyAndAttribute": (
        ResourceWithHiddenPropertyAndAttribute
    ),
    "SignalResourceType": SignalResource,
}
