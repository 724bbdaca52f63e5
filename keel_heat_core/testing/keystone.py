"""The ``keystone`` pytest fixture: a real Keystone 30 for the test session.

Usage in a test module::

    pytestmark = pytest.mark.keystone

    def test_something(keystone: KeystoneServer) -> None:
        sess = keystone.session(keystone.demo)

The fixture installs Keystone into a cached venv on first use (see
:mod:`keel_heat_core.testing.keystone_venv` and
``docs/design/keystone-fixture.md``), bootstraps it on SQLite in a
temporary folder, serves it on a free port of 127.0.0.1 and creates what
Heat needs (:mod:`keel_heat_core.testing.keystone_provision`). One Keystone
serves the whole process, however many conftest files expose the fixture;
gunicorn is stopped when the last user of it finishes.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytest
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from keel_heat_core.testing import (
    keystone_provision,
    keystone_server,
    keystone_venv,
)

REGION = "RegionOne"


@dataclass(frozen=True)
class Credentials:
    """A Keystone user and the scope it logs in with.

    Exactly one of ``project_id`` and ``domain_id`` gives the scope.
    """

    username: str
    password: str
    user_id: str
    user_domain_id: str = "default"
    project_name: str | None = None
    project_id: str | None = None
    domain_id: str | None = None

    def auth(self, auth_url: str) -> v3.Password:
        """Return a keystoneauth1 password plugin for these credentials.

        :param auth_url: the unversioned identity endpoint.
        """
        return v3.Password(
            auth_url=f"{auth_url}/v3",
            user_id=self.user_id,
            password=self.password,
            project_id=self.project_id,
            domain_id=self.domain_id,
        )


@dataclass
class KeystoneServer:
    """A running Keystone with the users and projects Heat needs.

    :ivar url: the unversioned identity endpoint, as in the catalog.
    :ivar admin: the bootstrap admin (admin on project ``admin``).
    :ivar heat: the ``heat`` service user (admin on ``service``), the
        ``[trustee]`` and ``[keystone_authtoken]`` user.
    :ivar domain_admin: admin of the stack-user domain, domain scoped.
    :ivar demo: a member user (``member`` + ``heat_stack_owner``).
    :ivar alt_demo: a second member user in another project.
    :ivar stack_domain_id: the id of the ``heat`` stack-user domain.
    :ivar roles: role name to role id.
    """

    url: str
    admin: Credentials
    heat: Credentials
    domain_admin: Credentials
    demo: Credentials
    alt_demo: Credentials
    stack_domain_id: str
    stack_domain_name: str
    service_project_id: str
    roles: dict[str, str]
    region: str = REGION
    workdir: Path = field(default_factory=Path)

    @property
    def v3_url(self) -> str:
        """The versioned identity endpoint."""
        return f"{self.url}/v3"

    def session(self, creds: Credentials) -> ks_session.Session:
        """Return a keystoneauth1 session that logs in as ``creds``.

        :param creds: one of this server's credentials (or any other).
        """
        return ks_session.Session(auth=creds.auth(self.url))

    def admin_session(self) -> ks_session.Session:
        """Return a session of the bootstrap admin."""
        return self.session(self.admin)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able copy, see :meth:`from_json`."""
        data = asdict(self)
        data["workdir"] = str(self.workdir)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KeystoneServer:
        """The server :meth:`to_json` described (another process's)."""
        given = dict(data)
        for name in ("admin", "heat", "domain_admin", "demo", "alt_demo"):
            given[name] = Credentials(**given[name])
        given["workdir"] = Path(given["workdir"])
        return cls(**given)

    def revoke_token(self, token: str) -> None:
        """Revoke ``token`` (as the admin).

        :param token: a token id.
        """
        self.admin_session().delete(
            f"{self.v3_url}/auth/tokens",
            headers={"X-Subject-Token": token},
        )

    def register_heat_endpoints(self, api_url: str, cfn_url: str) -> None:
        """Point the ``orchestration`` and ``cloudformation`` services at us.

        Idempotent: a later call moves the endpoints to the new URLs.

        :param api_url: the native API root, e.g. ``http://127.0.0.1:8004``
            (``/v1/$(project_id)s`` is appended).
        :param cfn_url: the CFN API root, e.g. ``http://127.0.0.1:8000``
            (``/v1`` is appended).
        """
        keystone_provision.register_service(
            self.admin_session(),
            self.v3_url,
            "orchestration",
            "heat",
            f"{api_url.rstrip('/')}/v1/$(project_id)s",
            self.region,
        )
        keystone_provision.register_service(
            self.admin_session(),
            self.v3_url,
            "cloudformation",
            "heat-cfn",
            f"{cfn_url.rstrip('/')}/v1",
            self.region,
        )

    def heat_config(self) -> dict[str, dict[str, Any]]:
        """Return Heat's Keystone settings for this server, per group.

        The keys are Heat's option names, so the result can be fed to
        ``ConfigOpts.set_override`` or written into a ``heat.conf``.
        """
        heat_auth = {
            "auth_type": "password",
            "auth_url": self.url,
            "username": self.heat.username,
            "password": self.heat.password,
            "user_domain_id": "default",
        }
        return {
            "DEFAULT": {
                "stack_user_domain_id": self.stack_domain_id,
                "stack_domain_admin": self.domain_admin.username,
                "stack_domain_admin_password": self.domain_admin.password,
                "deferred_auth_method": "trusts",
                "region_name_for_services": self.region,
            },
            "trustee": dict(heat_auth),
            "keystone_authtoken": {
                **heat_auth,
                "www_authenticate_uri": self.v3_url,
                "project_name": "service",
                "project_domain_id": "default",
            },
            "ec2authtoken": {
                **heat_auth,
                "project_name": "service",
                "project_domain_id": "default",
            },
            "clients_keystone": {"auth_uri": self.url},
        }


