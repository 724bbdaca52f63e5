"""Template (provider) resources: a nested template used as a type.

A resource whose type names a template file (``server.yaml``) or a
registry entry mapped to one (``My::Server: server.yaml``) becomes a child
stack of that template. Its properties are the template's parameters and
its attributes the template's outputs (plus ``OS::stack_id``); an output
named ``OS::stack_id`` gives the resource's reference id, as in Heat.
"""

from __future__ import annotations

from typing import Any

from keel_heat_core import exception
from keel_heat_core.plugin_api import attributes, properties
from keel_heat_core.plugin_api.stack_resource import StackResource

#: The output that, when a nested template has it, is the reference id.
STACK_ID_OUTPUT = "OS::stack_id"
#: ``get_attr`` names that read a resource of the child stack.
MEMBER_PREFIX = "resource."


class TemplateResource(StackResource):
    """A child stack built from the template its type names."""

    def __init__(self, name: str, definition: Any, stack: Any) -> None:
        info = stack.env.get_resource_info(definition.resource_type, name)
        self.resource_info = info
        files = getattr(stack.t, "files", None)
        self.provider = info.get_class(files)
        self.template_url = str(info.template_name)
        # The schema is the nested template's, so it is per instance.
        self.properties_schema = {  # type: ignore[misc]
            key: properties.Schema(
                spec.type,
                spec.description,
                required=spec.required,
                constraints=spec.constraints,
                update_allowed=True,
            )
            for key, spec in self.provider.properties_schema().items()
        }
        self.attributes_schema = {  # type: ignore[misc]
            key: attributes.Schema(spec.description)
            for key, spec in self.provider.attributes_schema().items()
        }
        super().__init__(name, definition, stack)

    def child_template(self) -> Any:
        return self.provider.template

    def child_params(self) -> dict[str, Any]:
        return {
            key: value
            for key, value in self.properties.items()
            if value is not None
        }

    def _child_environment(self, user_params: Any) -> dict[str, Any]:
        """The parent's environment without the registry entry that made
        this resource: inside its own template, the type it stands in
        for is the real one again (``OS::Heat::RandomString:
        nested.yaml`` may use ``OS::Heat::RandomString`` in
        ``nested.yaml``)."""
        env = super()._child_environment(user_params)
        path = list(getattr(self.resource_info, "path", None) or ())
        level = env.get("resource_registry")
        for key in path[:-1]:
            level = level.get(key) if isinstance(level, dict) else None
        if path and isinstance(level, dict):
            level.pop(path[-1], None)
        return env

    def handle_create(self) -> None:
        self.create_with_template(self.child_template(), self.child_params())

    def handle_adopt(self, resource_data: Any) -> None:
        self.create_with_template(
            self.child_template(),
            self.child_params(),
            adopt_data=resource_data,
        )

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> Any:
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        return self.update_with_template(
            self.child_template(), self.child_params()
        )

    def get_attribute(self, key: str, *path: Any) -> Any:
        if key.startswith(MEMBER_PREFIX):
            return self._member_attribute(key, path)
        if key == STACK_ID_OUTPUT and key not in self.attributes_schema:
            return self.resource_id
        output = self.get_output(key)
        return attributes.select_from_attribute(output, path)

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        if self.action == self.INIT and key.startswith(MEMBER_PREFIX):
            return None
        return super().FnGetAtt(key, *path)

    def _member_attribute(self, key: str, path: tuple[Any, ...]) -> Any:
        """``resource.<name>`` (the member's reference) and
        ``resource.<name>.<attr>`` followed along ``path``: a resource
        of the child stack, read by this engine (a resource show with
        that attribute)."""
        if self.resource_id is None:
            return None
        name, *attr = key.split(".", 2)[1:]
        attr_path = [*attr, *path]
        identity = self.nested_identifier()
        if identity is None:
            return None
        engine = self.rpc_client()
        try:
            if not attr_path:
                return engine.resource_reference(self.context, identity, name)
            shown = engine.describe_stack_resource(
                self.context, identity, name, with_attr=[str(attr_path[0])]
            )
        except exception.ResourceNotFound as exc:
            raise exception.NotFound(
                f"Member '{name}' not found in group resource '{self.name}'."
            ) from exc
        value = (shown.get("attributes") or {}).get(str(attr_path[0]))
        return attributes.select_from_attribute(value, attr_path[1:])

    def get_reference_id(self) -> str:
        if self.resource_id is not None and (
            STACK_ID_OUTPUT in self.attributes_schema
        ):
            return str(self.get_output(STACK_ID_OUTPUT))
        return super().get_reference_id()
