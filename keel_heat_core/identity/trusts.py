"""Keystone trusts: how the engine acts for a user after the request.

With ``deferred_auth_method = trusts`` the engine, while it still holds
the request's token, creates a trust from the calling user (trustor) to
the ``[trustee]`` user (Heat's service user), impersonating the trustor
and delegating the trustor's roles on the project. Every later operation
on the stack logs in as the trustee, scoped to that trust: the user's
token is never needed again and never crosses the bus.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import plugin as ks_plugin
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
from keystoneauth1.identity import v3
from oslo_log import log as logging

from keel_heat_core.identity import errors

LOG = logging.getLogger(__name__)

TRUSTEE_GROUP = "trustee"

#: Builds the ``[trustee]`` auth plugin, scoped to a trust when given one.
TrusteeAuth = Callable[[str | None], ks_plugin.BaseAuthPlugin]


@dataclass(frozen=True)
class Trust:
    """A trust as the engine stores it (``user_creds``).

    :ivar id: the trust id (stored encrypted).
    :ivar trustor_user_id: the user the trust acts for.
    :ivar project_id: the project the trust is scoped to.
    :ivar roles: the delegated role names.
    """

    id: str
    trustor_user_id: str
    project_id: str
    roles: tuple[str, ...]


@dataclass(frozen=True)
class Trustor:
    """Who a trust is from, as keystonemiddleware validated the caller.

    :ivar user_id: the caller.
    :ivar project_id: the project of the caller's token.
    :ivar roles: the role names of the caller's token.
    """

    user_id: str
    project_id: str
    roles: tuple[str, ...]


def trustee_auth_from_conf(conf: Any) -> TrusteeAuth:
    """Return a builder of ``[trustee]`` auth plugins read from ``conf``.

    :param conf: an ``oslo_config.cfg.ConfigOpts`` where the keystoneauth
        options of ``[trustee]`` are registered.
    """
    from keystoneauth1 import loading as ks_loading

    def build(trust_id: str | None) -> ks_plugin.BaseAuthPlugin:
        kwargs = {"trust_id": trust_id} if trust_id else {}
        auth = ks_loading.load_auth_from_conf_options(
            conf, TRUSTEE_GROUP, **kwargs
        )
        if auth is None:
            LOG.error("No [trustee] credentials are configured")
            raise errors.AuthorizationFailure()
        return auth

    return build


def token_session(
    v3_url: str, token: str, project_id: str
) -> ks_session.Session:
    """Return a session of the request's user, from its token.

    What the engine has of a user during an API call is the token
    keystonemiddleware validated; this session re-scopes it to the
    project, as the trustor's session of :meth:`TrustBroker.create_trust`.

    :param v3_url: the versioned identity endpoint.
    :param token: the request's token.
    :param project_id: the request's project.
    """
    auth = v3.Token(auth_url=v3_url, token=token, project_id=project_id)
    return ks_session.Session(auth=auth)


def caller_session(token: str) -> ks_session.Session:
    """Return a session that sends the caller's token as it is.

    For a call on the caller's behalf whose identity the engine already
    has (:class:`Trustor`): nothing is asked of Keystone before the call
    itself, as Heat does with the token keystonemiddleware validated.
    """
    return ks_session.Session(auth=token_endpoint.Token(None, token))


class TrustBroker:
    """Creates, uses and deletes trusts to the ``[trustee]`` user.

    :param v3_url: the versioned identity endpoint (``…/v3``).
    :param trustee_auth: builds the trustee's auth plugin (see
        :func:`trustee_auth_from_conf`).
    :param session: the keystoneauth1 session used for HTTP (TLS
        settings, timeouts); a plain one when omitted.
    """

    def __init__(
        self,
        v3_url: str,
        trustee_auth: TrusteeAuth,
        session: ks_session.Session | None = None,
    ) -> None:
        self._url = v3_url.rstrip("/")
        self._trustee_auth = trustee_auth
        self._session = session or ks_session.Session()
        self._trustee_id: str | None = None

    def trustee_user_id(self, fresh: bool = False) -> str:
        """Return the id of the ``[trustee]`` user.

        The user is logged in the first time (or with ``fresh``) and its
        id remembered: a password login costs Keystone a hash, and every
        stack create needs the id.

        :raises AuthorizationFailure: when Keystone refuses the login.
        """
        if self._trustee_id is not None and not fresh:
            return self._trustee_id
        auth = self._trustee_auth(None)
        try:
            user_id = auth.get_user_id(self._session)
        except ks_exc.Unauthorized:
            LOG.error("Trustee authentication failed")
            raise errors.AuthorizationFailure() from None
        if not user_id:
            raise errors.AuthorizationFailure()
        self._trustee_id = str(user_id)
        return self._trustee_id

    def create_trust(
        self,
        user_session: ks_session.Session,
        delegated_roles: Sequence[str] = (),
        allow_redelegation: bool = False,
        trustor: Trustor | None = None,
    ) -> Trust:
        """Create a trust from the user of ``user_session`` to the trustee.

        :param user_session: a session authenticated as the trustor,
            scoped to the project the trust is for (the request's token).
        :param delegated_roles: role names to delegate
            (``trusts_delegated_roles``); all the roles of the trustor's
            token when empty.
        :param allow_redelegation: let the trustee delegate the trust on.
        :param trustor: who the session's user is, when known; otherwise
            the session logs in to find out.
        :raises MissingCredentialError: when a role cannot be delegated.
        :raises AuthorizationFailure: when a login is refused.
        """
        if trustor is None:
            trustor = self._trustor_of(user_session)
        project = trustor.project_id
        role_names = list(delegated_roles) or list(trustor.roles)
        body = {
            "trust": {
                "trustor_user_id": trustor.user_id,
                "trustee_user_id": self.trustee_user_id(),
                "project_id": project,
                "impersonation": True,
                "allow_redelegation": allow_redelegation,
                "roles": [{"name": name} for name in role_names],
            }
        }
        url = f"{self._url}/OS-TRUST/trusts"
        try:
            try:
                resp = user_session.post(url, json=body)
            except (ks_exc.NotFound, ks_exc.Forbidden):
                # the trustee remembered may have been replaced since
                remembered = body["trust"]["trustee_user_id"]
                if self.trustee_user_id(fresh=True) == remembered:
                    raise
                body["trust"]["trustee_user_id"] = self._trustee_id
                resp = user_session.post(url, json=body)
        except ks_exc.Unauthorized:  # the caller's token went bad
            LOG.error("Trustor authentication failed")
            raise errors.AuthorizationFailure() from None
        except (ks_exc.NotFound, ks_exc.Forbidden) as exc:
            LOG.debug(
                "Failed to delegate roles %s of user %s: %s",
                role_names,
                trustor.user_id,
                type(exc).__name__,
            )
            raise errors.MissingCredentialError(
                required=f"roles {role_names}"
            ) from None
        trust = resp.json()["trust"]
        return Trust(
            id=trust["id"],
            trustor_user_id=trustor.user_id,
            project_id=project,
            roles=tuple(r["name"] for r in trust.get("roles", [])),
        )

    @staticmethod
    def _trustor_of(user_session: ks_session.Session) -> Trustor:
        """Log the session in to learn who it is."""
        try:
            access = user_session.auth.get_access(  # type: ignore[union-attr]
                user_session
            )
        except ks_exc.Unauthorized:
            LOG.error("Trustor authentication failed")
            raise errors.AuthorizationFailure() from None
        return Trustor(
            access.user_id, access.project_id, tuple(access.role_names)
        )

    def trust_session(
        self, trust_id: str, trustor_user_id: str
    ) -> ks_session.Session:
        """Return a session of the trustee scoped to ``trust_id``.

        The token is fetched at once and checked: it must be trust scoped
        and impersonate the trustor.

        :param trust_id: the stored trust id.
        :param trustor_user_id: the stored trustor.
        :raises AuthorizationFailure: when the login fails or the token is
            not the one the trust should give.
        """
        auth = self._trustee_auth(trust_id)
        sess = ks_session.Session(
            auth=auth,
            verify=self._session.verify,
            cert=self._session.cert,
            timeout=self._session.timeout,
        )
        try:
            access = auth.get_access(sess)  # type: ignore[attr-defined]
        except (ks_exc.Unauthorized, ks_exc.NotFound, ks_exc.Forbidden):
            LOG.error("Trust-scoped authentication failed")
            raise errors.AuthorizationFailure() from None
        if not access.trust_scoped:
            LOG.error("The trust token is not trust scoped")
            raise errors.AuthorizationFailure()
        if access.user_id != trustor_user_id:
            LOG.error("Trust impersonation failed")
            raise errors.AuthorizationFailure()
        return sess

    def delete_trust(self, session: ks_session.Session, trust_id: str) -> None:
        """Delete a trust; a missing trust or a refused login is ignored.

        :param session: the trustor's session, or the trust-scoped one.
        :param trust_id: the trust to delete.
        """
        with contextlib.suppress(ks_exc.NotFound, ks_exc.Unauthorized):
            session.delete(f"{self._url}/OS-TRUST/trusts/{trust_id}")
