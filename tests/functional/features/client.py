"""What a user of the native API sees of a stack, over HTTP."""

from __future__ import annotations

import uuid
from typing import Any

from tests.functional.software.harness import Cloud, wait_for


class Stacks:
    """Stack, resource and event reads through the native API."""

    def __init__(self, cloud: Cloud) -> None:
        self.cloud = cloud

    def create(
        self,
        template: dict[str, Any],
        env: dict[str, Any] | None = None,
        files: dict[str, str] | None = None,
        prefix: str = "hooks",
    ) -> str:
        """POST /stacks; returns ``<name>/<id>``."""
        name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        stack_id = self.cloud.create(
            name,
            template,
            environment=env or {},
            files=files or {},
            disable_rollback=True,
        )
        return f"{name}/{stack_id}"

    def update(
        self,
        ident: str,
        template: dict[str, Any],
        env: dict[str, Any] | None = None,
        files: dict[str, str] | None = None,
    ) -> None:
        status, body = self.cloud.request(
            "PUT",
            f"/stacks/{ident}",
            {
                "template": template,
                "environment": env or {},
                "files": files or {},
                "disable_rollback": True,
            },
        )
        assert status == 202, body

    def delete(self, ident: str) -> None:
        status, body = self.cloud.request("DELETE", f"/stacks/{ident}")
        assert status == 204, body

    def show(self, ident: str) -> dict[str, Any]:
        return self.cloud.stack(ident)

    def status(self, ident: str) -> str:
        return str(self.show(ident)["stack_status"])

    def wait_status(self, ident: str, state: str) -> dict[str, Any]:
        return self.cloud.wait_state(ident, state, timeout=60)

    def resource(self, ident: str, name: str) -> dict[str, Any]:
        status, body = self.cloud.request(
            "GET", f"/stacks/{ident}/resources/{name}"
        )
        assert status == 200, body
        return dict(body["resource"])

    def resource_state(self, ident: str, name: str) -> str:
        return str(self.resource(ident, name)["resource_status"])

    def wait_resource(self, ident: str, name: str, state: str) -> None:
        wait_for(
            lambda: self.resource_state(ident, name) == state,
            what=f"{name} {state}",
        )

    def events(self, ident: str, name: str | None = None) -> list[Any]:
        status, body = self.cloud.request(
            "GET", f"/stacks/{ident}/events?sort_dir=asc"
        )
        assert status == 200, body
        return [
            e
            for e in body["events"]
            if name is None or e["resource_name"] == name
        ]

    def wait_event(self, ident: str, name: str, reason: str) -> list[Any]:
        """The events of ``name`` with ``reason``, once there is one."""

        def found() -> list[Any]:
            return [
                e
                for e in self.events(ident, name)
                if e["resource_status_reason"] == reason
            ]

        events: list[Any] = wait_for(found, what=f"{name}: {reason}")
        return events

    def signal(self, ident: str, name: str, data: Any) -> tuple[int, Any]:
        return self.cloud.request(
            "POST", f"/stacks/{ident}/resources/{name}/signal", data
        )

    def nested(self, ident: str, name: str) -> str:
        """``<name>/<id>`` of the child stack of resource ``name``."""

        def child() -> str | None:
            res = self.resource(ident, name)
            return res["physical_resource_id"] or None

        child_id: str = wait_for(child, what=f"{name}'s child stack")
        shown = self.show(child_id)
        return f"{shown['stack_name']}/{shown['id']}"


def deleted(cloud: Cloud, stack: str) -> bool:
    """Whether ``GET /stacks/<stack>`` finds the stack deleted.

    As in Heat, a deleted stack is still shown by id, DELETE_COMPLETE
    (a lookup answers 404 only for an id never seen, or once purged).
    """
    status, body = cloud.request("GET", f"/stacks/{stack}")
    if status == 404:
        return True
    assert status == 200, body
    return bool(body["stack"]["stack_status"] == "DELETE_COMPLETE")
