"""``AWS::IAM::User`` and ``AWS::IAM::AccessKey``: stack users for CFN."""

from __future__ import annotations

import logging
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.stack_user import StackUser

LOG = logging.getLogger(__name__)
Schema = api.properties.Schema


class User(StackUser):
    """A Keystone user of the stack, for CloudFormation-style access.

    The user lives in the stack's user project.  ``Policies`` names
    ``OS::Heat::AccessPolicy`` resources of the stack that limit which
    resources the user may describe; ``LoginProfile.Password`` sets its
    password.  ``Path`` and ``Groups`` are accepted and ignored.
    """

    PROPERTIES = (PATH, GROUPS, LOGIN_PROFILE, POLICIES) = (
        "Path",
        "Groups",
        "LoginProfile",
        "Policies",
    )
    _LOGIN_PROFILE_KEYS = (LOGIN_PROFILE_PASSWORD,) = ("Password",)

    properties_schema = {
        PATH: Schema(Schema.STRING, "Accepted and ignored."),
        GROUPS: Schema(Schema.LIST, "Accepted and ignored."),
        LOGIN_PROFILE: Schema(
            Schema.MAP,
            "The user's login profile.",
            schema={LOGIN_PROFILE_PASSWORD: Schema(Schema.STRING)},
        ),
        POLICIES: Schema(
            Schema.LIST,
            "Names of AccessPolicy resources limiting what the user sees.",
        ),
    }

    def _validate_policies(self, policies: list[Any]) -> bool:
        for policy in policies or []:
            if not isinstance(policy, str):
                LOG.debug("Ignoring policy %s, not a resource name", policy)
                continue
            res = self.stack.resource_get(policy)
            if res is None or not callable(
                getattr(res, "access_allowed", None)
            ):
                return False
        return True

    def handle_create(self) -> None:
        profile = self.properties[self.LOGIN_PROFILE]
        if profile and profile.get(self.LOGIN_PROFILE_PASSWORD):
            self.password = profile[self.LOGIN_PROFILE_PASSWORD]
        policies = self.properties[self.POLICIES]
        if policies and not self._validate_policies(policies):
            raise api.exception.InvalidTemplateAttribute(
                resource=self.name, key=self.POLICIES
            )
        super().handle_create()
        self.resource_id_set(self._get_user_id())

    def get_reference_id(self) -> str:
        return self.physical_resource_name() or super().get_reference_id()

    def access_allowed(self, resource_name: str) -> bool:
        """Whether every policy of the user lets it see the resource."""
        for policy in self.properties[self.POLICIES] or []:
            if isinstance(policy, str):
                res = self.stack.resource_get(policy)
                if not res.access_allowed(resource_name):
                    return False
        return True


class AccessKey(api.Resource):
    """An EC2 keypair of an ``AWS::IAM::User``.

    Its reference is the access key; ``SecretAccessKey`` gives the secret.
    """

    PROPERTIES = (SERIAL, USER_NAME, STATUS) = ("Serial", "UserName", "Status")
    ATTRIBUTES = (USER_NAME_ATTR, SECRET_ACCESS_KEY) = (
        "UserName",
        "SecretAccessKey",
    )

    properties_schema = {
        SERIAL: Schema(Schema.INTEGER, "Not implemented.", implemented=False),
        USER_NAME: Schema(
            Schema.STRING,
            "The user (its reference) the key belongs to.",
            required=True,
        ),
        STATUS: Schema(
            Schema.STRING,
            "Not implemented.",
            constraints=[
                api.constraints.AllowedValues(["Active", "Inactive"])
            ],
            implemented=False,
        ),
    }

    attributes_schema = {
        USER_NAME_ATTR: api.attributes.Schema(
            "The user the key belongs to.",
            cache_mode=api.attributes.Schema.CACHE_NONE,
            type=api.attributes.Schema.STRING,
        ),
        SECRET_ACCESS_KEY: api.attributes.Schema(
            "The secret of the keypair.",
            cache_mode=api.attributes.Schema.CACHE_NONE,
            type=api.attributes.Schema.STRING,
        ),
    }

    def _get_user(self) -> Any:
        name = self.properties[self.USER_NAME]
        user = self.stack.resource_by_refid(name)
        if user is None:
            raise api.exception.NotFound(f"could not find user {name}")
        return user

    def _register_access_key(self) -> None:
        register = getattr(self.stack, "register_access_allowed_handler", None)
        if callable(register):
            register(
                self.resource_id,
                lambda name: self._get_user().access_allowed(name),
            )

    def handle_create(self) -> None:
        keypair = self._get_user()._create_keypair()
        self.resource_id_set(keypair.access)
        self.data_set("secret_key", keypair.secret, redact=True)
        self.data_set("credential_id", keypair.id, redact=True)
        self._register_access_key()

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            user = self._get_user()
        except api.exception.NotFound:
            LOG.debug("Error deleting %s - user not found", self)
            return
        user._delete_keypair()

    def _resolve_attribute(self, name: str) -> Any:
        if name == self.USER_NAME_ATTR:
            return self.properties[self.USER_NAME]
        if name == self.SECRET_ACCESS_KEY:
            return self.data().get("secret_key") or "000-000-000"
        return None
