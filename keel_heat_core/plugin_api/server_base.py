"""BaseServer: what servers and deployed servers share.

A server that runs software deployments polls for them.  Its metadata
holds ``deployments`` (the engine pushes them) and ``os-collect-config``,
the settings of the agent on the server, chosen by the
``software_config_transport`` property:

* ``POLL_SERVER_CFN`` - the CFN API's DescribeStackResource, signed with
  the server's EC2 keypair;
* ``POLL_SERVER_HEAT`` - the Heat API resource show, with the server's
  stack-user credentials.

``POLL_TEMP_URL`` (Swift) and ``ZAQAR_MESSAGE`` come with the Swift and
Zaqar packs.
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

from keel_heat_core import exception
from keel_heat_core.plugin_api import identifier
from keel_heat_core.plugin_api.stack_user import StackUser

SOFTWARE_CONFIG_TRANSPORTS = (
    POLL_SERVER_CFN,
    POLL_SERVER_HEAT,
    POLL_TEMP_URL,
    ZAQAR_MESSAGE,
) = ("POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE")

#: Heat's ``max_server_name_length``.
MAX_SERVER_NAME_LENGTH = 53


class BaseServer(StackUser):
    """Base of server resources (see the module docstring).

    Subclasses define the ``name`` and ``software_config_transport``
    properties (names in :attr:`NAME` and :attr:`SOFTWARE_CONFIG_TRANSPORT`).
    """

    NAME = "name"
    SOFTWARE_CONFIG_TRANSPORT = "software_config_transport"
    physical_resource_name_limit: ClassVar[int | None] = MAX_SERVER_NAME_LENGTH
    #: collectors the agent always uses, before the transport's
    default_collectors: ClassVar[tuple[str, ...]] = ()

    @property
    def password(self) -> str | None:
        return self.data().get("password")

    @password.setter
    def password(self, value: str | None) -> None:
        if value is None:
            self.data_delete("password")
        else:
            self.data_set("password", value, True)

    @property
    def access_key(self) -> str | None:
        return self.data().get("access_key")

    @property
    def secret_key(self) -> str | None:
        return self.data().get("secret_key")

    def _server_name(self) -> str | None:
        name = self.properties[self.NAME]
        return str(name) if name else self.physical_resource_name()

    def _transport(self, props: Any) -> Any:
        return props[self.SOFTWARE_CONFIG_TRANSPORT]

    def _create_transport_credentials(self, props: Any) -> None:
        transport = self._transport(props)
        if transport == POLL_SERVER_CFN:
            self._create_user()
            self._create_keypair()
        elif transport in (POLL_SERVER_HEAT, ZAQAR_MESSAGE):
            self.password = uuid.uuid4().hex
            self._create_user()

    def _heat_collector(self) -> dict[str, Any]:
        keystone = self.keystone()
        ident = identifier.stack_identifier(self.stack)
        settings = {
            "user_id": self._get_user_id(),
            "password": self.password,
            "auth_url": keystone.server_keystone_endpoint_url(
                fallback_endpoint=getattr(self.context, "auth_url", None)
            ),
            "project_id": self.stack.stack_user_project_id,
            "stack_id": f"{ident.stack_name}/{ident.stack_id}",
            "resource_name": self.name,
        }
        region = getattr(self.context, "region_name", None)
        if region:
            settings["region_name"] = region
        return settings

    def _cfn_collector(self) -> dict[str, Any]:
        url = self.client_plugin("heat").get_cfn_metadata_server_url()
        return {
            "metadata_url": url,
            "access_key_id": self.access_key,
            "secret_access_key": self.secret_key,
            "stack_name": self.stack.name,
            "path": f"{self.name}.Metadata",
        }

    def _populate_deployments_metadata(
        self, meta: dict[str, Any], props: Any
    ) -> None:
        """Write the agent settings for the transport into the metadata."""
        meta["deployments"] = meta.get("deployments", [])
        occ = meta["os-collect-config"] = meta.get("os-collect-config", {})
        collectors = list(self.default_collectors)
        occ["collectors"] = collectors
        # Settings of an earlier transport are nulled, not removed, so
        # that they override what the server was booted with.
        for key in ("heat", "zaqar", "cfn", "request"):
            for setting in occ.get(key) or {}:
                occ[key][setting] = None
        transport = self._transport(props)
        if transport == POLL_SERVER_HEAT:
            occ["heat"] = self._heat_collector()
            collectors.append("heat")
        elif transport == POLL_SERVER_CFN:
            occ["cfn"] = self._cfn_collector()
            collectors.append("cfn")
        elif transport in (POLL_TEMP_URL, ZAQAR_MESSAGE):
            raise exception.NotSupported(
                feature=f"Software config transport {transport} in this "
                "deployment"
            )
        collectors.append("local")
        self.metadata_set(meta)

    def _delete(self) -> None:
        self._delete_user()

    def handle_delete(self) -> Any:
        self._delete()
        return None
