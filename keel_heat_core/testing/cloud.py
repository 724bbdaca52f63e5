"""An in-process cloud for functional tests: database, engines and APIs.

:class:`InProcessCloud` runs in the test process what a deployment runs
in several: a migrated database, one or more
:class:`~keel_heat_core.service.engine.EngineService` on one transport
(``inproc://`` or RabbitMQ), and the native API (optionally the CFN API
too) behind real HTTP servers on free loopback ports.  Requests then go
the whole way: HTTP → API → RPC → engine → database.

The native API runs either without authentication, one application per
:class:`NoauthAPI` (a fixed project and roles, e.g. an admin and a
member variant), or behind keystonemiddleware when a Keystone fixture
(:class:`~keel_heat_core.testing.keystone.KeystoneServer`) is given; then
each request names the user it is sent as.

Usage from a module-scoped fixture::

    @pytest.fixture(scope="module")
    def cloud(tmp_path_factory):
        with InProcessCloud(
            tmp_path_factory.mktemp("cloud"),
            apis={"member": NoauthAPI("project-a")},
        ) as running:
            yield running

    def test_create(cloud):
        stack_id = cloud.create("one", TEMPLATE)
        cloud.wait_state(stack_id, "CREATE_COMPLETE")

The API applications need the ``keel-heat-api`` distribution installed
next to the core; an engine-only cloud (no ``apis``, no ``keystone``)
does not.
"""

from __future__ import annotations

import pathlib
import subprocess
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from keel_heat_core import plugins
from keel_heat_core.cmd.wsgi_server import WSGIServer
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from keel_heat_core.rpc import transport as shared
from keel_heat_core.service.db_backend import DatabaseBackend
from keel_heat_core.service.engine import EngineService
from keel_heat_core.service.engine_endpoint import EngineEndpoint
from keel_heat_core.testing.cloud_http import (
    BIN,
    json_request,
    run_openstack,
    state_reached,
    wait_for,
)
from keel_heat_core.testing.cloud_setup import (
    KEY,
    make_conf,
    scratch_database,
    serialize_sqlite_writers,
)

if TYPE_CHECKING:
    from keel_heat_core.testing.keystone import Credentials, KeystoneServer

__all__ = [
    "BIN",
    "KEY",
    "InProcessCloud",
    "NoauthAPI",
    "json_request",
    "make_conf",
    "run_openstack",
    "scratch_database",
    "serialize_sqlite_writers",
    "state_reached",
    "wait_for",
]


@dataclass(frozen=True)
class NoauthAPI:
    """One native API application without authentication.

    :ivar project_id: the project every request acts in.
    :ivar roles: the roles of every request.
    :ivar token: an ``X-Auth-Token`` sent with every request (the
        context's ``auth_token``), or none.
    """

    project_id: str
    roles: tuple[str, ...] = ("member", "reader")
    token: str | None = None


