"""Stack, resource and output reads of the nested-stack update tests,
through the native API."""

from __future__ import annotations

import uuid
from typing import Any

from tests.functional.software.harness import Cloud, wait_for

FINAL = ("_COMPLETE", "_FAILED")


def show(cloud: Cloud, ident: str) -> dict[str, Any]:
    status, body = cloud.request("GET", f"/stacks/{ident}")
    assert status == 200, body
    return dict(body["stack"])


def wait(cloud: Cloud, ident: str, state: str) -> dict[str, Any]:
    """Wait for the stack to end its action; assert it is ``state``."""

    def ended() -> dict[str, Any] | None:
        shown = show(cloud, ident)
        return shown if shown["stack_status"].endswith(FINAL) else None

    shown: dict[str, Any] = wait_for(ended, what=f"{ident} {state}")
    assert shown["stack_status"] == state, shown["stack_status_reason"]
    return shown


def create(
    cloud: Cloud,
    template: Any,
    env: dict[str, Any] | None = None,
    files: dict[str, str] | None = None,
) -> str:
    """POST /stacks and wait for CREATE_COMPLETE; ``<name>/<id>``."""
    name = f"nested-{uuid.uuid4().hex[:8]}"
    status, body = cloud.request(
        "POST",
        "/stacks",
        {
            "stack_name": name,
            "template": template,
            "environment": env or {},
            "files": files or {},
            "disable_rollback": True,
        },
    )
    assert status == 201, body
    ident = f"{name}/{body['stack']['id']}"
    wait(cloud, ident, "CREATE_COMPLETE")
    return ident


def update(
    cloud: Cloud,
    ident: str,
    body: dict[str, Any],
    patch: bool = False,
    state: str = "UPDATE_COMPLETE",
) -> dict[str, Any]:
    """PUT (or PATCH) the stack and wait for the update to end."""
    status, answer = cloud.request(
        "PATCH" if patch else "PUT",
        f"/stacks/{ident}",
        {"disable_rollback": True, **body},
    )
    assert status == 202, answer
    return wait(cloud, ident, state)


def resource(cloud: Cloud, ident: str, name: str) -> dict[str, Any]:
    status, body = cloud.request("GET", f"/stacks/{ident}/resources/{name}")
    assert status == 200, body
    return dict(body["resource"])


def resources(cloud: Cloud, ident: str) -> dict[str, str]:
    """``{name: type}`` of the stack's resources, as Heat's tests list."""
    status, body = cloud.request("GET", f"/stacks/{ident}/resources")
    assert status == 200, body
    return {r["resource_name"]: r["resource_type"] for r in body["resources"]}


def nested(cloud: Cloud, ident: str, name: str) -> str:
    """``<name>/<id>`` of the child stack of resource ``name``."""
    child = resource(cloud, ident, name)["physical_resource_id"]
    shown = show(cloud, child)
    return f"{shown['stack_name']}/{shown['id']}"


def outputs(cloud: Cloud, ident: str) -> dict[str, Any]:
    return {
        o["output_key"]: o.get("output_value")
        for o in show(cloud, ident)["outputs"]
    }
