"""Software configurations: immutable configs stored by the engine.

``OS::Heat::SoftwareConfig`` and its variants create a software-config
record through the engine RPC API; servers receive it through software
deployments.  A config never changes: any property change replaces it.
"""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.errors import ignore_error_by_name

Schema = api.properties.Schema

IO_TYPES = ["String", "Number", "CommaDelimitedList", "Json", "Boolean"]
IO_PROPERTIES = (
    NAME,
    DESCRIPTION,
    TYPE,
    DEFAULT,
    REPLACE_ON_CHANGE,
    ERROR_OUTPUT,
) = (
    "name",
    "description",
    "type",
    "default",
    "replace_on_change",
    "error_output",
)


def _io_common() -> dict[str, Any]:
    return {
        NAME: Schema(Schema.STRING, "The name.", required=True),
        DESCRIPTION: Schema(Schema.STRING, "What it is for."),
        TYPE: Schema(
            Schema.STRING,
            "Its type.",
            default="String",
            constraints=[api.constraints.AllowedValues(IO_TYPES)],
        ),
    }


INPUT_SCHEMA = {
    **_io_common(),
    DEFAULT: Schema(Schema.ANY, "The value when the deployment gives none."),
    REPLACE_ON_CHANGE: Schema(
        Schema.BOOLEAN,
        "Replace the deployment when this input's value changes.",
        default=False,
    ),
}
OUTPUT_SCHEMA = {
    **_io_common(),
    ERROR_OUTPUT: Schema(
        Schema.BOOLEAN,
        "A value in this output makes the deployment fail.",
        default=False,
    ),
}


class SoftwareConfig(api.Resource):
    """A script, a configuration file or a structure for a config tool.

    ``group`` names the tool that applies it on the server (``script``,
    ``puppet``, ``ansible``...); ``inputs`` and ``outputs`` declare the
    values exchanged with the tool.  Servers receive configs through
    ``OS::Heat::SoftwareDeployment``.
    """

    support_status = api.SupportStatus(version="2014.1")
    default_client_name = "heat"
    entity = "software_configs"

    PROPERTIES = (GROUP, CONFIG, OPTIONS, INPUTS, OUTPUTS) = (
        "group",
        "config",
        "options",
        "inputs",
        "outputs",
    )
    NAME = NAME
    ATTRIBUTES = (CONFIG_ATTR,) = ("config",)

    properties_schema = {
        GROUP: Schema(
            Schema.STRING,
            "The tool that applies the config on the server.",
            default="Heat::Ungrouped",
        ),
        CONFIG: Schema(Schema.STRING, "The configuration text."),
        OPTIONS: Schema(Schema.MAP, "Options for the configuration tool."),
        INPUTS: Schema(
            Schema.LIST,
            "Values the config takes.",
            schema=Schema(Schema.MAP, schema=INPUT_SCHEMA),
        ),
        OUTPUTS: Schema(
            Schema.LIST,
            "Values the config gives back.",
            schema=Schema(Schema.MAP, schema=OUTPUT_SCHEMA),
        ),
    }

    attributes_schema = {
        CONFIG_ATTR: api.attributes.Schema(
            "The stored configuration (empty when it no longer exists).",
            type=api.attributes.Schema.STRING,
        ),
    }

    def _create_config(self, **props: Any) -> None:
        props[self.NAME] = self.physical_resource_name()
        sc = self.rpc_client().create_software_config(self.context, **props)
        self.resource_id_set(sc["id"])

    def handle_create(self) -> None:
        self._create_config(**dict(self.properties))

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        with ignore_error_by_name("NotFound"):
            self.rpc_client().delete_software_config(
                self.context, self.resource_id
            )

    def _stored_config(self) -> Any:
        with ignore_error_by_name("NotFound"):
            sc = self.rpc_client().show_software_config(
                self.context, self.resource_id
            )
            return sc["config"]
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.CONFIG_ATTR and self.resource_id:
            return self._stored_config()
        return None


class StructuredConfig(SoftwareConfig):
    """A software config whose ``config`` is a structure (a map).

    Deployments of it (``OS::Heat::StructuredDeployment``) replace
    ``get_input`` markers in the structure with the deployment's input
    values.
    """

    support_status = api.SupportStatus(version="2014.1")

    properties_schema = {
        **SoftwareConfig.properties_schema,
        SoftwareConfig.CONFIG: Schema(
            Schema.MAP, "The configuration structure."
        ),
    }
