"""Deployment groups: one software deployment per server of a map."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_heat.resource_group import ResourceGroup
from keel_heat_pack_heat.software_deployment import SoftwareDeployment
from keel_heat_pack_heat.structured_deployment import StructuredDeployment

Schema = api.properties.Schema


class SoftwareDeploymentGroup(ResourceGroup):
    """Applies one software config to every server of ``servers``.

    ``servers`` maps a deployment name to a server id; each pair becomes an
    ``OS::Heat::SoftwareDeployment`` of a child stack.  The other
    properties are those of a single deployment.  The attributes map each
    deployment name to its value; any attribute (or output) of a single
    deployment may be asked for the same way.
    """

    support_status = api.SupportStatus(version="5.0.0")
    member_type = "OS::Heat::SoftwareDeployment"

    PROPERTIES = (
        SERVERS,
        CONFIG,
        INPUT_VALUES,
        DEPLOY_ACTIONS,
        NAME,
        SIGNAL_TRANSPORT,
    ) = (
        "servers",
        SoftwareDeployment.CONFIG,
        SoftwareDeployment.INPUT_VALUES,
        SoftwareDeployment.DEPLOY_ACTIONS,
        SoftwareDeployment.NAME,
        SoftwareDeployment.SIGNAL_TRANSPORT,
    )
    ATTRIBUTES = (STDOUTS, STDERRS, STATUS_CODES) = (
        "deploy_stdouts",
        "deploy_stderrs",
        "deploy_status_codes",
    )
    _MEMBER_ATTRS = {
        STDOUTS: SoftwareDeployment.STDOUT,
        STDERRS: SoftwareDeployment.STDERR,
        STATUS_CODES: SoftwareDeployment.STATUS_CODE,
    }

    _sd_ps = SoftwareDeployment.properties_schema
    properties_schema = {
        SERVERS: Schema(
            Schema.MAP,
            "Deployment name to the id of the server it configures.",
            update_allowed=True,
            required=True,
        ),
        CONFIG: _sd_ps[CONFIG],
        INPUT_VALUES: _sd_ps[INPUT_VALUES],
        DEPLOY_ACTIONS: _sd_ps[DEPLOY_ACTIONS],
        NAME: _sd_ps[NAME],
        SIGNAL_TRANSPORT: _sd_ps[SIGNAL_TRANSPORT],
    }

    attributes_schema = {
        STDOUTS: api.attributes.Schema(
            "Deployment name to its standard output.",
            type=api.attributes.Schema.MAP,
        ),
        STDERRS: api.attributes.Schema(
            "Deployment name to its standard error.",
            type=api.attributes.Schema.MAP,
        ),
        STATUS_CODES: api.attributes.Schema(
            "Deployment name to its exit status.",
            type=api.attributes.Schema.MAP,
        ),
    }

    update_policy_schema = {
        ResourceGroup.ROLLING_UPDATE: Schema(
            Schema.MAP,
            schema={
                ResourceGroup.MAX_BATCH_SIZE: Schema(
                    Schema.INTEGER,
                    "The most deployments replaced at once.",
                    constraints=[api.constraints.Range(min=1)],
                    default=1,
                ),
                ResourceGroup.PAUSE_TIME: Schema(
                    Schema.NUMBER,
                    "Seconds to wait between batches.",
                    constraints=[api.constraints.Range(min=0)],
                    default=0,
                ),
            },
            support_status=api.SupportStatus(version="7.0.0"),
        ),
        ResourceGroup.BATCH_CREATE: ResourceGroup.update_policy_schema[
            ResourceGroup.BATCH_CREATE
        ],
    }

    def get_size(self) -> int:
        return len(self.properties[self.SERVERS])

    def _resource_names(self, size: int | None = None) -> list[str]:
        names = list(self.properties[self.SERVERS])
        return names if size is None else names[:size]

    def _current_blacklist(self) -> list[str]:
        return []

    def _update_name_blacklist(self, properties: Mapping[str, Any]) -> None:
        return None

    def get_resource_def(self, include_all: bool = False) -> dict[str, Any]:
        return dict(self.properties)

    def build_resource_definition(
        self, name: str, res_def: Mapping[str, Any]
    ) -> dict[str, Any]:
        props = copy.deepcopy(dict(res_def))
        servers = props.pop(self.SERVERS)
        props[SoftwareDeployment.SERVER] = servers.get(name)
        return {"type": self.member_type, "properties": props}

    def validate(self) -> None:
        api.Resource.validate(self)

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> Any:
        # Any change of the deployment properties is a change of the member
        # definition, so the rolling update policy applies to it.
        if prop_diff:
            prop_diff = {**prop_diff, self.RESOURCE_DEF: True}
        return super().handle_update(json_snippet, tmpl_diff, prop_diff)

    def _rolling_settings(self) -> tuple[int, int, float] | None:
        rolling = self.update_policy.get(self.ROLLING_UPDATE)
        if not rolling:
            return None
        return 0, rolling[self.MAX_BATCH_SIZE], rolling[self.PAUSE_TIME]

    def _outputs_for(self, names: list[str]) -> dict[str, Any]:
        outputs = {
            k: v
            for k, v in super()._outputs_for(names).items()
            if k in (self.REFS, self.REFS_MAP)
        }
        for attr in self._referenced_attrs():
            key = attr if isinstance(attr, str) else attr[0]
            member_attr = self._MEMBER_ATTRS.get(key, key)
            outputs[self._output_name(self.ATTR_ATTRIBUTES, member_attr)] = {
                "value": {n: {"get_attr": [n, member_attr]} for n in names}
            }
        return outputs

    def get_attribute(self, key: str, *path: Any) -> Any:
        member_attr = self._MEMBER_ATTRS.get(key, key)
        value = super().get_attribute(self.ATTR_ATTRIBUTES, member_attr)
        return api.attributes.select_from_attribute(value, path)


class StructuredDeploymentGroup(SoftwareDeploymentGroup):
    """A deployment group of ``OS::Heat::StructuredDeployment`` members."""

    support_status = api.SupportStatus(version="5.0.0")
    member_type = "OS::Heat::StructuredDeployment"

    PROPERTIES = (
        *SoftwareDeploymentGroup.PROPERTIES,
        StructuredDeployment.INPUT_KEY,
        StructuredDeployment.INPUT_VALUES_VALIDATE,
    )
    properties_schema = {
        **SoftwareDeploymentGroup.properties_schema,
        StructuredDeployment.INPUT_KEY: StructuredDeployment.properties_schema[
            StructuredDeployment.INPUT_KEY
        ],
        StructuredDeployment.INPUT_VALUES_VALIDATE: (
            StructuredDeployment.properties_schema[
                StructuredDeployment.INPUT_VALUES_VALIDATE
            ]
        ),
    }


class SoftwareDeployments(SoftwareDeploymentGroup):
    """The former name of ``OS::Heat::SoftwareDeploymentGroup``.

    Hidden: not listed, and its schema is not shown, but templates that
    still use the name work, and an update to the new name changes the
    resource's type without replacing it.
    """

    support_status = api.SupportStatus(
        status=api.support.HIDDEN,
        message="Please use OS::Heat::SoftwareDeploymentGroup instead.",
        version="7.0.0",
        previous_status=api.SupportStatus(
            status=api.support.DEPRECATED, version="2014.2"
        ),
        substitute_class=SoftwareDeploymentGroup,
    )


class StructuredDeployments(StructuredDeploymentGroup):
    """The former name of ``OS::Heat::StructuredDeploymentGroup``.

    Hidden: not listed, and its schema is not shown, but templates that
    still use the name work, and an update to the new name changes the
    resource's type without replacing it.
    """

    support_status = api.SupportStatus(
        status=api.support.HIDDEN,
        message="Please use OS::Heat::StructuredDeploymentGroup instead.",
        version="7.0.0",
        previous_status=api.SupportStatus(
            status=api.support.DEPRECATED, version="2014.2"
        ),
        substitute_class=StructuredDeploymentGroup,
    )