class InProcessCloud:
    """A database, engines and API servers in this process.

    :param workdir: a folder for the SQLite database (when no
        ``database_url``) and the Keystone configuration file.
    :param database_url: an empty database to migrate, e.g. one of
        :func:`scratch_database`; SQLite in ``workdir`` if ``None``.
    :param transport_url: the RPC transport.
    :param prefix: the start of the database and exchange names.
    :param engines: how many engine services to run.
    :param resume_interval: seconds between the engines' resume passes
        (``None``: the configured one).
    :param apis: noauth native API applications by name (the first is
        the default of the request helpers).
    :param keystone: the Keystone fixture: one native API application
        behind auth_token instead, the engine acting with the stack's
        trust, and the catalog's orchestration endpoints pointing here.
    :param cfn_api: also serve the CFN API (always with ``keystone``).
    :param options: ``{(group, option): value}`` configuration.
    :param timeout: seconds a request helper waits for an answer.
    :raises ValueError: with both ``apis`` and ``keystone``, or no place
        for the database or the configuration.

    :ivar conf: the configuration of every service.
    :ivar db: the database.
    :ivar transport: the RPC transport every service shares.
    :ivar engines: the engine services, started.
    :ivar backends: each engine's database backend.
    :ivar servers: the native API servers by name (``keystone`` for
        the authenticated one).
    :ivar cfn_server: the CFN API server, if any.
    :ivar names: stack id to name of the stacks :meth:`create` made.

    The helpers call each other as ``InProcessCloud.<helper>(self, …)``,
    so that a test package's subclass may give the public ones the
    signatures its tests use (a user first, a role set, …).
    """

    def __init__(
        self,
        workdir: pathlib.Path | None = None,
        *,
        database_url: str | None = None,
        transport_url: str = "inproc://",
        prefix: str = "keel_cloud_",
        engines: int = 1,
        resume_interval: float | None = 1.0,
        apis: Mapping[str, NoauthAPI] | None = None,
        keystone: KeystoneServer | None = None,
        cfn_api: bool = False,
        options: Mapping[tuple[str, str], Any] | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.apis = dict(apis or {})
        if self.apis and keystone is not None:
            raise ValueError("noauth APIs and Keystone exclude each other")
        if database_url is None:
            if workdir is None:
                raise ValueError("a workdir or a database_url is needed")
            name = f"{prefix}{uuid.uuid4().hex[:12]}"
            database_url = f"sqlite:///{workdir / name}.db"
        self.keystone = keystone
        self.timeout = timeout
        self.engines: list[EngineService] = []
        self.backends: list[DatabaseBackend] = []
        self.servers: dict[str, WSGIServer] = {}
        self.cfn_server: WSGIServer | None = None
        self.names: dict[str, str] = {}
        self._tokens: dict[str, str] = {}
        self._transport_made = False
        serves = bool(self.apis) or keystone is not None
        auth = {
            ("api", "auth_strategy"): "noauth" if self.apis else "keystone"
        }
        self.conf = make_conf(
            database_url,
            transport_url,
            prefix=prefix,
            api=serves,
            config_files=self._keystone_config(keystone, workdir),
            options={**(auth if serves else {}), **(options or {})},
        )
        plugins.load_plugins(self.conf)
        self.db = Database(
            database_url,
            encryption_key=KEY,
            sqlite_synchronous=self.conf.database.sqlite_synchronous,
        )
        try:
            self._start(engines, resume_interval, cfn_api)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _keystone_config(
        keystone: KeystoneServer | None, workdir: pathlib.Path | None
    ) -> list[str]:
        # keystonemiddleware registers its [keystone_authtoken] options
        # only when the application is built: they go in a file
        if keystone is None:
            return []
        if workdir is None:
            raise ValueError("Keystone needs a workdir for keel-heat.conf")
        lines: list[str] = []
        for group, values in keystone.heat_config().items():
            lines.append(f"[{group}]")
            lines.extend(f"{key} = {value}" for key, value in values.items())
        path = workdir / "keel-heat.conf"
        path.write_text("\n".join(lines) + "\n")
        return [str(path)]

    def _start(
        self, engines: int, resume_interval: float | None, cfn: bool
    ) -> None:
        runner.upgrade(self.db.engine)
        serialize_sqlite_writers(self.db)
        self.transport = shared.get_transport(self.conf)
        self._transport_made = True
        for _ in range(engines):
            backend = DatabaseBackend(self.conf, self.db)
            engine = EngineService(
                self.conf,
                str(uuid.uuid4()),
                transport=self.transport,
                backend=backend,
                resume_interval=resume_interval,
            )
            engine.start()
            self.backends.append(backend)
            self.engines.append(engine)
        if self.apis or self.keystone is not None:
            self._start_apis(cfn or self.keystone is not None)

    def _start_apis(self, cfn: bool) -> None:
        from keel_heat_api.app import setup_app

        for name, api in self.apis.items():
            self.conf.set_override(
                "noauth_project_id", api.project_id, group="api"
            )
            self.conf.set_override("noauth_roles", list(api.roles), "api")
            self._serve(name, setup_app(self.conf))
        if self.keystone is not None:
            self._serve("keystone", setup_app(self.conf))
        if cfn:
            from keel_heat_api import cfn as cfn_api
            from keel_heat_core.rpc.client import EngineClient

            rpc = EngineClient(self.conf, transport=self.transport)
            app = cfn_api.setup_app(self.conf, rpc=rpc)
            self.cfn_server = WSGIServer("CFN API", app, "127.0.0.1", 0)
            self.cfn_server.start()
        if self.keystone is not None:
            # signal URLs the engine hands out point at these servers
            assert self.cfn_server is not None
            self.keystone.register_heat_endpoints(
                self.server.url, self.cfn_server.url
            )

    def _serve(self, name: str, app: Any) -> None:
        server = WSGIServer(f"native API {name}", app, "127.0.0.1", 0)
        server.start()
        self.servers[name] = server

    # -- the services -------------------------------------------------

    @property
    def engine(self) -> EngineService:
        """The first engine service (settable, to replace it)."""
        return self.engines[0]

    @engine.setter
    def engine(self, engine: EngineService) -> None:
        self.engines[0] = engine

    @property
    def backend(self) -> DatabaseBackend:
        """The first engine's database backend."""
        return self.backends[0]

    @property
    def server(self) -> WSGIServer:
        """The first native API server."""
        return next(iter(self.servers.values()))

    def endpoint(self, index: int = 0) -> EngineEndpoint:
        """The RPC endpoint object of an engine, to call it directly."""
        found = self.engines[index].engine_endpoints[0]
        assert isinstance(found, EngineEndpoint)
        return found

    def close(self) -> None:
        """Stop the servers and engines; release the transport and DB."""
        if self.cfn_server is not None:
            self.cfn_server.stop()
        for server in self.servers.values():
            server.stop()
        for engine in self.engines:
            engine.stop()
            engine.wait()
        if self._transport_made:
            shared.cleanup()
        self.db.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    # -- HTTP ---------------------------------------------------------

    def url(self, api: str | None = None, project: str | None = None) -> str:
        """The orchestration endpoint ``http://…/v1/<project>``.

        :param api: a server name; the first one by default.
        :param project: the project; that of the noauth API by default
            (needed with Keystone).
        """
        name = api or next(iter(self.servers))
        if project is None:
            project = self.apis[name].project_id
        return f"{self.servers[name].url}/v1/{project}"

    def token(self, user: Credentials, fresh: bool = False) -> str:
        """A Keystone token of ``user`` (the same one until ``fresh``)."""
        assert self.keystone is not None, "no Keystone in this cloud"
        if fresh or user.username not in self._tokens:
            token = self.keystone.session(user).get_token()
            assert token
            self._tokens[user.username] = token
        return self._tokens[user.username]

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        api: str | None = None,
        user: Credentials | None = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, Any]:
        """One JSON request to the native API.

        :param path: below ``/v1/<project>``, e.g. ``/stacks``.
        :param api: the noauth API to send it to (the first by default).
        :param user: with Keystone, who sends it (their project's URL
            and token).
        :param token: a token to send instead of ``user``'s.
        :returns: the status and the decoded answer, see
            :func:`json_request`.
        """
        sent = dict(headers or {})
        if self.keystone is not None:
            assert user is not None, "with Keystone a request needs a user"
            url = InProcessCloud.url(self, api, user.project_id)
            sent.setdefault("X-Auth-Token", token or self.token(user))
        else:
            name = api or next(iter(self.apis))
            url = InProcessCloud.url(self, name, None)
            given = token or self.apis[name].token
            if given is not None:
                sent.setdefault("X-Auth-Token", given)
        return json_request(url + path, method, body, sent, self.timeout)

    def create(
        self,
        name: str,
        template: Any,
        *,
        api: str | None = None,
        user: Credentials | None = None,
        **fields: Any,
    ) -> str:
        """POST a stack; return its id (asserts 201).

        :param fields: more of the body (``parameters``, ``files``, …).
        """
        status, body = InProcessCloud.request(
            self,
            "POST",
            "/stacks",
            {"stack_name": name, "template": template, **fields},
            api=api,
            user=user,
        )
        assert status == 201, body
        stack_id = str(body["stack"]["id"])
        self.names[stack_id] = name
        return stack_id

    def path(self, stack: str) -> str:
        """``/stacks/<name>/<id>`` of a stack :meth:`create` made, or
        ``/stacks/<stack>`` of a name (or ``<name>/<id>``)."""
        if stack in self.names:
            return f"/stacks/{self.names[stack]}/{stack}"
        return f"/stacks/{stack}"

    def stack(
        self,
        stack: str,
        *,
        api: str | None = None,
        user: Credentials | None = None,
    ) -> dict[str, Any]:
        """The stack as ``GET /stacks/…`` shows it (asserts 200)."""
        status, body = InProcessCloud.request(
            self, "GET", self.path(stack), api=api, user=user
        )
        assert status == 200, body
        return dict(body["stack"])

    def outputs(
        self,
        stack: str,
        *,
        api: str | None = None,
        user: Credentials | None = None,
    ) -> dict[str, Any]:
        """The stack's output values by key."""
        shown = InProcessCloud.stack(self, stack, api=api, user=user)
        return {
            o["output_key"]: o.get("output_value") for o in shown["outputs"]
        }

    def wait_state(
        self,
        stack: str,
        states: str | Iterable[str],
        *,
        api: str | None = None,
        user: Credentials | None = None,
        timeout: float = 90.0,
        strict: bool = False,
    ) -> dict[str, Any]:
        """Poll a stack until it is in one of ``states``; return it.

        :param stack: an id, a name or ``<name>/<id>``, see :meth:`path`.
        :param strict: see :func:`state_reached`.
        """
        wanted = (states,) if isinstance(states, str) else tuple(states)

        def reached() -> dict[str, Any] | None:
            shown = InProcessCloud.stack(self, stack, api=api, user=user)
            return shown if state_reached(shown, wanted, strict) else None

        found = wait_for(reached, timeout, f"{stack} in {wanted}", 0.3)
        assert found is not None
        return found

    def wait_deleted(
        self,
        stack: str,
        *,
        api: str | None = None,
        user: Credentials | None = None,
        timeout: float = 90.0,
    ) -> None:
        """Poll until the stack is gone (404) or ``DELETE_COMPLETE``."""

        def gone() -> bool:
            status, body = InProcessCloud.request(
                self, "GET", self.path(stack), api=api, user=user
            )
            if status == 404:
                return True
            assert status == 200, body
            state = body["stack"]["stack_status"]
            assert state != "DELETE_FAILED", body["stack"]
            return bool(state == "DELETE_COMPLETE")

        wait_for(gone, timeout, f"{stack} to be deleted", 0.3)

    def openstack(
        self,
        *args: str,
        api: str | None = None,
        check: bool = True,
        timeout: float = 120.0,
    ) -> subprocess.CompletedProcess[str]:
        """Run the ``openstack`` CLI against a noauth API, see
        :func:`run_openstack`."""
        return run_openstack(
            InProcessCloud.url(self, api, None),
            *args,
            check=check,
            timeout=timeout,
        )
