"""A small Orchestration v1 client for the benchmark driver.

It speaks plain HTTP with ``requests`` so that the figures measure the
service, not a client library. It works against keel-heat or any
Heat-compatible endpoint, with a Keystone token or in noauth mode.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import requests

TERMINAL = ("COMPLETE", "FAILED")


class BenchError(RuntimeError):
    """The endpoint answered something the benchmark cannot go on with."""


@dataclasses.dataclass
class Endpoint:
    """Where the orchestration service is and how to authenticate.

    :param url: the orchestration endpoint including the project,
        e.g. ``http://127.0.0.1:8004/v1/<project_id>``.
    :param token: a Keystone token, or ``None`` for noauth.
    """

    url: str
    token: str | None = None

    @classmethod
    def from_keystone(
        cls,
        auth_url: str,
        username: str,
        password: str,
        project_name: str,
        user_domain: str = "Default",
        project_domain: str = "Default",
        url: str | None = None,
    ) -> Endpoint:
        """Log in with a password and find the orchestration endpoint."""
        from keystoneauth1 import session
        from keystoneauth1.identity import v3

        auth = v3.Password(
            auth_url=auth_url,
            username=username,
            password=password,
            project_name=project_name,
            user_domain_name=user_domain,
            project_domain_name=project_domain,
        )
        sess = session.Session(auth=auth)
        token = sess.get_token()
        if url is None:
            url = sess.get_endpoint(
                service_type="orchestration", interface="public"
            )
        return cls(url=url.rstrip("/"), token=token)


class OrchestrationClient:
    """The calls the benchmark cases need, over one HTTP session."""

    def __init__(self, endpoint: Endpoint, poll_interval: float = 0.2):
        self.endpoint = endpoint
        self.poll_interval = poll_interval
        self.http = requests.Session()
        self.http.headers["Accept"] = "application/json"
        self.http.headers["Content-Type"] = "application/json"
        if endpoint.token:
            self.http.headers["X-Auth-Token"] = endpoint.token

    def _url(self, path: str) -> str:
        return self.endpoint.url + path

    def request(
        self, method: str, path: str, expect: tuple[int, ...], **kw: Any
    ) -> requests.Response:
        resp = self.http.request(method, self._url(path), **kw)
        if resp.status_code not in expect:
            raise BenchError(
                f"{method} {path}: {resp.status_code} {resp.text[:500]}"
            )
        return resp

    def create_stack(
        self, name: str, template: dict[str, Any], files: dict[str, str]
    ) -> str:
        body = {
            "stack_name": name,
            "template": template,
            "files": files,
            "disable_rollback": True,
            "timeout_mins": 240,
        }
        resp = self.request("POST", "/stacks", (201,), json=body)
        return str(resp.json()["stack"]["id"])

    def update_stack(
        self,
        name: str,
        stack_id: str,
        template: dict[str, Any],
        files: dict[str, str],
    ) -> None:
        body = {"template": template, "files": files, "timeout_mins": 240}
        self.request("PUT", f"/stacks/{name}/{stack_id}", (202,), json=body)

    def delete_stack(self, name: str, stack_id: str) -> None:
        self.request("DELETE", f"/stacks/{name}/{stack_id}", (204,))

    def show_stack(self, name: str, stack_id: str) -> dict[str, Any]:
        resp = self.request("GET", f"/stacks/{name}/{stack_id}", (200,))
        return dict(resp.json()["stack"])

    def wait(
        self,
        name: str,
        stack_id: str,
        action: str,
        timeout: float,
        deleting: bool = False,
    ) -> str:
        """Poll until the stack reaches a final state of ``action``."""
        deadline = time.monotonic() + timeout
        path = f"/stacks/{name}/{stack_id}"
        while time.monotonic() < deadline:
            resp = self.http.get(self._url(path))
            if resp.status_code == 404 and deleting:
                return "DELETE_COMPLETE"
            if resp.status_code != 200:
                raise BenchError(f"GET {path}: {resp.status_code}")
            status = resp.json()["stack"]["stack_status"]
            act, _, state = status.partition("_")
            if act == action and state in TERMINAL:
                return str(status)
            time.sleep(self.poll_interval)
        raise BenchError(f"{name}: no final {action} within {timeout}s")

    def list_events(self, name: str, stack_id: str) -> int:
        """Page through the events as OSC does; return how many came."""
        count = 0
        marker = None
        while True:
            params: dict[str, Any] = {"limit": 200, "sort_dir": "asc"}
            if marker:
                params["marker"] = marker
            resp = self.request(
                "GET",
                f"/stacks/{name}/{stack_id}/events",
                (200,),
                params=params,
            )
            events = resp.json()["events"]
            if not events:
                return count
            count += len(events)
            marker = events[-1]["id"]

    def validate(self, template_text: str) -> None:
        self.request(
            "POST", "/validate", (200,), json={"template": template_text}
        )
