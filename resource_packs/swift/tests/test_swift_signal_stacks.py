"""OS::Heat::SwiftSignalHandle and OS::Heat::SwiftSignal through the
engine, signalled with plain HTTP PUTs (no token) on the handle's
temporary URL, as ``curl -X PUT --data-binary …`` would."""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

import pytest
import requests
from swift_pack_checks import container_headers

from keel_heat_core.testing.cloud import InProcessCloud
from keel_heat_core.testing.openstack.fixture import CloudAccess

pytestmark = [pytest.mark.cloud, pytest.mark.slow]


def signal_template(count: int = 1, timeout: int = 120) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "handle": {"type": "OS::Heat::SwiftSignalHandle"},
            "signal": {
                "type": "OS::Heat::SwiftSignal",
                "properties": {
                    "handle": {"get_resource": "handle"},
                    "count": count,
                    "timeout": timeout,
                },
            },
        },
        "outputs": {
            "data": {"value": {"get_attr": ["signal", "data"]}},
            "endpoint": {"value": {"get_attr": ["handle", "endpoint"]}},
            "curl_cli": {"value": {"get_attr": ["handle", "curl_cli"]}},
            "token": {"value": {"get_attr": ["handle", "token"]}},
            "ref": {"value": {"get_resource": "handle"}},
        },
    }


def handle_url(heat: InProcessCloud, user: Any, stack: str) -> str:
    """The handle's endpoint, once the handle is created."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, body = heat.request(
            "GET", f"{heat.path(stack)}/resources/handle", user=user
        )
        assert status == 200, body
        resource = body["resource"]
        if resource["resource_status"] == "CREATE_COMPLETE":
            return str(resource["attributes"]["endpoint"])
        assert resource["resource_status"] != "CREATE_FAILED", resource
        time.sleep(0.3)
    raise AssertionError("the handle was not created in time")


def put(url: str, body: Any) -> None:
    data = body if isinstance(body, str) else json.dumps(body)
    answer = requests.put(url, data=data, timeout=30)
    assert answer.status_code == 201, answer.text


def test_signals_complete_the_wait(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    store: Any,
    unique: str,
) -> None:
    member = openstack_cloud.member
    stack = heat.create(unique, signal_template(count=2), user=member)
    url = handle_url(heat, member, stack)
    # the container is named after the stack, the object after the handle
    path = url.split("?")[0].split("/")
    assert path[-2] == stack
    assert container_headers(store, stack) is not None
    put(url, {"status": "SUCCESS", "data": "first", "id": "a"})
    time.sleep(2)
    assert (
        heat.stack(stack, user=member)["stack_status"] == "CREATE_IN_PROGRESS"
    )
    # with curl, an empty body counts as a success too
    subprocess.run(
        ["curl", "-sf", "-X", "PUT", "--data-binary", "", url],
        check=True,
        timeout=30,
        capture_output=True,
    )
    shown = heat.wait_state(stack, "CREATE_COMPLETE", user=member)
    outputs = {
        o["output_key"]: o.get("output_value") for o in shown["outputs"]
    }
    assert json.loads(outputs["data"]) == {"a": "first", "2": None}
    assert outputs["endpoint"] == url
    assert outputs["ref"] == url
    assert outputs["token"] == ""
    assert outputs["curl_cli"] == f"curl -i -X PUT '{url}'"

    status, body = heat.request("DELETE", heat.path(stack), user=member)
    assert status == 204, body
    heat.wait_deleted(stack, user=member)
    assert container_headers(store, stack) is None


def test_signal_by_curl_cli_and_failure(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    store: Any,
    unique: str,
) -> None:
    member = openstack_cloud.member
    stack = heat.create(unique, signal_template(), user=member)
    url = handle_url(heat, member, stack)
    body = json.dumps({"status": "FAILURE", "reason": "it broke"})
    subprocess.run(
        ["curl", "-sf", "-X", "PUT", "--data-binary", body, url],
        check=True,
        timeout=30,
        capture_output=True,
    )
    failed = heat.wait_state(stack, "CREATE_FAILED", user=member)
    assert failed["stack_status_reason"] == (
        "Resource CREATE failed: SwiftSignalFailure: resources.signal: "
        "it broke"
    )
    status, answer = heat.request("DELETE", heat.path(stack), user=member)
    assert status == 204, answer
    heat.wait_deleted(stack, user=member)
    assert container_headers(store, stack) is None


def test_signal_timeout(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    unique: str,
) -> None:
    member = openstack_cloud.member
    stack = heat.create(
        unique, signal_template(count=2, timeout=4), user=member
    )
    url = handle_url(heat, member, stack)
    put(url, {"reason": "one is here"})
    failed = heat.wait_state(stack, "CREATE_FAILED", user=member)
    assert failed["stack_status_reason"] == (
        "Resource CREATE failed: SwiftSignalTimeout: resources.signal: "
        "1 of 2 received - one is here"
    )
    status, answer = heat.request("DELETE", heat.path(stack), user=member)
    assert status == 204, answer
    heat.wait_deleted(stack, user=member)


def test_handle_of_another_stack_is_refused(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    unique: str,
) -> None:
    member = openstack_cloud.member
    first = heat.create(unique, signal_template(), user=member)
    url = handle_url(heat, member, first)
    template = signal_template()
    del template["resources"]["handle"]
    template["resources"]["signal"]["properties"]["handle"] = url
    template["outputs"] = {}
    other = heat.create(unique + "-o", template, user=member)
    failed = heat.wait_state(other, "CREATE_FAILED", user=member)
    path = url.split("?")[0].split("://")[1].partition("/")[2]
    assert failed["stack_status_reason"] == (
        "Resource CREATE failed: ValueError: resources.signal: "
        f'"/{path}" is not a valid SwiftSignalHandle.  The container name '
        "is invalid"
    )
    put(url, {})
    heat.wait_state(first, "CREATE_COMPLETE", user=member)
    for stack in (other, first):
        status, answer = heat.request("DELETE", heat.path(stack), user=member)
        assert status == 204, answer
        heat.wait_deleted(stack, user=member)
