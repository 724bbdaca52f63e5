"""``OS::Keystone::Service``: a service of the Keystone catalog."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_keystone import base

Schema = api.properties.Schema


class KeystoneService(base.KeystoneResource):
    """A service of the Keystone catalog (compute, image, …).

    A service is a kind of API (``type``, e.g. ``compute``) under a name;
    its URLs are ``OS::Keystone::Endpoint`` resources. Without ``name``
    the service is named after the stack and resource.
    """

    support_status = base.supported_since("5.0.0")
    entity = "services"

    PROPERTIES = (NAME, DESCRIPTION, TYPE, ENABLED) = (
        "name",
        "description",
        "type",
        "enabled",
    )

    properties_schema = {
        NAME: Schema(
            Schema.STRING,
            "The service's name (default: a name made from the stack and "
            "resource names).",
            update_allowed=True,
        ),
        DESCRIPTION: Schema(
            Schema.STRING,
            "Free text describing the service.",
            update_allowed=True,
        ),
        TYPE: Schema(
            Schema.STRING,
            "The kind of API the service offers, e.g. compute or image.",
            update_allowed=True,
            required=True,
        ),
        ENABLED: Schema(
            Schema.BOOLEAN,
            "Whether the service appears in the catalog.",
            default=True,
            update_allowed=True,
            support_status=api.SupportStatus(version="6.0.0"),
        ),
    }

    def handle_create(self) -> None:
        attrs: dict[str, Any] = {
            "name": self.physical_name_or(self.properties[self.NAME]),
            "type": self.properties[self.TYPE],
            "enabled": self.properties[self.ENABLED],
        }
        if self.properties[self.DESCRIPTION] is not None:
            attrs["description"] = self.properties[self.DESCRIPTION]
        service = self.identity().create(self.entity, attrs)
        self.resource_id_set(service["id"])

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        attrs = base.changed_attrs(
            prop_diff,
            {
                self.DESCRIPTION: "description",
                self.TYPE: "type",
                self.ENABLED: "enabled",
            },
        )
        if self.NAME in prop_diff:
            attrs["name"] = self.physical_name_or(prop_diff[self.NAME])
        self.update_object(attrs)
