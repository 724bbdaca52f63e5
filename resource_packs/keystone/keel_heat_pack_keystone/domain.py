"""``OS::Keystone::Domain``: a Keystone domain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_keystone import base

Schema = api.properties.Schema


class KeystoneDomain(base.KeystoneResource):
    """A Keystone domain, a namespace of projects, users and groups.

    Names of users, groups and projects are unique within their domain.
    A disabled domain refuses tokens for everything inside it. Keystone
    deletes only disabled domains, so deleting the resource disables the
    domain first. Without ``name`` the domain is named after the stack and
    resource.
    """

    support_status = base.supported_since("8.0.0")
    entity = "domains"

    PROPERTIES = (NAME, DESCRIPTION, ENABLED) = (
        "name",
        "description",
        "enabled",
    )

    properties_schema = {
        NAME: Schema(
            Schema.STRING,
            "The domain's name (default: a name made from the stack and "
            "resource names).",
            update_allowed=True,
        ),
        DESCRIPTION: Schema(
            Schema.STRING,
            "Free text describing the domain.",
            update_allowed=True,
        ),
        ENABLED: Schema(
            Schema.BOOLEAN,
            "Whether the domain and what it holds can be used.",
            default=True,
            update_allowed=True,
        ),
    }

    def handle_create(self) -> None:
        attrs: dict[str, Any] = {
            "name": self.physical_name_or(self.properties[self.NAME]),
            "enabled": self.properties[self.ENABLED],
        }
        if self.properties[self.DESCRIPTION] is not None:
            attrs["description"] = self.properties[self.DESCRIPTION]
        domain = self.identity().create(self.entity, attrs)
        self.resource_id_set(domain["id"])

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        attrs = base.changed_attrs(
            prop_diff,
            {self.DESCRIPTION: "description", self.ENABLED: "enabled"},
        )
        if self.NAME in prop_diff:
            attrs["name"] = self.physical_name_or(prop_diff[self.NAME])
        self.update_object(attrs)

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return None
        with self.client_plugin().ignore_not_found:
            self.update_object({"enabled": False})
            self.identity().delete(self.entity, self.resource_id)
        return None

    def parse_live_resource_data(
        self,
        resource_properties: Mapping[str, Any],
        resource_data: Mapping[str, Any],
    ) -> dict[str, Any]:
        return {
            key: resource_data.get(key)
            for key in (self.NAME, self.DESCRIPTION, self.ENABLED)
        }
