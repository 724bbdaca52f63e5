"""Role grants: the ``roles`` property and the two assignment types.

``OS::Keystone::User`` and ``OS::Keystone::Group`` take a ``roles`` list;
``OS::Keystone::UserRoleAssignment`` and
``OS::Keystone::GroupRoleAssignment`` grant such a list to a user or group
made elsewhere. Each item grants one role on either a project or a
domain. Names are turned into ids before Keystone is asked, so an item
written by name and the same item written by id are the same grant.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from keel_heat_core import plugin_api as api
from keel_heat_pack_keystone import base

Schema = api.properties.Schema

ROLES = "roles"
ROLE_KEYS = (ROLE, DOMAIN, PROJECT) = ("role", "domain", "project")

#: A grant as Keystone sees it: (scope collection, scope id, role id).
Grant = tuple[str, str, str]

ROLES_SCHEMA = {
    ROLES: Schema(
        Schema.LIST,
        "Roles to grant, each on one project or one domain.",
        schema=Schema(
            Schema.MAP,
            "One grant: a role and either a project or a domain.",
            schema={
                ROLE: Schema(
                    Schema.STRING,
                    "The role to grant, by name or id.",
                    required=True,
                    constraints=[
                        api.constraints.CustomConstraint("keystone.role")
                    ],
                ),
                PROJECT: Schema(
                    Schema.STRING,
                    "The project the role is granted on, by name or id.",
                    constraints=[
                        api.constraints.CustomConstraint("keystone.project")
                    ],
                ),
                DOMAIN: Schema(
                    Schema.STRING,
                    "The domain the role is granted on, by name or id.",
                    constraints=[
                        api.constraints.CustomConstraint("keystone.domain")
                    ],
                ),
            },
        ),
        update_allowed=True,
    )
}


class RoleAssignmentMixin:
    """Grant, compare and revoke the ``roles`` of a user or group.

    :cvar actor: Keystone's collection of the grantee, ``users`` or
        ``groups``.
    """

    ROLES = ROLES
    ROLE, DOMAIN, PROJECT = ROLE, DOMAIN, PROJECT
    actor: ClassVar[str] = "users"

    properties: Any
    client_plugin: Any

    def validate_assignment_properties(self) -> None:
        """Each item names exactly one of project and domain.

        :raises ResourcePropertyConflict: both are given.
        :raises StackValidationFailed: neither is given.
        """
        for item in self.properties[ROLES] or []:
            project, domain = item.get(PROJECT), item.get(DOMAIN)
            if project is not None and domain is not None:
                raise api.exception.ResourcePropertyConflict(PROJECT, DOMAIN)
            if project is None and domain is None:
                raise api.exception.StackValidationFailed(
                    message="Either project or domain must be specified "
                    f"for role {item.get(ROLE)}"
                )

    def grants(self, items: Iterable[Mapping[str, Any]] | None) -> set[Grant]:
        """The Keystone grants that ``roles`` items stand for."""
        plugin = self.client_plugin()
        found: set[Grant] = set()
        for item in items or []:
            role = plugin.get_role_id(item[ROLE])
            if item.get(PROJECT):
                project = plugin.get_project_id(item[PROJECT])
                found.add(("projects", project, role))
            elif item.get(DOMAIN):
                found.add(
                    ("domains", plugin.get_domain_id(item[DOMAIN]), role)
                )
        return found

    def _grant_path(self, actor_id: str, grant: Grant) -> str:
        scope, scope_id, role_id = grant
        return f"/{scope}/{scope_id}/{self.actor}/{actor_id}/roles/{role_id}"

    def grant_roles(self, actor_id: str, grants: Iterable[Grant]) -> None:
        """Grant each role to the user or group."""
        identity = self.client_plugin().identity_api()
        for grant in sorted(grants):
            identity.put(self._grant_path(actor_id, grant))

    def revoke_roles(self, actor_id: str, grants: Iterable[Grant]) -> None:
        """Revoke each role; grants already gone are skipped."""
        identity = self.client_plugin().identity_api()
        for grant in sorted(grants):
            with self.client_plugin().ignore_not_found:
                identity.remove(self._grant_path(actor_id, grant))

    def create_assignment(self, actor_id: str | None) -> None:
        """Grant the ``roles`` of the current properties."""
        if actor_id is not None:
            self.grant_roles(actor_id, self.grants(self.properties[ROLES]))

    def update_assignment(
        self,
        prop_diff: Mapping[str, Any],
        actor_id: str | None,
        old_actor_id: str | None = None,
    ) -> None:
        """Apply a change of ``roles`` (and of the grantee, if any).

        ``self.properties`` still holds the old values during an update.

        :param old_actor_id: the grantee before the update, when it changed.
        """
        if ROLES not in prop_diff and old_actor_id in (None, actor_id):
            return
        old = self.grants(self.properties[ROLES])
        new = self.grants(prop_diff[ROLES]) if ROLES in prop_diff else set(old)
        if old_actor_id is not None and old_actor_id != actor_id:
            self.revoke_roles(old_actor_id, old)
            old = set()
        if actor_id is None:
            return
        self.grant_roles(actor_id, new - old)
        self.revoke_roles(actor_id, old - new)

    def live_roles(self, actor_id: str | None) -> list[dict[str, Any]]:
        """The direct grants of the user or group, as ``roles`` items (by
        id; the scope it is not granted on is None)."""
        if actor_id is None:
            return []
        query = {f"{self.actor[:-1]}.id": actor_id}
        listed = (
            self.client_plugin()
            .identity_api()
            .list("role_assignments", **query)
        )
        roles = []
        for item in listed:
            role_id = (item.get("role") or {}).get("id")
            if not role_id:
                continue
            scope = item.get("scope") or {}
            roles.append(
                {
                    ROLE: role_id,
                    DOMAIN: (scope.get("domain") or {}).get("id"),
                    PROJECT: (scope.get("project") or {}).get("id"),
                }
            )
        return roles

    def delete_assignment(self, actor_id: str | None) -> None:
        """Revoke the ``roles`` of the current properties."""
        if actor_id is not None:
            self.revoke_roles(actor_id, self.grants(self.properties[ROLES]))


class _RoleAssignment(RoleAssignmentMixin, base.KeystoneResource):
    """Grants ``roles`` to a user or group named by one property."""

    #: the property naming the grantee
    ACTOR_PROPERTY: ClassVar[str] = "user"
    #: the client plugin finder of the grantee
    ACTOR_FINDER: ClassVar[str] = "get_user_id"

    def _actor_id(self, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            return str(getattr(self.client_plugin(), self.ACTOR_FINDER)(value))
        except Exception as ex:
            self.client_plugin().ignore_not_found(ex)
            return None

    def validate(self) -> None:
        super().validate()
        self.validate_assignment_properties()

    def handle_create(self) -> None:
        actor_id = self._actor_id(self.properties[self.ACTOR_PROPERTY])
        self.create_assignment(actor_id)

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        old_actor = self._actor_id(self.properties[self.ACTOR_PROPERTY])
        new_actor = old_actor
        if self.ACTOR_PROPERTY in prop_diff:
            new_actor = self._actor_id(prop_diff[self.ACTOR_PROPERTY])
        self.update_assignment(prop_diff, new_actor, old_actor)

    def handle_delete(self) -> None:
        actor_id = self._actor_id(self.properties[self.ACTOR_PROPERTY])
        self.delete_assignment(actor_id)


class KeystoneUserRoleAssignment(_RoleAssignment):
    """Grants roles to an existing Keystone user.

    Each item of ``roles`` grants one role on a project or on a domain.
    Changing ``roles`` grants what was added and revokes what was removed;
    changing ``user`` moves the grants to the new user. Deleting the
    resource revokes the grants it made.
    """

    support_status = base.supported_since("5.0.0")
    actor = "users"
    ACTOR_PROPERTY = "user"
    ACTOR_FINDER = "get_user_id"

    PROPERTIES = (USER,) = ("user",)

    properties_schema = {
        USER: Schema(
            Schema.STRING,
            "The user to grant the roles to, by name or id.",
            required=True,
            update_allowed=True,
            constraints=[api.constraints.CustomConstraint("keystone.user")],
        ),
        **ROLES_SCHEMA,
    }


class KeystoneGroupRoleAssignment(_RoleAssignment):
    """Grants roles to an existing Keystone group.

    Every member of the group gets the roles. Each item of ``roles``
    grants one role on a project or on a domain; changes and deletion
    work as for ``OS::Keystone::UserRoleAssignment``.
    """

    support_status = base.supported_since("5.0.0")
    actor = "groups"
    ACTOR_PROPERTY = "group"
    ACTOR_FINDER = "get_group_id"

    PROPERTIES = (GROUP,) = ("group",)

    properties_schema = {
        GROUP: Schema(
            Schema.STRING,
            "The group to grant the roles to, by name or id.",
            required=True,
            update_allowed=True,
            constraints=[api.constraints.CustomConstraint("keystone.group")],
        ),
        **ROLES_SCHEMA,
    }
