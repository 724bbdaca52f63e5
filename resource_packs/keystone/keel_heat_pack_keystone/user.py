"""``OS::Keystone::User``: a Keystone user."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_keystone import base, role_assignments

Schema = api.properties.Schema
Attr = api.attributes.Schema


class KeystoneUser(
    role_assignments.RoleAssignmentMixin, base.KeystoneResource
):
    """A Keystone user: a person or program that calls the cloud's APIs.

    A user lives in one domain (``default`` unless ``domain`` says
    otherwise) and its name is unique within that domain only. ``groups``
    makes the user a member of existing groups and ``roles`` grants it
    roles on projects or domains; changing either adds and removes only
    the difference. Without ``name`` the user is named after the stack and
    resource.
    """

    support_status = base.supported_since("2015.1")
    entity = "users"
    actor = "users"

    PROPERTIES = (
        NAME,
        DOMAIN,
        DESCRIPTION,
        ENABLED,
        EMAIL,
        PASSWORD,
        DEFAULT_PROJECT,
        GROUPS,
    ) = (
        "name",
        "domain",
        "description",
        "enabled",
        "email",
        "password",
        "default_project",
        "groups",
    )

    properties_schema = {
        NAME: Schema(
            Schema.STRING,
            "The user's name (default: a name made from the stack and "
            "resource names).",
            update_allowed=True,
        ),
        DOMAIN: Schema(
            Schema.STRING,
            "The domain that owns the user, by name or id.",
            default="default",
            update_allowed=True,
            constraints=[api.constraints.CustomConstraint("keystone.domain")],
        ),
        DESCRIPTION: Schema(
            Schema.STRING,
            "Free text describing the user.",
            default="",
            update_allowed=True,
        ),
        ENABLED: Schema(
            Schema.BOOLEAN,
            "Whether the user may get tokens.",
            default=True,
            update_allowed=True,
        ),
        EMAIL: Schema(
            Schema.STRING,
            "The user's e-mail address.",
            update_allowed=True,
        ),
        PASSWORD: Schema(
            Schema.STRING,
            "The user's password.",
            update_allowed=True,
        ),
        DEFAULT_PROJECT: Schema(
            Schema.STRING,
            "The project a token is scoped to when none is asked for, by "
            "name or id.",
            update_allowed=True,
            constraints=[api.constraints.CustomConstraint("keystone.project")],
        ),
        GROUPS: Schema(
            Schema.LIST,
            "Groups the user is a member of.",
            update_allowed=True,
            schema=Schema(
                Schema.STRING,
                "A group, by name or id.",
                constraints=[
                    api.constraints.CustomConstraint("keystone.group")
                ],
            ),
        ),
        **role_assignments.ROLES_SCHEMA,
    }

    ATTRIBUTES = (
        NAME_ATTR,
        DEFAULT_PROJECT_ATTR,
        DOMAIN_ATTR,
        ENABLED_ATTR,
        PASSWORD_EXPIRES_AT_ATTR,
    ) = (
        "name",
        "default_project_id",
        "domain_id",
        "enabled",
        "password_expires_at",
    )

    attributes_schema = {
        NAME_ATTR: Attr(
            "The user's name in Keystone.",
            support_status=api.SupportStatus(version="9.0.0"),
            type=Attr.STRING,
        ),
        DEFAULT_PROJECT_ATTR: Attr(
            "The id of the user's default project.",
            support_status=api.SupportStatus(version="9.0.0"),
            type=Attr.STRING,
        ),
        DOMAIN_ATTR: Attr(
            "The id of the owning domain.",
            support_status=api.SupportStatus(version="9.0.0"),
            type=Attr.STRING,
        ),
        ENABLED_ATTR: Attr(
            "Whether the user is enabled.",
            support_status=api.SupportStatus(version="9.0.0"),
            type=Attr.BOOLEAN,
        ),
        PASSWORD_EXPIRES_AT_ATTR: Attr(
            "When the password expires (null: never).",
            support_status=api.SupportStatus(version="9.0.0"),
            type=Attr.STRING,
        ),
    }

    #: property -> Keystone attribute, for create and update
    _ATTRS = {
        DOMAIN: "domain_id",
        DESCRIPTION: "description",
        ENABLED: "enabled",
        EMAIL: "email",
        PASSWORD: "password",
        DEFAULT_PROJECT: "default_project_id",
    }

    def translation_rules(self, properties: Any) -> list[Any]:
        rule = api.translation.TranslationRule
        finders = (
            (self.DOMAIN, "get_domain_id"),
            (self.DEFAULT_PROJECT, "get_project_id"),
            (self.GROUPS, "get_group_id"),
        )
        return [
            rule(
                properties,
                api.translation.RESOLVE,
                [prop],
                client_plugin=self.client_plugin(),
                finder=finder,
            )
            for prop, finder in finders
        ]

    def validate(self) -> None:
        super().validate()
        self.validate_assignment_properties()

    def _membership(self, group_id: str) -> str:
        return f"/groups/{group_id}/users/{self.resource_id}"

    def _join(self, groups: Iterable[str]) -> None:
        for group_id in sorted(groups):
            self.identity().put(self._membership(group_id))

    def _leave(self, groups: Iterable[str]) -> None:
        for group_id in sorted(groups):
            with self.client_plugin().ignore_not_found:
                self.identity().remove(self._membership(group_id))

    def handle_create(self) -> None:
        attrs = {
            attr: self.properties[prop]
            for prop, attr in self._ATTRS.items()
            if self.properties[prop] is not None
        }
        attrs["name"] = self.physical_name_or(self.properties[self.NAME])
        user = self.identity().create(self.entity, attrs)
        self.resource_id_set(user["id"])
        self._join(self.properties[self.GROUPS] or [])
        self.create_assignment(user["id"])

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        attrs = base.changed_attrs(prop_diff, self._ATTRS)
        if self.NAME in prop_diff:
            attrs["name"] = self.physical_name_or(prop_diff[self.NAME])
        self.update_object(attrs)
        if self.GROUPS in prop_diff:
            old = set(self.properties[self.GROUPS] or [])
            new = set(prop_diff[self.GROUPS] or [])
            self._join(new - old)
            self._leave(old - new)
        self.update_assignment(prop_diff, self.resource_id)

    def parse_live_resource_data(
        self,
        resource_properties: Mapping[str, Any],
        resource_data: Mapping[str, Any],
    ) -> dict[str, Any]:
        live = {
            prop: resource_data.get(attr)
            for prop, attr in self._ATTRS.items()
            if prop != self.PASSWORD
        }
        live[self.NAME] = resource_data.get("name")
        groups = self.identity().list(f"users/{self.resource_id}/groups")
        live[self.GROUPS] = [group["id"] for group in groups]
        live[self.ROLES] = self.live_roles(self.resource_id)
        return live
