"""``OS::Heat::SoftwareComponent``: one config per lifecycle action."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_heat.software_config import SoftwareConfig

Schema = api.properties.Schema


class SoftwareComponent(SoftwareConfig):
    """A software component: a config (and tool) per lifecycle action.

    Each entry of ``configs`` applies to some actions (CREATE, UPDATE,
    DELETE, SUSPEND, RESUME); an action may have one config only.  The
    in-instance ``component`` hook picks the entry for the current action.
    """

    support_status = api.SupportStatus(version="2014.2")

    PROPERTIES = (CONFIGS, INPUTS, OUTPUTS, OPTIONS) = (
        "configs",
        "inputs",
        "outputs",
        "options",
    )
    CONFIG_PROPERTIES = (CONFIG_ACTIONS, CONFIG_CONFIG, CONFIG_TOOL) = (
        "actions",
        "config",
        "tool",
    )

    config_schema = Schema(
        Schema.MAP,
        schema={
            CONFIG_ACTIONS: Schema(
                Schema.LIST,
                "The actions this config applies to.",
                default=[api.Resource.CREATE, api.Resource.UPDATE],
                schema=Schema(Schema.STRING),
                constraints=[api.constraints.Length(min=1)],
            ),
            CONFIG_CONFIG: SoftwareConfig.properties_schema[
                SoftwareConfig.CONFIG
            ],
            CONFIG_TOOL: Schema(
                Schema.STRING,
                "The tool on the server that applies this config.",
                required=True,
            ),
        },
    )

    properties_schema = {
        CONFIGS: Schema(
            Schema.LIST,
            "The configs of the component, by lifecycle action.",
            schema=config_schema,
            constraints=[api.constraints.Length(min=1)],
            required=True,
        ),
        INPUTS: SoftwareConfig.properties_schema[SoftwareConfig.INPUTS],
        OUTPUTS: SoftwareConfig.properties_schema[SoftwareConfig.OUTPUTS],
        OPTIONS: SoftwareConfig.properties_schema[SoftwareConfig.OPTIONS],
    }

    def handle_create(self) -> None:
        props: dict[str, Any] = dict(self.properties)
        configs = props.pop(self.CONFIGS)
        props[self.CONFIG] = {self.CONFIGS: configs}
        props[self.GROUP] = "component"
        self._create_config(**props)

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.CONFIG_ATTR and self.resource_id:
            config = self._stored_config()
            return config[self.CONFIGS] if config is not None else None
        return None

    def validate(self) -> None:
        super().validate()
        seen: set[str] = set()
        for config in self.properties[self.CONFIGS]:
            actions = config.get(self.CONFIG_ACTIONS) or []
            if any(action in seen for action in actions):
                raise api.exception.StackValidationFailed(
                    message="Defining more than one configuration for the "
                    "same action in SoftwareComponent "
                    f'"{self.name}" is not allowed.'
                )
            seen.update(actions)
