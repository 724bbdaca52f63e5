"""``OS::Heat::ResourceChain``: one resource per type, in a chain."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.stack_resource import StackResource

Schema = api.properties.Schema
CHILD_TEMPLATE_VERSION = "2015-04-30"


class ResourceChain(StackResource):
    """Creates one resource of each listed type, with the same properties.

    Members are named ``0``, ``1``, ... in list order and get
    ``resource_properties``.  Unless ``concurrent`` is true, each member
    depends on the one before it, so they are created one after the other
    (and deleted in reverse).  ``refs`` lists their references; any other
    attribute name gives the list of that attribute of every member.
    """

    support_status = api.SupportStatus(version="6.0.0")

    PROPERTIES = (RESOURCES, CONCURRENT, RESOURCE_PROPERTIES) = (
        "resources",
        "concurrent",
        "resource_properties",
    )
    ATTRIBUTES = (REFS, ATTR_ATTRIBUTES) = ("refs", "attributes")

    properties_schema = {
        RESOURCES: Schema(
            Schema.LIST,
            "The resource types to create (registry names or aliases).",
            required=True,
            update_allowed=True,
        ),
        CONCURRENT: Schema(
            Schema.BOOLEAN,
            "Create the members at the same time instead of in order.",
            default=False,
        ),
        RESOURCE_PROPERTIES: Schema(
            Schema.MAP, "The properties given to every member."
        ),
    }

    attributes_schema = {
        REFS: api.attributes.Schema(
            "The members' references, in order.",
            type=api.attributes.Schema.LIST,
        ),
        ATTR_ATTRIBUTES: api.attributes.Schema(
            "Member name to the value of the attribute path that follows.",
            type=api.attributes.Schema.MAP,
        ),
    }

    def _resource_names(self) -> list[str]:
        return [str(i) for i in range(len(self.properties[self.RESOURCES]))]

    def _referenced_attrs(self) -> list[Any]:
        lookup = getattr(self.stack, "referenced_attrs", None)
        return list(lookup(self.name)) if callable(lookup) else []

    @staticmethod
    def _output_name(attr: Any) -> str:
        return attr if isinstance(attr, str) else ", ".join(map(str, attr))

    def _child_outputs(self, names: list[str]) -> dict[str, Any]:
        outputs: dict[str, Any] = {}
        for attr in self._referenced_attrs():
            key, path = (
                (attr, []) if isinstance(attr, str) else (attr[0], attr[1:])
            )
            value: Any = None
            if key.startswith("resource."):
                parts = key.split(".", 2)
                attr_path = [*parts[2:], *path]
                if parts[1] in names:
                    value = (
                        {"get_attr": [parts[1], *attr_path]}
                        if attr_path
                        else {"get_resource": parts[1]}
                    )
            elif key == self.ATTR_ATTRIBUTES and path:
                value = {n: {"get_attr": [n, *path]} for n in names}
            elif key not in self.ATTRIBUTES:
                value = [{"get_attr": [n, key, *path]} for n in names]
            if value is not None:
                outputs[self._output_name(attr)] = {"value": value}
        outputs[self.REFS] = {"value": [{"get_resource": n} for n in names]}
        return outputs

    def child_template(self) -> dict[str, Any]:
        names = self._resource_names()
        props = self.properties[self.RESOURCE_PROPERTIES]
        resources: dict[str, Any] = {}
        for index, res_type in enumerate(self.properties[self.RESOURCES]):
            member: dict[str, Any] = {"type": res_type}
            if props:
                member["properties"] = dict(props)
            if index > 0 and not self.properties[self.CONCURRENT]:
                member["depends_on"] = [names[index - 1]]
            resources[names[index]] = member
        return {
            "heat_template_version": CHILD_TEMPLATE_VERSION,
            "resources": resources,
            "outputs": self._child_outputs(names),
        }

    def child_params(self) -> dict[str, Any]:
        return {}

    def get_attribute(self, key: str, *path: Any) -> Any:
        if self.resource_id is None:
            return None
        if key == self.ATTR_ATTRIBUTES and not path:
            raise api.exception.InvalidTemplateAttribute(
                resource=self.name, key=key
            )
        if key == self.REFS:
            refs = self.get_output(self.REFS)
            return api.attributes.select_from_attribute(refs, path)
        if key.startswith("resource."):
            member = key.split(".", 2)[1]
            if member not in self._resource_names():
                raise api.exception.NotFound(
                    f"Member '{member}' not found in group resource "
                    f"'{self.name}'."
                )
            if len(key.split(".", 2)) == 2 and not path:
                return self.get_output(self.REFS)[int(member)]
        name = self._output_name((key, *path) if path else key)
        return self.get_output(name)

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        if self.action == self.INIT:
            return None
        return self.get_attribute(key, *path)
