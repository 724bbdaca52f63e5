"""The stack-user domain: per-stack projects, throw-away users, EC2 keys.

Instances and wait conditions signal their stack with credentials that
the engine creates for them. Those users live in a dedicated Keystone
domain (``stack_user_domain_id`` or ``_name``), managed by its admin
(``stack_domain_admin``), so that nothing handed to an instance belongs to
the stack owner: each root stack gets a project there, its users get the
``heat_stack_user`` role on it, and everything goes with the stack.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from dataclasses import dataclass
from typing import Any

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from oslo_log import log as logging

from keel_heat_core.identity import errors

LOG = logging.getLogger(__name__)

PROJECT_DESCRIPTION = "Heat stack user project"
USER_OPTIONS = {
    "ignore_change_password_upon_first_use": True,
    "ignore_password_expiry": True,
    "ignore_lockout_failure_attempts": True,
}


@dataclass(frozen=True)
class AccessKey:
    """An EC2 key pair stored as a Keystone ``ec2`` credential."""

    id: str
    access: str
    secret: str


@dataclass(frozen=True)
class StackDomainSettings:
    """Where the stack-user domain is and who administers it.

    :ivar auth_url: the unversioned identity endpoint.
    :ivar admin_user: ``stack_domain_admin``.
    :ivar admin_password: ``stack_domain_admin_password``.
    :ivar domain_id: ``stack_user_domain_id`` (wins over the name).
    :ivar domain_name: ``stack_user_domain_name``.
    :ivar stack_user_role: ``heat_stack_user_role``.
    """

    auth_url: str
    admin_user: str
    admin_password: str
    domain_id: str | None = None
    domain_name: str | None = None
    stack_user_role: str = "heat_stack_user"

    @classmethod
    def from_conf(cls, conf: Any, auth_url: str) -> StackDomainSettings:
        """Read Heat's ``[DEFAULT]`` options of the stack domain.

        :param conf: a ``ConfigOpts`` with the core options registered.
        :param auth_url: the unversioned identity endpoint.
        """
        return cls(
            auth_url=auth_url,
            admin_user=conf.stack_domain_admin,
            admin_password=conf.stack_domain_admin_password,
            domain_id=conf.stack_user_domain_id or None,
            domain_name=conf.stack_user_domain_name or None,
            stack_user_role=conf.heat_stack_user_role,
        )


class StackDomain:
    """Operations of the stack-domain admin.

    :param settings: the domain and its admin.
    :param session: a session giving TLS settings and timeouts; a plain
        one when omitted. Its auth plugin is not used.
    """

    def __init__(
        self,
        settings: StackDomainSettings,
        session: ks_session.Session | None = None,
    ) -> None:
        self._settings = settings
        self._url = settings.auth_url.rstrip("/") + "/v3"
        base = session or ks_session.Session()
        # Only a domain-scoped token may create projects in the domain.
        self._auth = v3.Password(
            auth_url=self._url,
            username=settings.admin_user,
            password=settings.admin_password,
            user_domain_id=settings.domain_id,
            user_domain_name=None
            if settings.domain_id
            else settings.domain_name,
            domain_id=settings.domain_id,
            domain_name=None if settings.domain_id else settings.domain_name,
        )
        self._session = ks_session.Session(
            auth=self._auth,
            verify=base.verify,
            cert=base.cert,
            timeout=base.timeout,
        )
        self._domain_id = settings.domain_id

    @property
    def domain_id(self) -> str:
        """The id of the stack-user domain (from the admin's token)."""
        if not self._domain_id:
            self._domain_id = str(self._access().domain_id)
        return self._domain_id

    def _access(self) -> Any:
        try:
            return self._auth.get_access(self._session)
        except ks_exc.Unauthorized:
            LOG.error("Domain admin client authentication failed")
            raise errors.AuthorizationFailure() from None

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        self._access()
        resp = self._session.request(f"{self._url}{path}", method, **kwargs)
        return resp.json() if resp.content else None

    # Projects ---------------------------------------------------------

    def create_project(self, owner_project_id: str, stack_id: str) -> str:
        """Create the domain project of a root stack.

        :param owner_project_id: the stack owner's project id.
        :param stack_id: the stack id.
        :returns: the new project's id (``stack_user_project_id``).
        """
        # The owner's project id keeps the name unique across domains.
        name = f"{owner_project_id}-{stack_id}"[:64]
        body = {
            "project": {
                "name": name,
                "domain_id": self.domain_id,
                "description": PROJECT_DESCRIPTION,
            }
        }
        try:
            created = self._call("POST", "/projects", json=body)
        except ks_exc.Conflict:
            # Two stack users of one stack started together and the other
            # created the project first: it is this stack's project too.
            found = self._project_named(name)
            if found is None:
                raise
            LOG.debug("Stack domain project %s exists, adopted", name)
            return found
        return str(created["project"]["id"])

    def _project_named(self, name: str) -> str | None:
        params = {"domain_id": self.domain_id, "name": name}
        found = self._call("GET", "/projects", params=params)["projects"]
        return str(found[0]["id"]) if found else None

    def delete_project(self, project_id: str) -> None:
        """Delete a stack's domain project, if it belongs to the domain.

        A project outside the stack domain (stacks made before the domain
        was configured use their owner's project) is left alone.

        :param project_id: the ``stack_user_project_id``.
        """
        try:
            project = self._call("GET", f"/projects/{project_id}")["project"]
        except ks_exc.NotFound:
            return
        except ks_exc.Forbidden:
            LOG.warning(
                "Unable to get details for project %s, not deleting",
                project_id,
            )
            return
        if project["domain_id"] != self.domain_id:
            LOG.warning("Not deleting non heat-domain project")
            return
        with contextlib.suppress(ks_exc.NotFound):
            self._call("DELETE", f"/projects/{project_id}")

    # Users ------------------------------------------------------------

    def _stack_user_role_id(self) -> str:
        role = self._settings.stack_user_role
        found = self._call("GET", "/roles", params={"name": role})["roles"]
        if len(found) != 1:
            LOG.error("Failed to find role %s, check it exists", role)
            raise errors.StackUserRoleMissing(role=role)
        return str(found[0]["id"])

    def create_user(
        self, username: str, project_id: str, password: str | None = None
    ) -> str:
        """Create a stack user in ``project_id`` with the stack-user role.

        :param username: the name (its last 255 characters are kept).
        :param project_id: the stack's domain project.
        :param password: the user's password, if it logs in with one.
        :returns: the user id.
        :raises StackUserRoleMissing: when the role does not exist.
        """
        role_id = self._stack_user_role_id()
        if len(username) > 255:
            LOG.warning("Truncating the username %s to 255 chars", username)
        user: dict[str, Any] = {
            "name": username[-255:],
            "domain_id": self.domain_id,
            "default_project_id": project_id,
            "options": dict(USER_OPTIONS),
        }
        if password is not None:
            user["password"] = password
        user_id = str(
            self._call("POST", "/users", json={"user": user})["user"]["id"]
        )
        self._call(
            "PUT", f"/projects/{project_id}/users/{user_id}/roles/{role_id}"
        )
        return user_id

    def _check_user(self, user_id: str, project_id: str, action: str) -> None:
        user = self._call("GET", f"/users/{user_id}")["user"]
        if user["domain_id"] != self.domain_id:
            raise ValueError(f"User {action} in invalid domain")
        if user.get("default_project_id") != project_id:
            raise ValueError(f"User {action} in invalid project")

    def delete_user(self, user_id: str, project_id: str) -> None:
        """Delete a stack user (a missing one is ignored).

        :raises ValueError: when the user is not a user of this stack.
        """
        try:
            self._check_user(user_id, project_id, "delete")
            self._call("DELETE", f"/users/{user_id}")
        except ks_exc.NotFound:
            pass

    def set_user_enabled(
        self, user_id: str, project_id: str, enabled: bool
    ) -> None:
        """Enable or disable a stack user (suspend and resume).

        :raises ValueError: when the user is not a user of this stack.
        """
        self._check_user(
            user_id, project_id, "enable" if enabled else "disable"
        )
        self._call(
            "PATCH", f"/users/{user_id}", json={"user": {"enabled": enabled}}
        )

    def user_token(self, user_id: str, project_id: str, password: str) -> str:
        """Return a token of a stack user scoped to its project.

        :raises AuthorizationFailure: when Keystone refuses the login.
        """
        auth = v3.Password(
            auth_url=self._url,
            user_id=user_id,
            password=password,
            project_id=project_id,
        )
        try:
            return str(auth.get_token(self._session))
        except ks_exc.Unauthorized:
            raise errors.AuthorizationFailure() from None

    # EC2 key pairs ----------------------------------------------------

    def create_ec2_keypair(self, user_id: str, project_id: str) -> AccessKey:
        """Create an EC2 key pair for a stack user.

        :returns: the credential id with its access key and secret.
        """
        blob = {"access": uuid.uuid4().hex, "secret": uuid.uuid4().hex}
        body = {
            "credential": {
                "user_id": user_id,
                "project_id": project_id,
                "type": "ec2",
                "blob": json.dumps(blob),
            }
        }
        cred = self._call("POST", "/credentials", json=body)["credential"]
        return AccessKey(
            id=cred["id"], access=blob["access"], secret=blob["secret"]
        )

    def get_ec2_keypair(self, credential_id: str) -> AccessKey:
        """Read an EC2 key pair back by its credential id."""
        cred = self._call("GET", f"/credentials/{credential_id}")
        blob = json.loads(cred["credential"]["blob"])
        return AccessKey(
            id=credential_id, access=blob["access"], secret=blob["secret"]
        )

    def delete_ec2_keypair(
        self, user_id: str, project_id: str, credential_id: str
    ) -> None:
        """Delete a stack user's EC2 key pair (a missing one is ignored).

        :raises ValueError: when the user is not a user of this stack.
        """
        self._check_user(user_id, project_id, "delete_keypair")
        with contextlib.suppress(ks_exc.NotFound):
            self._call("DELETE", f"/credentials/{credential_id}")
