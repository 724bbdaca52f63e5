"""Breakpoints (environment ``hooks``) through the native API and the
engine: the resource pauses with Heat's event, the stack waits, a signal
``{"unset_hook": ...}`` lets it go on (``keel_heat_core/worker/hooks.py``).

These follow heat-tempest-plugin's ``test_hooks`` and add what it does
not look at: the resume loop leaves a parked node alone, clearing a hook
twice is refused, post-create and pre-delete hooks, and a pause outlives
the engine that parked it.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
import yaml

from keel_heat_core.service.db_backend import DatabaseBackend
from keel_heat_core.service.engine import EngineService
from tests.functional.features.client import Stacks, deleted
from tests.functional.software.harness import Cloud, wait_for

CHAIN = {
    "heat_template_version": "2014-10-16",
    "resources": {
        "foo_step1": {"type": "OS::Heat::RandomString"},
        "foo_step2": {
            "type": "OS::Heat::RandomString",
            "depends_on": "foo_step1",
        },
        "foo_step3": {
            "type": "OS::Heat::RandomString",
            "depends_on": "foo_step2",
        },
    },
}


def _hooks(name: str, hooks: Any) -> dict[str, Any]:
    return {"resource_registry": {"resources": {name: {"hooks": hooks}}}}


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _paused(stacks: Stacks, ident: str, name: str, hook: str, action: str):
    return stacks.wait_event(
        ident, name, f"{action} paused until Hook {hook} is cleared"
    )


def _clear(stacks: Stacks, ident: str, name: str, hook: str) -> list[Any]:
    status, body = stacks.signal(ident, name, {"unset_hook": hook})
    assert status == 200, body
    return stacks.wait_event(ident, name, f"Hook {hook} is cleared")


def test_pre_create_pauses_until_cleared(cloud: Cloud, stacks: Stacks):
    ident = stacks.create(CHAIN, _hooks("foo_step2", "pre-create"))
    stacks.wait_resource(ident, "foo_step1", "CREATE_COMPLETE")
    events = _paused(stacks, ident, "foo_step2", "pre-create", "CREATE")
    assert [e["resource_status"] for e in events] == ["INIT_COMPLETE"]
    # the resume loop (every second here) must not re-drive the parked
    # node: no second pause event, nothing moves
    time.sleep(3.5)
    assert stacks.status(ident) == "CREATE_IN_PROGRESS"
    assert stacks.resource_state(ident, "foo_step2") == "INIT_COMPLETE"
    assert stacks.resource_state(ident, "foo_step3") == "INIT_COMPLETE"
    assert (
        len(_paused(stacks, ident, "foo_step2", "pre-create", "CREATE")) == 1
    )

    cleared = _clear(stacks, ident, "foo_step2", "pre-create")
    assert [e["resource_status"] for e in cleared] == ["INIT_COMPLETE"]
    stacks.wait_status(ident, "CREATE_COMPLETE")
    assert stacks.resource_state(ident, "foo_step2") == "CREATE_COMPLETE"
    assert stacks.resource_state(ident, "foo_step3") == "CREATE_COMPLETE"
    # the hook is not set any more: clearing it again is refused
    phys = stacks.resource(ident, "foo_step2")["physical_resource_id"]
    name, stack_id = ident.split("/")
    status, body = stacks.signal(
        ident, "foo_step2", {"unset_hook": "pre-create"}
    )
    assert status == 400
    assert body["error"]["type"] == "InvalidBreakPointHook"
    assert body["error"]["message"] == (
        f'The "pre-create" hook is not defined on RandomString '
        f'"foo_step2" [{phys}] Stack "{name}" [{stack_id}]'
    )
    reasons = [e["resource_status_reason"] for e in stacks.events(ident)]
    assert reasons.count("Hook pre-create is cleared") == 1


def test_clearing_a_hook_that_is_not_reached_is_refused(
    cloud: Cloud, stacks: Stacks
):
    ident = stacks.create(CHAIN, _hooks("foo_step3", "pre-create"))
    _paused(stacks, ident, "foo_step3", "pre-create", "CREATE")
    # foo_step1 has no hook; an unknown hook type is refused as well
    name, stack_id = ident.split("/")
    phys = stacks.resource(ident, "foo_step1")["physical_resource_id"]
    text = f'RandomString "foo_step1" [{phys}] Stack "{name}" [{stack_id}]'
    status, body = stacks.signal(
        ident, "foo_step1", {"unset_hook": "pre-create"}
    )
    assert (status, body["error"]["message"]) == (
        400,
        f'The "pre-create" hook is not defined on {text}',
    )
    status, body = stacks.signal(
        ident, "foo_step1", {"unset_hook": "pre-lunch"}
    )
    assert (status, body["error"]["message"]) == (
        400,
        f'Invalid hook type "pre-lunch" for {text}',
    )
    _clear(stacks, ident, "foo_step3", "pre-create")
    stacks.wait_status(ident, "CREATE_COMPLETE")


def test_pre_update_without_change(cloud: Cloud, stacks: Stacks):
    env = _hooks("foo_step2", "pre-update")
    ident = stacks.create(CHAIN, env)
    stacks.wait_status(ident, "CREATE_COMPLETE")
    before = stacks.resource(ident, "foo_step2")["physical_resource_id"]
    stacks.update(ident, CHAIN, env)
    events = _paused(stacks, ident, "foo_step2", "pre-update", "UPDATE")
    assert events[0]["resource_status"] == "CREATE_COMPLETE"
    assert stacks.status(ident) == "UPDATE_IN_PROGRESS"
    cleared = _clear(stacks, ident, "foo_step2", "pre-update")
    assert cleared[0]["resource_status"] == "CREATE_COMPLETE"
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    assert stacks.resource_state(ident, "foo_step2") == "CREATE_COMPLETE"
    after = stacks.resource(ident, "foo_step2")["physical_resource_id"]
    assert after == before


def test_pre_update_with_replacement(cloud: Cloud, stacks: Stacks):
    env = _hooks("foo_step2", "pre-update")
    ident = stacks.create(CHAIN, env)
    stacks.wait_status(ident, "CREATE_COMPLETE")
    before = stacks.resource(ident, "foo_step2")["physical_resource_id"]
    changed = yaml.safe_load(yaml.safe_dump(CHAIN))
    changed["resources"]["foo_step2"]["properties"] = {"length": 10}
    stacks.update(ident, changed, env)
    _paused(stacks, ident, "foo_step2", "pre-update", "UPDATE")
    assert stacks.resource_state(ident, "foo_step2") == "CREATE_COMPLETE"
    _clear(stacks, ident, "foo_step2", "pre-update")
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    assert stacks.resource_state(ident, "foo_step2") == "CREATE_COMPLETE"
    after = stacks.resource(ident, "foo_step2")["physical_resource_id"]
    assert after != before


def test_pre_update_in_place_of_a_group(cloud: Cloud, stacks: Stacks):
    template = {
        "heat_template_version": "2014-10-16",
        "resources": {
            "rg": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 1,
                    "resource_def": {"type": "OS::Heat::RandomString"},
                },
            }
        },
    }
    env = _hooks("rg", "pre-update")
    ident = stacks.create(template, env)
    stacks.wait_status(ident, "CREATE_COMPLETE")
    before = stacks.resource(ident, "rg")["physical_resource_id"]
    template["resources"]["rg"]["properties"]["count"] = 2
    stacks.update(ident, template, env)
    events = _paused(stacks, ident, "rg", "pre-update", "UPDATE")
    assert events[0]["resource_status"] == "CREATE_COMPLETE"
    _clear(stacks, ident, "rg", "pre-update")
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    assert stacks.resource(ident, "rg")["physical_resource_id"] == before


def test_pre_create_in_a_nested_stack(cloud: Cloud, stacks: Stacks):
    env = {
        "resource_registry": {
            "resources": {"nested": {"foo_step2": {"hooks": "pre-create"}}}
        }
    }
    template = {
        "heat_template_version": "2014-10-16",
        "resources": {"nested": {"type": "nested.yaml"}},
    }
    ident = stacks.create(
        template, env, files={"nested.yaml": yaml.safe_dump(CHAIN)}
    )
    stacks.wait_resource(ident, "nested", "CREATE_IN_PROGRESS")
    child = stacks.nested(ident, "nested")
    stacks.wait_resource(child, "foo_step1", "CREATE_COMPLETE")
    events = _paused(stacks, child, "foo_step2", "pre-create", "CREATE")
    assert events[0]["resource_status"] == "INIT_COMPLETE"
    assert stacks.resource_state(child, "foo_step2") == "INIT_COMPLETE"
    # the parent's own resource of that name has no hook
    assert not [
        e
        for e in stacks.events(ident)
        if "paused" in e["resource_status_reason"]
    ]
    _clear(stacks, child, "foo_step2", "pre-create")
    stacks.wait_resource(child, "foo_step2", "CREATE_COMPLETE")
    stacks.wait_status(ident, "CREATE_COMPLETE")


def test_pre_create_wildcard(cloud: Cloud, stacks: Stacks):
    ident = stacks.create(CHAIN, _hooks("foo_*", "pre-create"))
    for name in ("foo_step1", "foo_step2", "foo_step3"):
        _paused(stacks, ident, name, "pre-create", "CREATE")
        assert stacks.resource_state(ident, name) == "INIT_COMPLETE"
        _clear(stacks, ident, name, "pre-create")
    stacks.wait_status(ident, "CREATE_COMPLETE")


def test_post_create_pre_and_post_delete(cloud: Cloud, stacks: Stacks):
    env = _hooks("foo_step2", ["post-create", "pre-delete", "post-delete"])
    ident = stacks.create(CHAIN, env)
    events = _paused(stacks, ident, "foo_step2", "post-create", "CREATE")
    assert events[0]["resource_status"] == "CREATE_COMPLETE"
    # created, but its successor waits for the hook
    assert stacks.resource_state(ident, "foo_step3") == "INIT_COMPLETE"
    assert stacks.status(ident) == "CREATE_IN_PROGRESS"
    _clear(stacks, ident, "foo_step2", "post-create")
    stacks.wait_status(ident, "CREATE_COMPLETE")

    stacks.delete(ident)
    _paused(stacks, ident, "foo_step2", "pre-delete", "DELETE")
    assert stacks.status(ident) == "DELETE_IN_PROGRESS"
    assert [e["resource_status"] for e in stacks.events(ident, "foo_step3")][
        -1
    ] == "DELETE_COMPLETE"
    assert [e["resource_status"] for e in stacks.events(ident, "foo_step2")][
        -1
    ] == "CREATE_COMPLETE"
    _clear(stacks, ident, "foo_step2", "pre-delete")
    events = _paused(stacks, ident, "foo_step2", "post-delete", "DELETE")
    assert events[0]["resource_status"] == "DELETE_COMPLETE"
    # foo_step1 is deleted after foo_step2's node, which waits
    assert stacks.events(ident, "foo_step1")[-1]["resource_status"] == (
        "CREATE_COMPLETE"
    )
    assert stacks.status(ident) == "DELETE_IN_PROGRESS"
    # no waiting for the "cleared" event here: the stack may be gone
    # (DELETE_COMPLETE) before a poll of its events sees it
    status, body = stacks.signal(
        ident, "foo_step2", {"unset_hook": "post-delete"}
    )
    assert status == 200, body

    wait_for(lambda: deleted(cloud, ident), what="the stack to be deleted")


def test_pause_outlives_its_engine(cloud: Cloud, stacks: Stacks):
    """The engine that parked the node stops; a new engine (another id,
    same database) takes the signal and finishes the stack."""
    ident = stacks.create(CHAIN, _hooks("foo_step2", "pre-create"))
    _paused(stacks, ident, "foo_step2", "pre-create", "CREATE")
    cloud.engine.stop()
    cloud.engine.wait()
    cloud.engine = EngineService(
        cloud.conf,
        str(uuid.uuid4()),
        transport=cloud.transport,
        backend=DatabaseBackend(cloud.conf, cloud.db),
        resume_interval=1.0,
    )
    cloud.engine.start()
    time.sleep(2.5)  # resume passes of the new engine leave it parked
    assert stacks.resource_state(ident, "foo_step2") == "INIT_COMPLETE"
    _clear(stacks, ident, "foo_step2", "pre-create")
    stacks.wait_status(ident, "CREATE_COMPLETE")
    assert stacks.resource_state(ident, "foo_step3") == "CREATE_COMPLETE"


def test_hook_poll_and_clear_with_openstack_client(
    cloud: Cloud, stacks: Stacks
):
    ident = stacks.create(CHAIN, _hooks("foo_step2", "pre-create"))
    _paused(stacks, ident, "foo_step2", "pre-create", "CREATE")
    name = ident.split("/")[0]
    polled = cloud.openstack(
        "stack", "hook", "poll", name, "-f", "value", "-c", "Resource Name",
        "-c", "Resource Status Reason",
    )  # fmt: skip
    assert polled.splitlines() == [
        "foo_step2 CREATE paused until Hook pre-create is cleared"
    ], polled
    cloud.openstack(
        "stack", "hook", "clear", "--pre-create", name, "foo_step2"
    )
    stacks.wait_status(ident, "CREATE_COMPLETE")


def test_nested_hook_clear_with_openstack_client(cloud: Cloud, stacks: Stacks):
    """``hook clear`` finds ``nested/foo_step2`` through the parent's
    resources (``stack hook poll --nested-depth`` needs nested events
    in the event list, which the API does not give yet)."""
    env = {
        "resource_registry": {
            "resources": {"nested": {"foo_step2": {"hooks": "pre-create"}}}
        }
    }
    template = {
        "heat_template_version": "2014-10-16",
        "resources": {"nested": {"type": "nested.yaml"}},
    }
    ident = stacks.create(
        template, env, files={"nested.yaml": yaml.safe_dump(CHAIN)}
    )
    child = stacks.nested(ident, "nested")
    _paused(stacks, child, "foo_step2", "pre-create", "CREATE")
    name = ident.split("/")[0]
    try:
        cloud.openstack(
            "stack", "hook", "clear", "--pre-create", name, "nested/foo_step2"
        )  # fmt: skip
        stacks.wait_event(child, "foo_step2", "Hook pre-create is cleared")
    finally:  # a paused child would keep the parent's node (and the
        # engine's shutdown) waiting
        stacks.signal(child, "foo_step2", {"unset_hook": "pre-create"})
    stacks.wait_status(ident, "CREATE_COMPLETE")
