"""Signal and mark-unhealthy errors and events through the native API."""

from __future__ import annotations

from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.db import resource as resource_repo
from tests.functional.software.harness import Cloud, wait_for
from tests.functional.software.test_stack_signals import CTX, _events

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "test": {"type": "OS::Heat::TestResource"},
        "hooked": {"type": "OS::Heat::None"},
    },
}
ENV = {"resource_registry": {"resources": {"hooked": {"hooks": "pre-create"}}}}


@pytest.fixture(scope="module")
def stack(cloud: Cloud) -> dict[str, str]:
    ident = cloud.endpoint().create_stack(
        CTX, "sigs", TEMPLATE, ENV, {}, {"timeout_mins": 5}
    )
    stack_id = ident["stack_id"]

    def paused() -> bool:
        return any(
            e[2] == "CREATE paused until Hook pre-create is cleared"
            for e in _events(cloud, stack_id, "hooked")
        )

    # "test" is created; "hooked" waits at its hook until a test clears it
    wait_for(paused, what="the hooked resource to pause")
    return {"id": stack_id, "path": f"/stacks/sigs/{stack_id}"}


def _error(body: Any) -> tuple[str, str]:
    return body["error"]["type"], body["error"]["message"]


def _physical(cloud: Cloud, stack: dict[str, str], name: str) -> str:
    res = cloud.endpoint().describe_stack_resource(
        CTX, {"stack_id": stack["id"]}, name
    )
    return str(res["physical_resource_id"])


def test_signal_unknown_resource_is_404(cloud: Cloud, stack):
    status, body = cloud.request(
        "POST", stack["path"] + "/resources/nope/signal", {}
    )
    assert status == 404
    assert _error(body) == (
        "ResourceNotFound",
        "The Resource (nope) could not be found in Stack sigs.",
    )


def test_signal_type_without_handler_is_400(cloud: Cloud, stack):
    status, body = cloud.request(
        "POST", stack["path"] + "/resources/test/signal", {"a": 1}
    )
    assert status == 400
    assert _error(body) == (
        "ResourceActionNotSupported",
        "signal is not supported for resource.",
    )


def test_unset_hook_errors(cloud: Cloud, stack):
    physical = _physical(cloud, stack, "test")
    text = f'TestResource "test" [{physical}] Stack "sigs" [{stack["id"]}]'
    status, body = cloud.request(
        "POST",
        stack["path"] + "/resources/test/signal",
        {"unset_hook": "pre-lunch"},
    )
    assert status == 400
    assert _error(body) == (
        "InvalidBreakPointHook",
        f'Invalid hook type "pre-lunch" for {text}',
    )
    status, body = cloud.request(
        "POST",
        stack["path"] + "/resources/test/signal",
        {"unset_hook": "pre-create"},
    )
    assert status == 400
    assert _error(body) == (
        "InvalidBreakPointHook",
        f'The "pre-create" hook is not defined on {text}',
    )


def test_unset_hook_clears_it(cloud: Cloud, stack):
    status, body = cloud.request(
        "POST",
        stack["path"] + "/resources/hooked/signal",
        {"unset_hook": "pre-create"},
    )
    assert status == 200, body
    assert body is None

    def cleared() -> bool:
        return any(
            e[2] == "Hook pre-create is cleared"
            for e in _events(cloud, stack["id"], "hooked")
        )

    wait_for(cleared, what="the hook-cleared event")

    def done() -> bool:
        shown = cloud.endpoint().show_stack(CTX, {"stack_id": stack["id"]})[0]
        return (shown["stack_action"], shown["stack_status"]) == (
            "CREATE",
            "COMPLETE",
        )

    wait_for(done, what="the stack to complete once the hook is cleared")


def test_mark_unhealthy_and_healthy(cloud: Cloud, stack):
    path = stack["path"] + "/resources/test"
    status, body = cloud.request(
        "PATCH",
        path,
        {"mark_unhealthy": True, "resource_status_reason": "broken disk"},
    )
    assert status == 200, body
    res = cloud.endpoint().describe_stack_resource(
        CTX, {"stack_id": stack["id"]}, "test"
    )
    assert (res["resource_action"], res["resource_status"]) == (
        "CHECK",
        "FAILED",
    )
    assert res["resource_status_reason"] == "broken disk"
    # by physical id, back to healthy, with the default reason
    physical = _physical(cloud, stack, "test")
    status, body = cloud.request(
        "PATCH",
        f"{stack['path']}/resources/{physical}",
        {"mark_unhealthy": "false"},
    )
    assert status == 200, body
    res = cloud.endpoint().describe_stack_resource(
        CTX, {"stack_id": stack["id"]}, "test"
    )
    assert (res["resource_action"], res["resource_status"]) == (
        "CHECK",
        "COMPLETE",
    )
    events = _events(cloud, stack["id"], "test")
    assert ("CHECK", "FAILED", "broken disk") in events
    assert (
        "CHECK",
        "COMPLETE",
        "state changed by resource_mark_unhealthy api",
    ) in events
    status, body = cloud.request(
        "PATCH", stack["path"] + "/resources/ghost", {"mark_unhealthy": True}
    )
    assert status == 404
    assert _error(body)[0] == "ResourceNotFound"


def test_mark_unhealthy_needs_a_boolean(cloud: Cloud, stack):
    with pytest.raises(exception.Invalid) as err:
        cloud.endpoint().resource_mark_unhealthy(
            CTX, {"stack_id": stack["id"]}, "test", "yes"
        )
    assert str(err.value) == (
        "Data supplied was not valid: mark_unhealthy is not a boolean"
    )


def _row_id(cloud: Cloud, stack: dict[str, str], name: str) -> int:
    rows = [
        row
        for row in cloud.endpoint()._api.deps.resources.get_resources(
            stack["id"]
        )
        if row.name == name
    ]
    return max(row.id for row in rows)


def test_locked_resource_cannot_be_marked(cloud: Cloud, stack):
    rid = _row_id(cloud, stack, "hooked")
    resource_repo.update_unconditional(cloud.db, rid, {"engine_id": "busy"})
    try:
        status, body = cloud.request(
            "PATCH",
            stack["path"] + "/resources/hooked",
            {"mark_unhealthy": True},
        )
    finally:
        resource_repo.update_unconditional(cloud.db, rid, {"engine_id": None})
    assert status == 409
    assert _error(body) == (
        "ActionInProgress",
        "Stack sigs already has an action (CREATE) in progress.",
    )


def test_no_signal_while_suspended(cloud: Cloud, stack):
    rid = _row_id(cloud, stack, "hooked")
    resource_repo.update_unconditional(cloud.db, rid, {"action": "SUSPEND"})
    try:
        status, body = cloud.request(
            "POST", stack["path"] + "/resources/hooked/signal", {}
        )
    finally:
        resource_repo.update_unconditional(cloud.db, rid, {"action": "CREATE"})
    assert status == 400
    assert _error(body) == (
        "NotSupported",
        "Signal resource during SUSPEND is not supported.",
    )
    assert (
        "SUSPEND",
        "COMPLETE",
        "Cannot signal resource during SUSPEND",
    ) in _events(cloud, stack["id"], "hooked")
