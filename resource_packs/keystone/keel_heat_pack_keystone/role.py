"""``OS::Keystone::Role``: a Keystone role."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_keystone import base

Schema = api.properties.Schema


class KeystoneRole(base.KeystoneResource):
    """A Keystone role, the name of a set of permissions.

    Roles are granted to users or groups on a project or a domain (see
    ``OS::Keystone::UserRoleAssignment`` and the ``roles`` property of
    users and groups). Without ``domain`` the role is global; with it, the
    role is a domain-specific role, and moving it to another domain makes
    a new role. Without ``name`` it is named after the stack and resource.
    """

    support_status = base.supported_since("2015.1")
    entity = "roles"

    PROPERTIES = (NAME, DOMAIN) = ("name", "domain")

    properties_schema = {
        NAME: Schema(
            Schema.STRING,
            "The role's name (default: a name made from the stack and "
            "resource names).",
            update_allowed=True,
        ),
        DOMAIN: Schema(
            Schema.STRING,
            "The domain of a domain-specific role, by name or id.",
            constraints=[api.constraints.CustomConstraint("keystone.domain")],
            support_status=api.SupportStatus(version="10.0.0"),
        ),
    }

    def translation_rules(self, properties: Any) -> list[Any]:
        return [
            api.translation.TranslationRule(
                properties,
                api.translation.RESOLVE,
                [self.DOMAIN],
                client_plugin=self.client_plugin(),
                finder="get_domain_id",
            )
        ]

    def handle_create(self) -> None:
        attrs: dict[str, Any] = {
            "name": self.physical_name_or(self.properties[self.NAME])
        }
        if self.properties[self.DOMAIN]:
            attrs["domain_id"] = self.properties[self.DOMAIN]
        role = self.identity().create(self.entity, attrs)
        self.resource_id_set(role["id"])

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        if self.NAME in prop_diff:
            name = self.physical_name_or(prop_diff[self.NAME])
            self.update_object({"name": name})
