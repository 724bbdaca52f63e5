"""``OS::Heat::DeployedServer``: a server deployed outside OpenStack."""

from __future__ import annotations

import logging
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api import server_base

LOG = logging.getLogger(__name__)
Schema = api.properties.Schema

#: Heat's ``default_software_config_transport``.
DEFAULT_TRANSPORT = server_base.POLL_SERVER_CFN


class DeployedServer(server_base.BaseServer):
    """A server deployed by other means, configured by Heat deployments.

    Nothing is created: the resource gives the server's agent
    (os-collect-config) the credentials and URLs it needs to poll for
    ``OS::Heat::SoftwareDeployment`` data; read them from the
    ``os_collect_config`` attribute.
    """

    default_client_name = "heat"

    PROPERTIES = (
        NAME,
        METADATA,
        SOFTWARE_CONFIG_TRANSPORT,
        DEPLOYMENT_SWIFT_DATA,
    ) = (
        "name",
        "metadata",
        "software_config_transport",
        "deployment_swift_data",
    )
    _DEPLOYMENT_SWIFT_DATA_KEYS = (CONTAINER, OBJECT) = ("container", "object")
    ATTRIBUTES = (NAME_ATTR, OS_COLLECT_CONFIG) = ("name", "os_collect_config")

    properties_schema = {
        NAME: Schema(Schema.STRING, "The server's name.", update_allowed=True),
        METADATA: Schema(
            Schema.MAP,
            "Ignored.",
            update_allowed=True,
            support_status=api.SupportStatus(
                status=api.support.DEPRECATED,
                message="This property will be ignored",
                version="9.0.0",
                previous_status=api.SupportStatus(
                    status=api.support.SUPPORTED, version="8.0.0"
                ),
            ),
        ),
        SOFTWARE_CONFIG_TRANSPORT: Schema(
            Schema.STRING,
            "How the server's agent gets its deployments: the CFN API "
            "with a keypair (POLL_SERVER_CFN), the Heat API with "
            "credentials (POLL_SERVER_HEAT), a Swift temporary URL "
            "(POLL_TEMP_URL) or a Zaqar queue (ZAQAR_MESSAGE).",
            default=DEFAULT_TRANSPORT,
            update_allowed=True,
            constraints=[
                api.constraints.AllowedValues(
                    list(server_base.SOFTWARE_CONFIG_TRANSPORTS)
                )
            ],
        ),
        DEPLOYMENT_SWIFT_DATA: Schema(
            Schema.MAP,
            "Swift container and object for POLL_TEMP_URL.",
            default={},
            update_allowed=True,
            schema={
                CONTAINER: Schema(
                    Schema.STRING,
                    "The container name.",
                    constraints=[api.constraints.Length(min=1)],
                ),
                OBJECT: Schema(
                    Schema.STRING,
                    "The object name.",
                    constraints=[api.constraints.Length(min=1)],
                ),
            },
            support_status=api.SupportStatus(version="9.0.0"),
        ),
    }

    attributes_schema = {
        NAME_ATTR: api.attributes.Schema(
            "The server's name.", type=api.attributes.Schema.STRING
        ),
        OS_COLLECT_CONFIG: api.attributes.Schema(
            "The os-collect-config settings for the server's agent.",
            type=api.attributes.Schema.MAP,
            support_status=api.SupportStatus(version="9.0.0"),
        ),
    }

    def handle_create(self) -> str:
        metadata = self.metadata_get(True) or {}
        self.resource_id_set(self.uuid)
        self._create_transport_credentials(self.properties)
        self._populate_deployments_metadata(metadata, self.properties)
        return self.uuid

    def check_create_complete(self, cookie: Any) -> bool:
        return True

    def _show_resource(self) -> Any:
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == self.NAME_ATTR:
            return self._server_name()
        if name == self.OS_COLLECT_CONFIG:
            return self.metadata_get().get("os-collect-config", {})
        return None

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        if self.SOFTWARE_CONFIG_TRANSPORT in prop_diff:
            try:
                metadata = self.metadata_get(True) or {}
                self._create_transport_credentials(prop_diff)
                self._populate_deployments_metadata(metadata, prop_diff)
            except Exception:
                # Best effort, as in Heat: the old transport keeps working.
                LOG.exception("Error while updating software config transport")
