"""StackUser: a resource with its own Keystone user in the stack domain.

Signal handles, deployments and servers that call back into Heat get a
user of their own (named after the physical resource name) in the stack's
user project, optionally with an EC2 keypair.  Everything goes through the
``keystone`` client plugin, whose client offers Heat's stack-domain calls:
``create_stack_domain_project``, ``create_stack_domain_user``,
``delete_stack_domain_user``, ``enable_stack_domain_user``,
``disable_stack_domain_user``, ``stack_domain_user_token``,
``create_stack_domain_user_keypair``, ``delete_stack_domain_user_keypair``.
"""

from __future__ import annotations

from typing import Any

from keel_heat_core import exception
from keel_heat_core.plugin_api.resource import Resource

#: Resource-data keys of the user and its keypair.
USER_DATA_KEYS = (USER_ID, CREDENTIAL_ID, ACCESS_KEY, SECRET_KEY) = (
    "user_id",
    "credential_id",
    "access_key",
    "secret_key",
)


class StackUser(Resource):
    """Base of resources owning a stack-domain user (see module doc)."""

    #: the user's password, when the subclass sets one
    password: str | None = None

    def keystone(self) -> Any:
        """The Keystone client (stack-domain operations)."""
        return self.client("keystone")

    def handle_create(self) -> Any:
        self._create_user()
        return None

    def _create_user(self) -> None:
        if self.data().get(USER_ID):
            return
        if not self.stack.stack_user_project_id:
            project_id = self.keystone().create_stack_domain_project(
                self.stack.id
            )
            self.stack.set_stack_user_project_id(project_id)
        user_id = self.keystone().create_stack_domain_user(
            username=self.physical_resource_name(),
            password=self.password,
            project_id=self.stack.stack_user_project_id,
        )
        self.data_set(USER_ID, user_id)

    def _get_user_id(self) -> str | None:
        return self.data().get(USER_ID) or None

    def _user_token(self) -> str:
        project_id = self.stack.stack_user_project_id
        if not project_id:
            raise ValueError("Can't get user token, user not yet created")
        if self.password is None:
            raise ValueError("Can't get user token without password")
        token: str = self.keystone().stack_domain_user_token(
            user_id=self._get_user_id(),
            project_id=project_id,
            password=self.password,
        )
        return token

    def handle_delete(self) -> Any:
        self._delete_user()
        return super().handle_delete()

    def _is_not_found(self, exc: Exception) -> bool:
        if isinstance(exc, exception.EntityNotFound | exception.NotFound):
            return True
        return bool(self.client_plugin("keystone").is_not_found(exc))

    def _delete_user(self) -> None:
        user_id = self._get_user_id()
        if user_id is None:
            return
        self._delete_keypair()
        try:
            self.keystone().delete_stack_domain_user(
                user_id=user_id, project_id=self.stack.stack_user_project_id
            )
        except Exception as exc:
            if not self._is_not_found(exc):
                raise
        for key in (CREDENTIAL_ID, ACCESS_KEY, SECRET_KEY):
            self.data_delete(key)

    def handle_suspend(self) -> None:
        self.keystone().disable_stack_domain_user(
            user_id=self._get_user_id(),
            project_id=self.stack.stack_user_project_id,
        )

    def handle_resume(self) -> None:
        self.keystone().enable_stack_domain_user(
            user_id=self._get_user_id(),
            project_id=self.stack.stack_user_project_id,
        )

    def _create_keypair(self) -> Any:
        if self.data().get(CREDENTIAL_ID):
            return None
        user_id = self._get_user_id()
        keypair = self.keystone().create_stack_domain_user_keypair(
            user_id=user_id, project_id=self.stack.stack_user_project_id
        )
        if not keypair:
            raise exception.Error(
                f"Error creating ec2 keypair for user {user_id}"
            )
        credential_id = getattr(keypair, "id", None) or keypair.access
        self.data_set(CREDENTIAL_ID, credential_id, redact=True)
        self.data_set(ACCESS_KEY, keypair.access, redact=True)
        self.data_set(SECRET_KEY, keypair.secret, redact=True)
        return keypair

    def _delete_keypair(self) -> None:
        credential_id = self.data().get(CREDENTIAL_ID)
        user_id = self._get_user_id()
        if not credential_id or user_id is None:
            return
        try:
            self.keystone().delete_stack_domain_user_keypair(
                user_id=user_id,
                project_id=self.stack.stack_user_project_id,
                credential_id=credential_id,
            )
        except Exception as exc:
            if not self._is_not_found(exc):
                raise
        for key in (ACCESS_KEY, SECRET_KEY, CREDENTIAL_ID):
            self.data_delete(key)
