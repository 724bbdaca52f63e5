"""Find Keystone objects by id or name, the way Heat's finders do.

Every finder first asks for the value as an id; when Keystone says not
found, it lists the objects of that name (in the given domain, if any)
and takes the one whose name matches exactly. Users, projects, groups and
roles may be written ``name{domain}``, the domain itself by id or name.
Nothing found raises :class:`~keel_heat_core.exception.EntityNotFound`
with Heat's entity names (``KeystoneRole`` …).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib import parse

from openstack import exceptions as sdk_exc

from keel_heat_core.plugin_api import exception

_DOMAIN_SUFFIX = re.compile(r"\{(.*?)\}$")


class IdentityLookup:
    """Finders over an openstacksdk identity proxy.

    :param identity: ``connection.identity`` of an openstacksdk connection.
    """

    def __init__(self, identity: Any) -> None:
        self._identity = identity

    def parse_entity_with_domain(
        self, entity_with_domain: str, entity_type: str
    ) -> tuple[str, str | None]:
        """Split ``name{domain}`` into the name and the domain's id.

        :param entity_with_domain: e.g. ``"alice{Default}"`` or ``"alice"``.
        :param entity_type: Heat's entity name for the error.
        :raises EntityNotFound: when the domain cannot be found.
        """
        match = _DOMAIN_SUFFIX.search(entity_with_domain)
        if not match:
            return entity_with_domain, None
        try:
            domain = self.get_domain_id(match.group(1))
        except Exception:
            raise exception.EntityNotFound(
                entity=entity_type, name=entity_with_domain
            ) from None
        return entity_with_domain[: match.start()], domain

    def _find(
        self,
        value: str,
        entity: str,
        get: Callable[[str], Any],
        listing: Callable[..., Iterable[Any]],
        domain: str | None,
        domain_scoped: bool = True,
    ) -> str:
        name = value
        if domain_scoped and not domain:
            name, domain = self.parse_entity_with_domain(value, entity)
        try:
            return str(get(name).id)
        except sdk_exc.NotFoundException:
            pass
        filters: dict[str, str] = {"name": name}
        if domain:
            filters["domain_id"] = domain
        for obj in listing(**filters):
            if obj.name == name:
                return str(obj.id)
        raise exception.EntityNotFound(entity=entity, name=name)

    def get_role_id(self, role: str | None, domain: str | None = None) -> Any:
        """Return the id of a role (id, name or ``name{domain}``)."""
        if role is None:
            return None
        ident = self._identity
        return self._find(
            role, "KeystoneRole", ident.get_role, ident.roles, domain
        )

    def get_project_id(
        self, project: str | None, domain: str | None = None
    ) -> Any:
        """Return the id of a project (id, name or ``name{domain}``)."""
        if project is None:
            return None
        ident = self._identity
        return self._find(
            project,
            "KeystoneProject",
            ident.get_project,
            ident.projects,
            domain,
        )

    def get_group_id(
        self, group: str | None, domain: str | None = None
    ) -> Any:
        """Return the id of a group (id, name or ``name{domain}``)."""
        if group is None:
            return None
        ident = self._identity
        return self._find(
            group, "KeystoneGroup", ident.get_group, ident.groups, domain
        )

    def get_user_id(self, user: str | None, domain: str | None = None) -> Any:
        """Return the id of a user (id, name or ``name{domain}``)."""
        if user is None:
            return None
        ident = self._identity
        return self._find(
            user, "KeystoneUser", ident.get_user, ident.users, domain
        )

    def get_domain_id(self, domain: str | None) -> Any:
        """Return the id of a domain (id or name)."""
        if domain is None:
            return None
        ident = self._identity
        return self._find(
            domain,
            "KeystoneDomain",
            ident.get_domain,
            ident.domains,
            None,
            domain_scoped=False,
        )

    def get_service_id(self, service: str | None) -> Any:
        """Return the id of a service (id, or a name only one service has).

        :raises KeystoneServiceNameConflict: when several services have
            that name.
        """
        if service is None:
            return None
        try:
            return str(self._identity.get_service(service).id)
        except sdk_exc.NotFoundException:
            pass
        found = [s for s in self._identity.services() if s.name == service]
        if len(found) == 1:
            return str(found[0].id)
        if found:
            raise exception.KeystoneServiceNameConflict(service=service)
        raise exception.EntityNotFound(entity="KeystoneService", name=service)

    def get_region_id(self, region: str) -> Any:
        """Return the id of a region (regions have no separate name).

        Region ids are chosen by people and may hold ``%`` or ``/``: the
        id is quoted in the URL.
        """
        try:
            quoted = parse.quote(region, safe="")
            return str(self._identity.get_region(quoted).id)
        except sdk_exc.NotFoundException:
            raise exception.EntityNotFound(
                entity="KeystoneRegion", name=region
            ) from None
