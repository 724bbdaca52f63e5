"""The ``keystone`` client plugin: Keystone through openstacksdk.

The client is an :class:`openstack.connection.Connection` built on the
request context's keystoneauth1 session: ``context.keystone_session``,
which for stored-stack contexts is the trustee's session scoped to the
stack's trust (:mod:`keel_heat_core.identity.trusts`). The region comes
from ``context.region_name`` when set.
"""

from __future__ import annotations

from typing import Any

from keystoneauth1 import exceptions as ks_exc
from openstack import connection
from openstack import exceptions as sdk_exc

from keel_heat_client_keystone.identity_api import IdentityAPI
from keel_heat_client_keystone.lookup import IdentityLookup
from keel_heat_core.plugin_api import ClientPlugin, exception


class KeystoneClient:
    """openstacksdk's connection plus Heat's stack-domain calls.

    Attributes of the connection (``identity`` …) are the connection's;
    the stack-domain calls (``create_stack_domain_user`` …) are those of
    ``context.stack_domain``, the engine's stack-domain admin.
    """

    def __init__(
        self, conn: connection.Connection | None, domain: Any
    ) -> None:
        self.connection = conn
        self._domain = domain

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._domain is not None and hasattr(self._domain, name):
            return getattr(self._domain, name)
        return getattr(self.connection, name)


class KeystoneClientPlugin(ClientPlugin):
    """Identity client plugin (Heat's ``keystone`` client)."""

    exceptions_module = [ks_exc, sdk_exc, exception]
    service_types = ["identity"]

    def _create(self, version: Any = None) -> Any:
        session = getattr(self.context, "keystone_session", None)
        domain = getattr(self.context, "stack_domain", None)
        if session is None:
            if domain is not None:
                # stack users need the domain admin only
                return KeystoneClient(None, domain)
            raise exception.AuthorizationFailure(
                failure_reason=" The request context has no Keystone session."
            )
        region = getattr(self.context, "region_name", None)
        conn = connection.Connection(session=session, region_name=region)
        return conn if domain is None else KeystoneClient(conn, domain)

    def _lookup(self) -> IdentityLookup:
        return IdentityLookup(self.client().identity)

    def identity_api(self) -> IdentityAPI:
        """Keystone v3 as JSON calls (see :mod:`.identity_api`)."""
        return IdentityAPI(self.client().identity)

    def is_not_found(self, ex: BaseException) -> bool:
        """Not-found errors of keystoneauth, openstacksdk and Heat."""
        return isinstance(
            ex,
            ks_exc.NotFound
            | sdk_exc.NotFoundException
            | exception.EntityNotFound,
        )

    def is_over_limit(self, ex: BaseException) -> bool:
        """Request-too-large answers (HTTP 413)."""
        if isinstance(ex, ks_exc.RequestEntityTooLarge):
            return True
        return isinstance(ex, sdk_exc.HttpException) and (
            ex.status_code == 413
        )

    def is_conflict(self, ex: BaseException) -> bool:
        """Conflict answers (HTTP 409)."""
        return isinstance(ex, ks_exc.Conflict | sdk_exc.ConflictException)

    def parse_entity_with_domain(
        self, entity_with_domain: str, entity_type: str
    ) -> tuple[str, str | None]:
        """See :meth:`IdentityLookup.parse_entity_with_domain`."""
        return self._lookup().parse_entity_with_domain(
            entity_with_domain, entity_type
        )

    def get_role_id(self, role: str | None, domain: str | None = None) -> Any:
        """The id of a role given by id, name or ``name{domain}``."""
        return self._lookup().get_role_id(role, domain)

    def get_project_id(
        self, project: str | None, domain: str | None = None
    ) -> Any:
        """The id of a project given by id, name or ``name{domain}``."""
        return self._lookup().get_project_id(project, domain)

    def get_domain_id(self, domain: str | None) -> Any:
        """The id of a domain given by id or name."""
        return self._lookup().get_domain_id(domain)

    def get_group_id(
        self, group: str | None, domain: str | None = None
    ) -> Any:
        """The id of a group given by id, name or ``name{domain}``."""
        return self._lookup().get_group_id(group, domain)

    def get_service_id(self, service: str | None) -> Any:
        """The id of a service given by id or unique name."""
        return self._lookup().get_service_id(service)

    def get_user_id(self, user: str | None, domain: str | None = None) -> Any:
        """The id of a user given by id, name or ``name{domain}``."""
        return self._lookup().get_user_id(user, domain)

    def get_region_id(self, region: str) -> Any:
        """The id of a region."""
        return self._lookup().get_region_id(region)
