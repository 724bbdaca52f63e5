"""``OS::Keystone::Project``: a Keystone project."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_keystone import base

Schema = api.properties.Schema
Attr = api.attributes.Schema


class KeystoneProject(base.KeystoneResource):
    """A Keystone project, the unit that owns cloud resources.

    A project lives in one domain (``default`` unless ``domain`` says
    otherwise), and its name is unique within that domain only. Give
    ``parent`` to place it under another project of a hierarchy; that
    choice is fixed at creation. Without ``name`` the project is named
    after the stack and resource. Needs Keystone v3 and, by default, the
    admin role.
    """

    support_status = base.supported_since("2015.1")
    entity = "projects"

    PROPERTIES = (NAME, DOMAIN, DESCRIPTION, ENABLED, PARENT, TAGS) = (
        "name",
        "domain",
        "description",
        "enabled",
        "parent",
        "tags",
    )

    properties_schema = {
        NAME: Schema(
            Schema.STRING,
            "The project's name (default: a name made from the stack and "
            "resource names).",
            update_allowed=True,
        ),
        DOMAIN: Schema(
            Schema.STRING,
            "The domain that owns the project, by name or id.",
            default="default",
            update_allowed=True,
            constraints=[api.constraints.CustomConstraint("keystone.domain")],
        ),
        DESCRIPTION: Schema(
            Schema.STRING,
            "Free text describing the project.",
            default="",
            update_allowed=True,
        ),
        ENABLED: Schema(
            Schema.BOOLEAN,
            "Whether users can get tokens scoped to the project.",
            default=True,
            update_allowed=True,
        ),
        PARENT: Schema(
            Schema.STRING,
            "The project above this one in the hierarchy, by name or id.",
            support_status=api.SupportStatus(version="6.0.0"),
            constraints=[api.constraints.CustomConstraint("keystone.project")],
        ),
        TAGS: Schema(
            Schema.LIST,
            "Tags to label, sort and filter projects by.",
            support_status=api.SupportStatus(version="10.0.0"),
            default=[],
            update_allowed=True,
        ),
    }

    ATTRIBUTES = (
        NAME_ATTR,
        PARENT_ATTR,
        DOMAIN_ATTR,
        ENABLED_ATTR,
        IS_DOMAIN_ATTR,
    ) = ("name", "parent_id", "domain_id", "enabled", "is_domain")

    attributes_schema = {
        NAME_ATTR: Attr(
            "The project's name in Keystone.",
            support_status=api.SupportStatus(version="10.0.0"),
            type=Attr.STRING,
        ),
        PARENT_ATTR: Attr(
            "The id of the parent project.",
            support_status=api.SupportStatus(version="10.0.0"),
            type=Attr.STRING,
        ),
        DOMAIN_ATTR: Attr(
            "The id of the owning domain.",
            support_status=api.SupportStatus(version="10.0.0"),
            type=Attr.STRING,
        ),
        ENABLED_ATTR: Attr(
            "Whether the project is enabled.",
            support_status=api.SupportStatus(version="10.0.0"),
            type=Attr.BOOLEAN,
        ),
        IS_DOMAIN_ATTR: Attr(
            "Whether the project is also a domain.",
            support_status=api.SupportStatus(version="10.0.0"),
            type=Attr.BOOLEAN,
        ),
    }

    def translation_rules(self, properties: Any) -> list[Any]:
        rule = api.translation.TranslationRule
        return [
            rule(
                properties,
                api.translation.RESOLVE,
                [self.DOMAIN],
                client_plugin=self.client_plugin(),
                finder="get_domain_id",
            ),
            rule(
                properties,
                api.translation.RESOLVE,
                [self.PARENT],
                client_plugin=self.client_plugin(),
                finder="get_project_id",
            ),
        ]

    def handle_create(self) -> None:
        attrs: dict[str, Any] = {
            "name": self.physical_name_or(self.properties[self.NAME]),
            "domain_id": self.properties[self.DOMAIN],
            "description": self.properties[self.DESCRIPTION],
            "enabled": self.properties[self.ENABLED],
            "tags": list(self.properties[self.TAGS] or []),
        }
        if self.properties[self.PARENT]:
            attrs["parent_id"] = self.properties[self.PARENT]
        project = self.identity().create(self.entity, attrs)
        self.resource_id_set(project["id"])

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        if not prop_diff:
            return
        attrs = base.changed_attrs(
            prop_diff,
            {
                self.DESCRIPTION: "description",
                self.ENABLED: "enabled",
                self.DOMAIN: "domain_id",
            },
        )
        if self.NAME in prop_diff:
            attrs["name"] = self.physical_name_or(prop_diff[self.NAME])
        if self.TAGS in prop_diff:
            attrs["tags"] = list(prop_diff[self.TAGS] or [])
        self.update_object(attrs)

    def parse_live_resource_data(
        self,
        resource_properties: Mapping[str, Any],
        resource_data: Mapping[str, Any],
    ) -> dict[str, Any]:
        live = super().parse_live_resource_data(
            resource_properties, resource_data
        )
        live[self.DOMAIN] = resource_data.get("domain_id")
        return live
