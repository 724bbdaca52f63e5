"""``OS::Keystone::Group``: a Keystone group."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_keystone import base, role_assignments

Schema = api.properties.Schema


class KeystoneGroup(
    role_assignments.RoleAssignmentMixin, base.KeystoneResource
):
    """A Keystone group of users, to grant roles to many users at once.

    A group lives in one domain (``default`` unless ``domain`` says
    otherwise) and its name is unique within that domain only. ``roles``
    grants roles to the group on projects or domains, as
    ``OS::Keystone::GroupRoleAssignment`` does. Without ``name`` the group
    is named after the stack and resource.
    """

    support_status = base.supported_since("2015.1")
    entity = "groups"
    actor = "groups"

    PROPERTIES = (NAME, DOMAIN, DESCRIPTION) = (
        "name",
        "domain",
        "description",
    )

    properties_schema = {
        NAME: Schema(
            Schema.STRING,
            "The group's name (default: a name made from the stack and "
            "resource names).",
            update_allowed=True,
        ),
        DOMAIN: Schema(
            Schema.STRING,
            "The domain that owns the group, by name or id.",
            default="default",
            update_allowed=True,
            constraints=[api.constraints.CustomConstraint("keystone.domain")],
        ),
        DESCRIPTION: Schema(
            Schema.STRING,
            "Free text describing the group.",
            default="",
            update_allowed=True,
        ),
        **role_assignments.ROLES_SCHEMA,
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

    def validate(self) -> None:
        super().validate()
        self.validate_assignment_properties()

    def handle_create(self) -> None:
        group = self.identity().create(
            self.entity,
            {
                "name": self.physical_name_or(self.properties[self.NAME]),
                "domain_id": self.properties[self.DOMAIN],
                "description": self.properties[self.DESCRIPTION],
            },
        )
        self.resource_id_set(group["id"])
        self.create_assignment(group["id"])

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        attrs = base.changed_attrs(
            prop_diff,
            {self.DESCRIPTION: "description", self.DOMAIN: "domain_id"},
        )
        if self.NAME in prop_diff:
            attrs["name"] = self.physical_name_or(prop_diff[self.NAME])
        self.update_object(attrs)
        self.update_assignment(prop_diff, self.resource_id)

    def parse_live_resource_data(
        self,
        resource_properties: Mapping[str, Any],
        resource_data: Mapping[str, Any],
    ) -> dict[str, Any]:
        return {
            self.NAME: resource_data.get("name"),
            self.DESCRIPTION: resource_data.get("description"),
            self.DOMAIN: resource_data.get("domain_id"),
            self.ROLES: self.live_roles(self.resource_id),
        }
