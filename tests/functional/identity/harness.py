"""The native API behind keystonemiddleware, one engine, the real Keystone.

Requests go the whole way: HTTP with a Keystone token → auth_token →
the native API → RPC (``fake://``) → the engine → SQLite, and the engine
acts in Keystone through the stack's stored trust (``[trustee]`` is the
fixture's ``heat`` user).
"""

from __future__ import annotations

import json
import pathlib
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any

from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core import plugins
from keel_heat_core.cmd.wsgi_server import WSGIServer
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from keel_heat_core.rpc import transport as shared
from keel_heat_core.service.db_backend import DatabaseBackend
from keel_heat_core.service.engine import EngineService
from keel_heat_core.service.engine_endpoint import EngineEndpoint
from keel_heat_core.testing.keystone import Credentials, KeystoneServer
from tests.functional.engine.stacks import serialize_sqlite_writers

KEY = "0123456789abcdef0123456789abcdef"


def _write_conf(
    keystone: KeystoneServer, path: pathlib.Path, extra: dict[str, Any]
) -> None:
    groups: dict[str, dict[str, Any]] = keystone.heat_config()
    for (group, key), value in extra.items():
        groups.setdefault(group, {})[key] = value
    lines: list[str] = []
    for group, options in groups.items():
        lines.append(f"[{group}]")
        lines.extend(f"{key} = {value}" for key, value in options.items())
    path.write_text("\n".join(lines) + "\n")


class KeystoneCloud:
    """The engine and the native API of one test module.

    :param keystone: the Keystone fixture.
    :param tmp: a folder for the database and the configuration.
    :param extra: ``{(group, option): value}`` written to the config.
    """

    def __init__(
        self,
        keystone: KeystoneServer,
        tmp: pathlib.Path,
        extra: dict[tuple[str, str], Any] | None = None,
    ) -> None:
        from keel_heat_api import cfn as cfn_api
        from keel_heat_api import opts as api_opts
        from keel_heat_api.app import setup_app
        from keel_heat_core.rpc.client import EngineClient

        self.keystone = keystone
        url = f"sqlite:///{tmp / ('keel_ks_' + uuid.uuid4().hex[:12])}.db"
        conf_file = tmp / "keel-heat.conf"
        _write_conf(
            keystone,
            conf_file,
            {
                ("api", "auth_strategy"): "keystone",
                ("DEFAULT", "auth_encryption_key"): KEY,
                ("DEFAULT", "transport_url"): "fake://",
                ("DEFAULT", "control_exchange"): "keel_ks_"
                + uuid.uuid4().hex[:8],
                ("database", "connection"): url,
                **(extra or {}),
            },
        )
        self.conf = cfg.ConfigOpts()
        keel_conf.register_opts(self.conf)
        api_opts.register_opts(self.conf)
        cfn_api.register_opts(self.conf)
        self.conf([], default_config_files=[str(conf_file)])
        plugins.load_plugins(self.conf)
        self.db = Database(url, encryption_key=KEY)
        runner.upgrade(self.db.engine)
        serialize_sqlite_writers(self.db)
        self.transport = shared.get_transport(self.conf)
        self.backend = DatabaseBackend(self.conf, self.db)
        self.engine = EngineService(
            self.conf,
            str(uuid.uuid4()),
            transport=self.transport,
            backend=self.backend,
            resume_interval=1.0,
        )
        self.engine.start()
        self.server = WSGIServer(
            "native API", setup_app(self.conf), "127.0.0.1", 0
        )
        self.server.start()
        self.cfn_server = WSGIServer(
            "CFN API",
            cfn_api.setup_app(
                self.conf,
                rpc=EngineClient(self.conf, transport=self.transport),
            ),
            "127.0.0.1",
            0,
        )
        self.cfn_server.start()
        # signal URLs the engine hands out point at these servers
        keystone.register_heat_endpoints(self.server.url, self.cfn_server.url)
        self._tokens: dict[str, str] = {}
        self.names: dict[str, str] = {}

    def endpoint(self) -> EngineEndpoint:
        found = self.engine.engine_endpoints[0]
        assert isinstance(found, EngineEndpoint)
        return found

    def token(self, user: Credentials, fresh: bool = False) -> str:
        """A token of ``user`` (the same one until ``fresh``)."""
        if fresh or user.username not in self._tokens:
            sess = self.keystone.session(user)
            token = sess.get_token()
            assert token
            self._tokens[user.username] = token
        return self._tokens[user.username]

    def request(
        self,
        user: Credentials,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """One JSON request as ``user``; returns (status, decoded body)."""
        data = None if body is None else json.dumps(body).encode()
        url = f"{self.server.url}/v1/{user.project_id}{path}"
        req = urllib.request.Request(
            url,
            data=data,
            method=method,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json",
                "X-Auth-Token": token or self.token(user),
                **(headers or {}),
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=90) as resp:
                raw = resp.read()
                status = resp.status
        except urllib.error.HTTPError as err:
            raw = err.read()
            status = err.code
        try:
            decoded = json.loads(raw) if raw else None
        except ValueError:
            decoded = raw.decode(errors="replace")
        return status, decoded

    def create(
        self, user: Credentials, name: str, template: Any, **extra: Any
    ) -> str:
        """POST a stack as ``user``; return its id (asserts 201)."""
        status, body = self.request(
            user,
            "POST",
            "/stacks",
            {"stack_name": name, "template": template, **extra},
        )
        assert status == 201, body
        stack_id = str(body["stack"]["id"])
        self.names[stack_id] = name
        return stack_id

    def path(self, stack_id: str) -> str:
        """``/stacks/<name>/<id>`` of a stack made by :meth:`create`."""
        return f"/stacks/{self.names[stack_id]}/{stack_id}"

    def stack(self, user: Credentials, stack_id: str) -> dict[str, Any]:
        status, body = self.request(user, "GET", self.path(stack_id))
        assert status == 200, body
        return dict(body["stack"])

    def wait_state(
        self,
        user: Credentials,
        stack_id: str,
        states: tuple[str, ...],
        timeout: float = 90.0,
    ) -> dict[str, Any]:
        """Poll the stack until its ``<action>_<status>`` is one of
        ``states``; fail on another final state."""

        def reached() -> dict[str, Any] | None:
            stack = self.stack(user, stack_id)
            state = stack["stack_status"]
            if state in states:
                return stack
            assert not state.endswith(("_COMPLETE", "_FAILED")), (
                state,
                stack.get("stack_status_reason"),
            )
            return None

        found: dict[str, Any] = wait_for(reached, timeout, str(states))
        return found

    def wait_deleted(
        self, user: Credentials, stack_id: str, timeout: float = 90.0
    ) -> None:
        """Poll until the stack is gone (404) or ``DELETE_COMPLETE``."""

        def gone() -> bool:
            status, body = self.request(user, "GET", self.path(stack_id))
            if status == 404:
                return True
            assert status == 200, body
            state = body["stack"]["stack_status"]
            assert state != "DELETE_FAILED", body["stack"]
            return bool(state == "DELETE_COMPLETE")

        wait_for(gone, timeout, f"{stack_id} to be deleted")

    def close(self) -> None:
        self.cfn_server.stop()
        self.server.stop()
        self.engine.stop()
        self.engine.wait()
        shared.cleanup()
        self.db.dispose()


def wait_for(
    predicate: Callable[[], Any], timeout: float = 60.0, what: str = ""
) -> Any:
    """Poll until ``predicate()`` is truthy; return it."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = predicate()
        if found:
            return found
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")
