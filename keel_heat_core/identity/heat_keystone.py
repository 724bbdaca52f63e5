"""Heat's stack-domain calls, as resource plugins make them.

Resources with stack users (``plugin_api.stack_user``) call the
``keystone`` client with Heat's method names
(``create_stack_domain_project``, ``create_stack_domain_user`` …).
:class:`StackDomainClient` gives those names to the stack-domain admin's
operations of :mod:`keel_heat_core.identity.stack_domain`; the
``keystone`` client plugin adds them to its client.
"""

from __future__ import annotations

from typing import Any

from keel_heat_core.identity.stack_domain import AccessKey, StackDomain


class StackDomainClient:
    """Heat's stack-domain operations for one request context.

    :param domain: the stack-domain admin's operations.
    :param context: the request context (the owner's project id).
    :param auth_url: the unversioned identity endpoint.
    """

    def __init__(self, domain: StackDomain, context: Any, auth_url: str):
        self._domain = domain
        self._context = context
        self.v3_endpoint = auth_url.rstrip("/") + "/v3"

    @property
    def stack_domain_id(self) -> str:
        """The id of the stack-user domain."""
        return self._domain.domain_id

    def server_keystone_endpoint_url(self, fallback_endpoint: str) -> str:
        """The identity endpoint servers are given (``…/v3``)."""
        return self.v3_endpoint or fallback_endpoint

    def create_stack_domain_project(self, stack_id: str) -> str:
        owner = str(getattr(self._context, "project_id", "") or "")
        return self._domain.create_project(owner, stack_id)

    def delete_stack_domain_project(self, project_id: str) -> None:
        self._domain.delete_project(project_id)

    def create_stack_domain_user(
        self, username: str, project_id: str, password: str | None = None
    ) -> str:
        return self._domain.create_user(username, project_id, password)

    def delete_stack_domain_user(self, user_id: str, project_id: str) -> None:
        self._domain.delete_user(user_id, project_id)

    def enable_stack_domain_user(self, user_id: str, project_id: str) -> None:
        self._domain.set_user_enabled(user_id, project_id, True)

    def disable_stack_domain_user(self, user_id: str, project_id: str) -> None:
        self._domain.set_user_enabled(user_id, project_id, False)

    def stack_domain_user_token(
        self, user_id: str, project_id: str, password: str
    ) -> str:
        return self._domain.user_token(user_id, project_id, password)

    def create_stack_domain_user_keypair(
        self, user_id: str, project_id: str
    ) -> AccessKey:
        return self._domain.create_ec2_keypair(user_id, project_id)

    def delete_stack_domain_user_keypair(
        self, user_id: str, project_id: str, credential_id: str
    ) -> None:
        self._domain.delete_ec2_keypair(user_id, project_id, credential_id)
