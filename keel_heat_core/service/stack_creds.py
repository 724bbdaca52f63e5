"""The stack's stored credentials and the client sessions built from them.

At the creation of a root stack the engine, while the API call still
holds the caller's token (sealed in the context's ``auth_handle``, see
``docs/design/context.md``), stores what later work on the stack
authenticates with (docs/design/context.md): with ``deferred_auth_method =
trusts`` a trust from the caller to the ``[trustee]`` user, with
``password`` the caller's password (sealed in ``auth_key_handle``), both
encrypted in ``user_creds``. Every traversal builds its client sessions
from that row, never from a request's token; the trust is deleted with
the stack.

:class:`EngineContext` is the context resource and client plugins see:
the request's ids plus a lazily built keystoneauth1 session
(``keystone_session``), the stack-domain operations (``stack_domain``)
and the client-plugin factory (``clients``).
"""

from __future__ import annotations

import importlib.metadata
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from oslo_config import cfg
from oslo_log import log as logging

from keel_heat_core import exception
from keel_heat_core.conf import library_option
from keel_heat_core.context import RequestContext, unseal_token
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db import user_creds as creds_repo
from keel_heat_core.db.database import Database
from keel_heat_core.identity import trusts
from keel_heat_core.identity.stack_domain import (
    StackDomain,
    StackDomainSettings,
)
from keel_heat_core.model import rows as r

LOG = logging.getLogger(__name__)

CLIENTS_GROUP = "keel_heat.clients"
#: sessions kept per engine process (one per stack's credentials)
_SESSION_CACHE = 256


class ClientFactory:
    """``client_plugin(name)`` and ``client(name)`` for one context.

    Client plugins are the ``keel_heat.clients`` entry points; each is
    built once per factory (that is, per context).
    """

    _classes: dict[str, Any] | None = None

    def __init__(self, context: Any) -> None:
        self.context = context
        self._plugins: dict[str, Any] = {}

    @classmethod
    def _plugin_classes(cls) -> dict[str, Any]:
        if cls._classes is None:
            cls._classes = {
                ep.name: ep
                for ep in importlib.metadata.entry_points(group=CLIENTS_GROUP)
            }
        return cls._classes

    def client_plugin(self, name: str | None) -> Any:
        """The client plugin ``name`` of this context."""
        key = name or ""
        if key not in self._plugins:
            entry = self._plugin_classes().get(key)
            if entry is not None:
                cls = entry.load()
            elif key == "heat":
                from keel_heat_core.service.heat_client import (
                    EngineHeatClientPlugin,
                )

                cls = EngineHeatClientPlugin
            else:
                raise exception.EntityNotFound(
                    entity="Client plugin", name=key
                )
            self._plugins[key] = cls(self.context)
        return self._plugins[key]

    def client(self, name: str | None, version: Any = None) -> Any:
        """The client of plugin ``name``."""
        return self.client_plugin(name).client(version)


class EngineContext(RequestContext):
    """A request context with the engine's client sessions.

    Built with :meth:`StackCredentials.stack_context` (traversals) or
    :meth:`StackCredentials.request_context` (the synchronous API call).
    Nothing of it but the ids is ever serialised.
    """

    _session_factory: Callable[[], ks_session.Session | None] | None = None
    _session: ks_session.Session | None = None
    _domain_factory: Callable[[], Any] | None = None
    _roles_pending: bool = False
    #: the engine's configuration (client plugins' options)
    engine_conf: Any = None

    def _bind(
        self,
        session: Callable[[], ks_session.Session | None],
        domain: Callable[[], Any],
        roles_from_session: bool,
        conf: Any = None,
    ) -> EngineContext:
        self.engine_conf = conf
        self._session_factory = session
        self._domain_factory = domain
        self._roles_pending = roles_from_session
        self._lock = threading.Lock()
        self.clients = ClientFactory(self)
        return self

    @property
    def keystone_session(self) -> ks_session.Session | None:
        """The keystoneauth1 session of this context (built on first use).

        :raises AuthorizationFailure: when the stored credentials are
            refused.
        """
        if self._session is None and self._session_factory is not None:
            with self._lock:
                if self._session is None:
                    self._session = self._session_factory()
        return self._session

    @property
    def stack_domain(self) -> Any:
        """Heat's stack-domain operations, or ``None`` when unconfigured."""
        return None if self._domain_factory is None else self._domain_factory()

    @property
    def roles(self) -> list[str]:
        """The roles: for a stored trust, those the trust delegates."""
        if self._roles_pending:
            self._roles_pending = False
            sess = self.keystone_session
            if sess is not None and sess.auth is not None:
                access = sess.auth.get_access(sess)  # type: ignore[attr-defined]
                self._roles = list(access.role_names)
        return list(getattr(self, "_roles", []) or [])

    @roles.setter
    def roles(self, value: list[str] | None) -> None:
        self._roles = list(value or [])

    def get_logging_values(self) -> dict[str, Any]:
        """The context for a log line, without reading the trust's roles:
        a traversal's first log line must not cost a Keystone token."""
        pending, self._roles_pending = self._roles_pending, False
        try:
            return super().get_logging_values()
        finally:
            self._roles_pending = pending

    def has_service(self, service_type: str) -> bool:
        """Whether the session's catalog has ``service_type``.

        Without a session (no Keystone configured, or no token to act
        with) there is no catalog, so no service: the types of the
        cloud's services are left out and refused with
        ``ResourceTypeUnavailable``, as in a Heat whose catalog lacks them.
        """
        sess = self.keystone_session
        if sess is None or sess.auth is None:
            return False
        access = sess.auth.get_access(sess)  # type: ignore[attr-defined]
        catalog = access.service_catalog
        return bool(catalog and catalog.get_endpoints(service_type))


