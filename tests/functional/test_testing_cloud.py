"""The testing kit's in-process cloud, through its ``heat_cloud`` fixture.

A stack goes the whole way (HTTP → API → RPC → engine → SQLite) with the
kit's helpers; the admin and member APIs differ in what policy lets
them do; the waits fail fast on a failed stack.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from keel_heat_core.testing import plugin
from keel_heat_core.testing.cloud import InProcessCloud, NoauthAPI, wait_for
from keel_heat_core.testing.plugin import CLOUD_PROJECT
from tests.functional.engine import conftest as _engine_conftest  # noqa: F401

# as a pack's conftest.py gets it with ``from ...plugin import *``
heat_cloud = plugin.heat_cloud


def _template(value: str, fail: bool = False) -> dict[str, Any]:
    return {
        "heat_template_version": "2016-10-14",
        "resources": {
            "test": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": value, "fail": fail},
            }
        },
        "outputs": {"out": {"value": {"get_attr": ["test", "output"]}}},
    }


def _output(stack: dict[str, Any]) -> Any:
    return {o["output_key"]: o["output_value"] for o in stack["outputs"]}


def test_create_update_delete(heat_cloud: InProcessCloud) -> None:
    name = f"kit-{uuid.uuid4().hex[:8]}"
    stack_id = heat_cloud.create(name, _template("one"))
    assert heat_cloud.path(stack_id) == f"/stacks/{name}/{stack_id}"
    shown = heat_cloud.wait_state(stack_id, "CREATE_COMPLETE")
    assert (shown["id"], shown["stack_name"]) == (stack_id, name)
    assert _output(shown) == {"out": "one"}

    status, body = heat_cloud.request(
        "PUT", heat_cloud.path(stack_id), {"template": _template("two")}
    )
    assert status == 202, body
    heat_cloud.wait_state(name, ("UPDATE_COMPLETE",))
    assert heat_cloud.outputs(name, api="member") == {"out": "two"}
    # the member API serves the same project
    assert heat_cloud.stack(stack_id, api="member")["id"] == stack_id

    status, body = heat_cloud.request("DELETE", heat_cloud.path(stack_id))
    assert status == 204, body
    heat_cloud.wait_deleted(stack_id)
    # by id a deleted stack is still shown, DELETE_COMPLETE (as Heat);
    # by name it is gone
    status, body = heat_cloud.request("GET", heat_cloud.path(stack_id))
    assert status == 200, body
    assert body["stack"]["stack_status"] == "DELETE_COMPLETE"
    status, _ = heat_cloud.request("GET", f"/stacks/{name}")
    assert status == 404


def test_admin_and_member_apis(heat_cloud: InProcessCloud) -> None:
    assert heat_cloud.url("member").endswith(f"/v1/{CLOUD_PROJECT}")
    # listing the engine services is for project admins
    status, body = heat_cloud.request("GET", "/services", api="member")
    assert status == 403, body
    assert body["error"]["type"] == "Forbidden"
    status, body = heat_cloud.request("GET", "/services")
    assert status == 200, body
    listed = {s["engine_id"]: s["status"] for s in body["services"]}
    assert listed[heat_cloud.engine.engine_id] == "up"


def test_waits_fail_fast_on_a_failed_stack(
    heat_cloud: InProcessCloud,
) -> None:
    stack_id = heat_cloud.create(
        f"kit-fail-{uuid.uuid4().hex[:8]}", _template("x", fail=True)
    )
    began = time.monotonic()
    with pytest.raises(AssertionError, match="CREATE_FAILED"):
        heat_cloud.wait_state(stack_id, "CREATE_COMPLETE", timeout=60)
    assert time.monotonic() - began < 30
    # a final state that is not awaited: strict fails at once, the
    # default waits (here until its short time-out)
    done = heat_cloud.create(f"kit-ok-{uuid.uuid4().hex[:8]}", _template("y"))
    heat_cloud.wait_state(done, "CREATE_COMPLETE")
    with pytest.raises(AssertionError, match="CREATE_COMPLETE"):
        heat_cloud.wait_state(done, "UPDATE_COMPLETE", strict=True)
    with pytest.raises(AssertionError, match="timed out"):
        heat_cloud.wait_state(done, "UPDATE_COMPLETE", timeout=1)


def test_openstack_cli(heat_cloud: InProcessCloud) -> None:
    name = f"kit-cli-{uuid.uuid4().hex[:8]}"
    stack_id = heat_cloud.create(name, _template("cli"))
    heat_cloud.wait_state(stack_id, "CREATE_COMPLETE")
    shown = heat_cloud.openstack(
        "stack", "show", name, "-c", "id", "-f", "value", api="member"
    )
    assert shown.stdout.strip() == stack_id
    failed = heat_cloud.openstack("stack", "show", "no-such", check=False)
    assert failed.returncode != 0
    assert "Stack not found: no-such" in failed.stderr


def test_engines_alone(tmp_path: Any) -> None:
    with InProcessCloud(tmp_path, engines=2) as cloud:
        assert cloud.servers == {} and cloud.cfn_server is None
        assert len(cloud.engines) == 2
        assert cloud.endpoint(1) is not cloud.endpoint(0)
        # no API options: the core's [api] group holds only the
        # remote-template options every process reads
        assert "auth_strategy" not in cloud.conf.api


def test_noauth_and_keystone_exclude_each_other(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="exclude each other"):
        InProcessCloud(
            tmp_path,
            apis={"a": NoauthAPI("p")},
            keystone=object(),  # type: ignore[arg-type]
        )
    with pytest.raises(ValueError, match="workdir or a database_url"):
        InProcessCloud()


def test_wait_for_returns_the_first_true_answer() -> None:
    answers = iter([0, None, "", "found", "later"])
    assert wait_for(lambda: next(answers), 5, "x", interval=0.01) == "found"
    with pytest.raises(AssertionError, match=r"waiting for nothing: \[\]"):
        wait_for(lambda: [], 0.1, "nothing", interval=0.01)