def start_keystone(
    workdir: Path,
    *,
    venv: Path | None = None,
    database_url: str | None = None,
    sock: socket.socket | None = None,
) -> tuple[KeystoneServer, keystone_server.KeystoneProcess]:
    """Install (if needed), bootstrap and serve Keystone in ``workdir``.

    :param workdir: an empty folder for Keystone's state and logs.
    :param venv: a venv holding Keystone; the cached Keystone venv of
        :mod:`.keystone_venv` by default.
    :param database_url: an empty database; SQLite in ``workdir`` by
        default.
    :param sock: the listening socket to serve on (closed here); a free
        port of 127.0.0.1 by default.
    :returns: the server description and the process (call ``stop()``).
    """
    venv = venv or keystone_venv.ensure_venv()
    conf = keystone_server.write_config(workdir, database_url)
    sock = sock or keystone_server.listen()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    password = secrets.token_hex(12)
    try:
        keystone_server.bootstrap(venv, workdir, conf, url, password)
        process = keystone_server.KeystoneProcess(venv, workdir, sock)
    finally:
        sock.close()
    try:
        process.wait_ready()
        server = _provision(url, password, workdir)
    except BaseException:
        process.stop()
        raise
    return server, process


def _provision(url: str, admin_password: str, workdir: Path) -> KeystoneServer:
    admin_auth = v3.Password(
        auth_url=f"{url}/v3",
        username="admin",
        password=admin_password,
        user_domain_id="default",
        project_name="admin",
        project_domain_id="default",
    )
    sess = ks_session.Session(auth=admin_auth)
    admin_id = admin_auth.get_user_id(sess)
    admin_project = admin_auth.get_project_id(sess)
    made = keystone_provision.provision_heat(sess, f"{url}/v3")

    def creds(name: str, **scope: Any) -> Credentials:
        user = made.users[name]
        return Credentials(
            username=name,
            password=user.password,
            user_id=user.id,
            user_domain_id=user.domain_id,
            **scope,
        )

    def in_project(user: str, project: str) -> Credentials:
        return creds(
            user,
            project_name=project,
            project_id=made.projects[project],
        )

    return KeystoneServer(
        url=url,
        admin=Credentials(
            username="admin",
            password=admin_password,
            user_id=admin_id or "",
            project_name="admin",
            project_id=admin_project,
        ),
        heat=in_project("heat", "service"),
        domain_admin=creds(
            keystone_provision.DOMAIN_ADMIN, domain_id=made.stack_domain_id
        ),
        demo=in_project("demo", "demo"),
        alt_demo=in_project("alt_demo", "alt_demo"),
        stack_domain_id=made.stack_domain_id,
        stack_domain_name=keystone_provision.STACK_DOMAIN,
        service_project_id=made.projects["service"],
        roles=made.roles,
        workdir=workdir,
    )


_lock = threading.Lock()
_shared: dict[str, Any] = {"users": 0, "server": None, "process": None}


@contextlib.contextmanager
def shared_keystone(
    workdir: Callable[[], Path],
) -> Iterator[KeystoneServer]:
    """Share one Keystone among all fixture instances of the process.

    :param workdir: makes the folder used if this call starts the server.
    """
    with _lock:
        if _shared["server"] is None:
            server, process = start_keystone(workdir())
            _shared.update(server=server, process=process)
        _shared["users"] += 1
        server = _shared["server"]
    try:
        yield server
    finally:
        with _lock:
            _shared["users"] -= 1
            if _shared["users"] == 0:
                _shared["process"].stop()
                _shared.update(server=None, process=None)


@pytest.fixture(scope="session")
def keystone(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[KeystoneServer]:
    """A real Keystone 30 on 127.0.0.1, provisioned for Heat."""
    with shared_keystone(
        lambda: tmp_path_factory.mktemp("keystone")
    ) as server:
        yield server
