"""The CFN API served over HTTP, authenticating against the real Keystone.

The engine is the fake one of the unit tests (the real engine serves a
different suite); EC2 signatures, keystonemiddleware and policy are real.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
import requests

from keel_heat_core.cmd.wsgi_server import WSGIServer
from keel_heat_core.testing.keystone import Credentials, KeystoneServer
from tests.functional.api_cfn import signing
from tests.unit.api_cfn.harness import CfnHarness


def _write_conf(keystone: KeystoneServer, path: Path) -> None:
    lines: list[str] = []
    groups: dict[str, dict[str, Any]] = keystone.heat_config()
    groups.setdefault("api", {})["auth_strategy"] = "keystone"
    for group, options in groups.items():
        lines.append(f"[{group}]")
        lines.extend(f"{key} = {value}" for key, value in options.items())
    path.write_text("\n".join(lines) + "\n")


def ec2_keypair(keystone: KeystoneServer, user: Credentials) -> Any:
    """Create an EC2 credential of ``user`` in its project."""
    sess = keystone.session(user)
    resp = sess.post(
        f"{keystone.v3_url}/users/{user.user_id}/credentials/OS-EC2",
        json={"tenant_id": user.project_id},
    )
    return resp.json()["credential"]


@dataclass
class SignedClient:
    """Sends signed query-API requests to the CFN server.

    :ivar base: ``http://127.0.0.1:<port>``.
    :ivar access: the EC2 access key.
    :ivar secret: its secret (a wrong one makes bad signatures).
    """

    base: str
    access: str
    secret: str

    @property
    def host(self) -> str:
        return self.base.split("://", 1)[1]

    def v2(
        self, params: dict[str, str], method: str = "GET", path: str = "/v1/"
    ) -> requests.Response:
        """A v2-signed request (query string, or form for POST)."""
        signed = signing.v2_params(self.access, **params)
        signed["Signature"] = signing.sign_v2(
            self.secret, method, self.host, path, signed
        )
        if method == "POST":
            return requests.post(self.base + path, data=signed, timeout=30)
        return requests.request(
            method, self.base + path, params=signed, timeout=30
        )

    def v4(
        self, params: dict[str, str], method: str = "POST", path: str = "/v1/"
    ) -> requests.Response:
        """A v4-signed request (``Authorization`` header)."""
        body = urlencode(params).encode() if method == "POST" else b""
        headers = signing.sign_v4(
            self.access,
            self.secret,
            method,
            self.host,
            path,
            params,
            body,
        )
        if method == "POST":
            return requests.post(
                self.base + path, data=body, headers=headers, timeout=30
            )
        return requests.request(
            method,
            self.base + path,
            params=params,
            headers=headers,
            timeout=30,
        )

    def presigned(
        self, verb: str, unquoted_path: str, quoted_path: str, body: bytes
    ) -> requests.Response:
        """Use a pre-signed URL as the engine writes them (signal URLs)."""
        params = signing.v2_params(self.access)
        params["Signature"] = signing.sign_v2(
            self.secret, verb, self.host, unquoted_path, params
        )
        url = f"{self.base}{quoted_path}?{urlencode(params)}"
        return requests.request(verb, url, data=body, timeout=30)


@dataclass
class CfnServer:
    """The running app, its fake engine and a client of the demo user."""

    harness: CfnHarness
    server: WSGIServer
    client: SignedClient
    project_id: str


@pytest.fixture(scope="package")
def cfn_server(
    keystone: KeystoneServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[CfnServer]:
    conf_file = tmp_path_factory.mktemp("cfnconf") / "keel-heat.conf"
    _write_conf(keystone, conf_file)
    harness = CfnHarness(
        {("api", "auth_strategy"): "keystone"},
        config_files=[str(conf_file)],
    )
    server = WSGIServer("CFN API", harness.app, "127.0.0.1", 0)
    server.start()
    cred = ec2_keypair(keystone, keystone.demo)
    try:
        yield CfnServer(
            harness,
            server,
            SignedClient(server.url, cred["access"], cred["secret"]),
            keystone.demo.project_id or "",
        )
    finally:
        server.stop()
        harness.stop()


@pytest.fixture
def cfn(cfn_server: CfnServer) -> CfnServer:
    """The server with a fresh fake engine."""
    cfn_server.harness.engine.stacks.clear()
    cfn_server.harness.engine.calls.clear()
    return cfn_server
