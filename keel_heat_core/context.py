"""The request context, and what of it may cross the message bus.

Heat serialises the whole caller context onto every RPC message, Keystone
token, token body (with the service catalog) and, with password auth, the
password included. keel-heat does not: :meth:`RequestContext.to_bus_dict`
keeps identities and ids only, and :class:`BusContextSerializer` is the
only serializer our RPC clients and servers use. The engine acts for a
stack through its stored trust; a synchronous API call that needs the
caller's own token carries an *auth handle* instead: the token sealed
with a key only API and engine processes hold, valid for the RPC timeout.
``docs/design/context.md`` explains the design.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Any

import oslo_messaging
from cryptography.fernet import Fernet, InvalidToken
from oslo_context import context as oslo_context

from keel_heat_core import profiling

#: Context keys that must never be serialised onto the bus.
SECRET_KEYS = frozenset(
    {"auth_token", "auth_token_info", "password", "aws_creds", "service_token"}
)

#: Heat-specific keys carried besides oslo.context's.
_HEAT_KEYS = (
    "username",
    "trust_id",
    "trustor_user_id",
    "auth_url",
    "region_name",
    "auth_handle",
    "auth_key_handle",
)


class RequestContext(oslo_context.RequestContext):
    """oslo.context's context with Heat's extra fields.

    :param username: the user name (Heat's ``username``).
    :param password: only in the API process; never on the bus.
    :param aws_creds: EC2 credentials (heat-api-cfn); never on the bus.
    :param auth_token_info: the Keystone token body; never on the bus.
    :param trust_id: the trust the context acts through, if any.
    :param trustor_user_id: the user who delegated the trust.
    :param auth_url: Keystone's URL.
    :param region_name: the region the stack lives in.
    :param auth_handle: a sealed token (see :func:`seal_token`).
    :param auth_key_handle: the sealed password of X-Auth-Key, for
        ``deferred_auth_method = password``.
    """

    def __init__(
        self,
        username: str | None = None,
        password: str | None = None,
        aws_creds: str | None = None,
        auth_token_info: Mapping[str, Any] | None = None,
        trust_id: str | None = None,
        trustor_user_id: str | None = None,
        auth_url: str | None = None,
        region_name: str | None = None,
        auth_handle: str | None = None,
        auth_key_handle: str | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("user_name", username)
        super().__init__(**kwargs)
        self.username = username
        self.password = password
        self.aws_creds = aws_creds
        self.auth_token_info = auth_token_info
        self.trust_id = trust_id
        self.trustor_user_id = trustor_user_id
        self.auth_url = auth_url
        self.region_name = region_name
        self.auth_handle = auth_handle
        self.auth_key_handle = auth_key_handle

    def to_dict(self) -> dict[str, Any]:
        """Every field, secrets included: for use inside one process."""
        values: dict[str, Any] = super().to_dict()
        values.update(
            username=self.username,
            password=self.password,
            aws_creds=self.aws_creds,
            auth_token_info=self.auth_token_info,
            trust_id=self.trust_id,
            trustor_user_id=self.trustor_user_id,
            auth_url=self.auth_url,
            region_name=self.region_name,
            auth_handle=self.auth_handle,
            auth_key_handle=self.auth_key_handle,
            project_name=self.project_name,
        )
        return values

    def get_logging_values(self) -> dict[str, Any]:
        """What a log formatter may use: no secret, not even masked, and
        no sealed token handle (a JSON formatter writes all of it)."""
        values: dict[str, Any] = super().get_logging_values()
        for key in (*SECRET_KEYS, "auth_handle", "auth_key_handle"):
            values.pop(key, None)
        return values

    def to_bus_dict(self) -> dict[str, Any]:
        """The fields that may travel on the bus: identities and ids."""
        return {
            k: v for k, v in self.to_dict().items() if k not in SECRET_KEYS
        }

    @classmethod
    def from_dict(cls, values: Mapping[str, Any], **kwargs: Any) -> Any:
        """Build a context from a (bus or in-process) dict.

        Accepts Heat's legacy ``tenant_id``/``tenant`` names. Secret keys
        received from a Python Heat peer are dropped on the floor.
        """
        values = dict(values)
        values.setdefault("project_id", values.pop("tenant_id", None))
        values.setdefault("project_name", values.pop("tenant", None))
        for key in SECRET_KEYS:
            values.pop(key, None)
        extra = {k: values.pop(k, None) for k in _HEAT_KEYS}
        extra = {k: v for k, v in extra.items() if v is not None}
        extra.update(kwargs)
        return super().from_dict(values, **extra)

    @property
    def is_trust_scoped(self) -> bool:
        """True when the context acts through a stored trust."""
        return self.trust_id is not None


def admin_context(**kwargs: Any) -> RequestContext:
    """A context for the engine's own background work (no user)."""
    return RequestContext(is_admin=True, overwrite=False, **kwargs)


class BusContextSerializer(oslo_messaging.Serializer):  # type: ignore[misc]
    """Serializer that strips secrets from every context it sends.

    :param base: the entity serializer (JSON-primitive by default).
    """

    def __init__(self, base: oslo_messaging.Serializer | None = None) -> None:
        self._base = base or oslo_messaging.NoOpSerializer()

    def serialize_entity(self, ctxt: Any, entity: Any) -> Any:
        return self._base.serialize_entity(ctxt, entity)

    def deserialize_entity(self, ctxt: Any, entity: Any) -> Any:
        return self._base.deserialize_entity(ctxt, entity)

    def serialize_context(self, ctxt: Any) -> dict[str, Any]:
        if isinstance(ctxt, RequestContext):
            out: dict[str, Any] = ctxt.to_bus_dict()
        elif isinstance(ctxt, Mapping):
            out = {k: v for k, v in ctxt.items() if k not in SECRET_KEYS}
        else:
            out = RequestContext.from_dict(ctxt.to_dict()).to_bus_dict()
        trace = profiling.outgoing()
        if trace is not None:
            out[profiling.CONTEXT_KEY] = trace
        return out

    def deserialize_context(self, ctxt: Mapping[str, Any]) -> RequestContext:
        values = dict(ctxt)
        profiling.incoming(values.pop(profiling.CONTEXT_KEY, None))
        return RequestContext.from_dict(values)  # type: ignore[no-any-return]


def _handle_key(secret: str) -> bytes:
    digest = hashlib.sha256(b"keel-heat auth handle\0" + secret.encode())
    return base64.urlsafe_b64encode(digest.digest())


def seal_token(secret: str, token: str) -> str:
    """Seal a token into an auth handle for one synchronous RPC call.

    :param secret: a key shared by API and engine processes only.
    """
    return Fernet(_handle_key(secret)).encrypt(token.encode()).decode()


def unseal_token(secret: str, handle: str, ttl: int) -> str | None:
    """The token in ``handle`` if it is authentic and younger than ``ttl``."""
    try:
        return (
            Fernet(_handle_key(secret))
            .decrypt(handle.encode(), ttl=ttl)
            .decode()
        )
    except InvalidToken:
        return None
