"""Errors raised by the Keystone operations of the engine.

The class names and messages are Heat's (``heat.common.exception``), so
that the API maps them the same way.
"""

from __future__ import annotations


class IdentityError(Exception):
    """Base class of the identity errors."""

    msg_fmt = "An unknown identity error occurred."

    def __init__(self, **kwargs: str) -> None:
        self.kwargs = kwargs
        super().__init__(self.msg_fmt % kwargs)


class AuthorizationFailure(IdentityError):
    """Keystone refused a login, or a trust token was not what we asked."""

    msg_fmt = "Authorization failed."


class MissingCredentialError(IdentityError):
    """A trust could not delegate the roles it was asked for."""

    msg_fmt = "Missing required credential: %(required)s"


class StackUserRoleMissing(IdentityError):
    """The role given to stack users does not exist in Keystone."""

    msg_fmt = "Can't find role %(role)s"


class Ec2AuthError(IdentityError):
    """Keystone did not accept an EC2 signature.

    :ivar code: the AWS error code the CFN API answers with:
        ``InvalidClientTokenId``, ``SignatureDoesNotMatch`` or
        ``AccessDenied``.
    """

    msg_fmt = "EC2 authentication failed: %(code)s"

    @property
    def code(self) -> str:
        """The AWS error code."""
        return self.kwargs["code"]