class StackCredentials:
    """Stores, uses and deletes the stored credentials of stacks.

    :param conf: the engine configuration (``[trustee]``,
        ``deferred_auth_method``, the stack-domain options …).
    :param db: the database (``user_creds``).
    """

    def __init__(self, conf: cfg.ConfigOpts, db: Database) -> None:
        self.conf = conf
        self.db = db
        self._sessions: OrderedDict[int, ks_session.Session] = OrderedDict()
        self._lock = threading.Lock()
        self._broker: trusts.TrustBroker | None = None
        self._domain: StackDomain | None = None

    # -- configuration -----------------------------------------------------

    @property
    def auth_url(self) -> str | None:
        """The unversioned identity endpoint, if Keystone is configured."""
        url = (
            self.conf.clients_keystone.auth_uri
            or library_option(
                self.conf, "keystone_authtoken", "www_authenticate_uri"
            )
            or library_option(self.conf, "trustee", "auth_url")
        )
        if not url:
            return None
        url = str(url).rstrip("/")
        return url[: -len("/v3")] if url.endswith("/v3") else url

    def _v3_url(self) -> str:
        return f"{self.auth_url}/v3"

    def trusts_enabled(self) -> bool:
        """Whether trusts can be made: Keystone and ``[trustee]`` set."""
        return bool(self.auth_url and self.conf.trustee.auth_type)

    def broker(self) -> trusts.TrustBroker:
        """The trust broker of ``[trustee]``."""
        if self._broker is None:
            self._broker = trusts.TrustBroker(
                self._v3_url(), trusts.trustee_auth_from_conf(self.conf)
            )
        return self._broker

    def stack_domain(self) -> StackDomain | None:
        """The stack-domain admin's operations, when configured."""
        if self._domain is None:
            admin = self.conf.stack_domain_admin
            if not (admin and self.auth_url):
                return None
            settings = StackDomainSettings.from_conf(self.conf, self.auth_url)
            self._domain = StackDomain(settings)
        return self._domain

    def _unseal(self, handle: str | None) -> str | None:
        secret = self.conf.auth_encryption_key
        if not handle or not secret:
            return None
        ttl = int(self.conf.rpc_response_timeout)
        return unseal_token(str(secret), handle, ttl + 30)

    def caller_token(self, ctxt: Any) -> str | None:
        """The caller's token from the context's sealed handle, if valid."""
        return self._unseal(getattr(ctxt, "auth_handle", None))

    # -- storing -----------------------------------------------------------

    def store(self, ctxt: Any) -> int | None:
        """Store the credentials of a new root stack; return the row id.

        ``None`` when there is nothing to store (no Keystone: the
        embedded no-auth mode).

        :raises MissingCredentialError: the trust cannot delegate the
            roles (``trusts_delegated_roles``).
        :raises AuthorizationFailure: Keystone refuses a login.
        """
        project_id = getattr(ctxt, "project_id", None)
        common = {
            "tenant": getattr(ctxt, "project_name", None),
            "tenant_id": project_id,
            "auth_url": self.auth_url,
            "region_name": getattr(ctxt, "region_name", None),
        }
        if self.conf.deferred_auth_method == "password":
            password = self._unseal(getattr(ctxt, "auth_key_handle", None))
            if password is None:
                return None
            rec = creds_repo.create(
                self.db,
                username=getattr(ctxt, "username", None),
                password=password,
                # the login by id works whatever the user's domain
                trustor_user_id=getattr(ctxt, "user_id", None),
                **common,
            )
            return rec.id
        if getattr(ctxt, "trust_id", None):
            rec = creds_repo.create(
                self.db,
                trust_id=ctxt.trust_id,
                trustor_user_id=getattr(ctxt, "trustor_user_id", None),
                **common,
            )
            return rec.id
        token = self.caller_token(ctxt)
        if token is None or not self.trusts_enabled() or not project_id:
            return None
        redelegate = bool(
            self.conf.reauthentication_auth_method == "trusts"
            and self.conf.allow_trusts_redelegation
        )
        # who the caller is, as keystonemiddleware validated its token:
        # the trust is made with that token, without another login
        user_id = getattr(ctxt, "user_id", None)
        roles = tuple(getattr(ctxt, "roles", None) or ())
        trustor = (
            trusts.Trustor(user_id, project_id, roles)
            if user_id and roles
            else None
        )
        trust = self.broker().create_trust(
            trusts.caller_session(token)
            if trustor is not None
            else trusts.token_session(self._v3_url(), token, project_id),
            delegated_roles=list(self.conf.trusts_delegated_roles),
            allow_redelegation=redelegate,
            trustor=trustor,
        )
        try:
            rec = creds_repo.create(
                self.db,
                trust_id=trust.id,
                trustor_user_id=trust.trustor_user_id,
                **common,
            )
        except Exception:
            self._delete_trust(trust.id, trust.trustor_user_id)
            raise
        return rec.id

    def refresh(self, ctxt: Any, stack: r.StackRow) -> int | None:
        """Heat's ``check_refresh_cred``: a root stack updated or deleted
        by another user (or project) than its trustor gets a new trust
        from the caller; the old trust and row go.

        :returns: the new ``user_creds`` id, or ``None`` when unchanged.
        """
        old_id = stack.user_creds_id
        if stack.owner_id is not None or old_id is None:
            return None
        if self.conf.deferred_auth_method != "trusts":
            return None
        rec = creds_repo.get(self.db, old_id)
        user = getattr(ctxt, "user_id", None)
        project = getattr(ctxt, "project_id", None)
        if rec is None or not rec.trust_id or user is None:
            return None
        if rec.trustor_user_id == user and rec.tenant_id == project:
            return None
        if self.caller_token(ctxt) is None:
            return None
        new_id = self.store(ctxt)
        if new_id is None:
            return None
        stack_repo.update(self.db, stack.id, {"user_creds_id": new_id})
        self.delete(old_id)
        return new_id

    # -- using -------------------------------------------------------------

    def session(self, creds_id: int | None) -> ks_session.Session | None:
        """The session of stored credentials (cached per engine).

        :raises AuthorizationFailure: when Keystone refuses them.
        """
        if creds_id is None:
            return None
        with self._lock:
            found = self._sessions.get(creds_id)
            if found is not None:
                self._sessions.move_to_end(creds_id)
                return found
        rec = creds_repo.get(self.db, creds_id)
        if rec is None:
            return None
        sess: ks_session.Session | None = None
        if rec.trust_id:
            sess = self.broker().trust_session(
                rec.trust_id, rec.trustor_user_id or ""
            )
        elif rec.password and rec.auth_url:
            # by user id when stored (a user of any domain); a row Heat
            # wrote names only the user, whose domain must then be the
            # default one
            url = f"{rec.auth_url.rstrip('/')}/v3"
            if rec.trustor_user_id:
                auth = v3.Password(
                    auth_url=url,
                    user_id=rec.trustor_user_id,
                    password=rec.password,
                    project_id=rec.tenant_id,
                )
            else:
                auth = v3.Password(
                    auth_url=url,
                    username=rec.username,
                    user_domain_id="default",
                    password=rec.password,
                    project_id=rec.tenant_id,
                )
            sess = ks_session.Session(auth=auth)
        if sess is not None:
            with self._lock:
                self._sessions[creds_id] = sess
                while len(self._sessions) > _SESSION_CACHE:
                    self._sessions.popitem(last=False)
        return sess

    def stack_context(
        self, stack: r.StackRow, base: Any = None
    ) -> EngineContext:
        """The stored context of a stack: what traversals act as."""
        values = base.to_dict() if base is not None else {}
        values.update(
            project_id=stack.tenant,
            username=stack.username,
            overwrite=False,
        )
        values.pop("auth_handle", None)
        values.pop("auth_key_handle", None)
        ctxt = EngineContext.from_dict(values)
        creds_id = stack.user_creds_id
        if base is None and creds_id is None:
            ctxt.roles = []
        return ctxt._bind(  # type: ignore[no-any-return]
            lambda: self.session(creds_id),
            self._domain_client(ctxt),
            roles_from_session=base is None and creds_id is not None,
            conf=self.conf,
        )

    def request_context(self, ctxt: Any) -> EngineContext:
        """The caller's context during a synchronous call, its session
        from the caller's own token (sealed handle)."""
        if isinstance(ctxt, EngineContext):
            return ctxt
        values = ctxt.to_dict() if ctxt is not None else {}
        token = self.caller_token(ctxt)
        project_id = values.get("project_id")

        def session() -> ks_session.Session | None:
            if token is None or not self.auth_url or not project_id:
                return None
            return trusts.token_session(self._v3_url(), token, project_id)

        engine_ctxt = EngineContext.from_dict(values)
        return engine_ctxt._bind(  # type: ignore[no-any-return]
            session, self._domain_client(engine_ctxt), False, self.conf
        )

    def _domain_client(self, ctxt: Any) -> Callable[[], Any]:
        def build() -> Any:
            domain = self.stack_domain()
            if domain is None:
                return None
            from keel_heat_core.identity.heat_keystone import (
                StackDomainClient,
            )

            return StackDomainClient(domain, ctxt, self.auth_url or "")

        return build

    # -- deleting ----------------------------------------------------------

    def _delete_trust(self, trust_id: str, trustor: str | None) -> None:
        try:
            sess = self.broker().trust_session(trust_id, trustor or "")
        except Exception:  # the trust is gone or unusable
            LOG.warning("The trust of a deleted stack could not be used")
            return
        self.broker().delete_trust(sess, trust_id)

    def delete(self, creds_id: int | None) -> None:
        """Delete stored credentials and their trust (errors ignored)."""
        self.forget(creds_id)()

    def forget(self, creds_id: int | None) -> Callable[[], None]:
        """Delete stored credentials (errors ignored); returns the
        deletion of their trust in Keystone, for the caller to run."""
        if creds_id is None:
            return _nothing
        with self._lock:
            self._sessions.pop(creds_id, None)
        try:
            rec = creds_repo.get(self.db, creds_id)
        except Exception:  # the key changed: the trust cannot be read
            LOG.warning("The stored credentials %s are unreadable", creds_id)
            rec = None
        try:
            creds_repo.delete(self.db, creds_id)
        except Exception:
            LOG.debug("Stored credentials %s already deleted", creds_id)
        if rec is None or not rec.trust_id:
            return _nothing
        trust_id, trustor = rec.trust_id, rec.trustor_user_id
        return lambda: self._delete_trust(trust_id, trustor)

    def on_traversal_end(
        self, ctxt: Any, stack: r.StackRow, status: str, reason: str
    ) -> Callable[[], None] | None:
        """A root stack deleted: its ``user_creds`` go now; its trust and
        stack-domain project, which live in Keystone, once the stack shows
        DELETE_COMPLETE (returned; as in Heat, whose convergence engine
        deletes them after writing that state)."""
        if not (
            stack.action == r.DELETE
            and status == r.COMPLETE
            and stack.owner_id is None
        ):
            return None
        rec = stack_repo.get(self.db, stack.id)
        project_id = rec.stack_user_project_id if rec else None
        domain = self.stack_domain() if project_id else None
        trust: Callable[[], None] = _nothing
        if stack.user_creds_id is not None:
            stack_repo.update(self.db, stack.id, {"user_creds_id": None})
            trust = self.forget(stack.user_creds_id)

        def in_keystone() -> None:
            if domain is not None and project_id:
                try:
                    domain.delete_project(project_id)
                except Exception:  # the stack is deleted all the same
                    LOG.warning(
                        "Stack domain project %s not deleted", project_id
                    )
            trust()

        return in_keystone


def _nothing() -> None:
    return None
