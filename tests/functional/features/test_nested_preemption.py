"""A new update of a root stack pre-empts the update of its nested stacks.

As in heat_integrationtests' ``test_nested_preemption``: the root's
update reaches a nested stack whose resource waits a long time in its
update; a second update of the root must not wait for that one: it
cancels the nested stack's traversal (the resource's ``handle_preempt``)
and completes.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.functional.features.client import deleted
from tests.functional.software.harness import Cloud, wait_for


def _template(resources: dict[str, Any], output: Any = None) -> dict[str, Any]:
    tmpl: dict[str, Any] = {
        "heat_template_version": "queens",
        "parameters": {"input": {"type": "string"}},
        "resources": resources,
    }
    if output is not None:
        tmpl["outputs"] = {"delay_stack": {"value": output}}
    return tmpl


ROOT = _template(
    {
        "nested_stack": {
            "type": "preempt.yaml",
            "properties": {"input": {"get_param": "input"}},
        }
    },
    {"get_attr": ["nested_stack", "delay_stack"]},
)
NESTED = _template(
    {
        "delay_stack": {
            "type": "delay.yaml",
            "properties": {"input": {"get_param": "input"}},
        }
    },
    {"get_resource": "delay_stack"},
)
DELAY = _template(
    {
        "delay_resource": {
            "type": "OS::Heat::TestResource",
            "properties": {
                "action_wait_secs": {"update": 6000},
                "value": {"get_param": "input"},
            },
        }
    }
)
FILES = {"preempt.yaml": json.dumps(NESTED), "delay.yaml": json.dumps(DELAY)}


def _update(cloud: Cloud, ident: str, files: dict[str, str], value: str):
    status, body = cloud.request(
        "PUT",
        f"/stacks/{ident}",
        {
            "template": ROOT,
            "files": files,
            "parameters": {"input": value},
            "disable_rollback": True,
        },
    )
    assert status == 202, body


def _resource(cloud: Cloud, ident: str, name: str) -> dict[str, Any]:
    status, body = cloud.request("GET", f"/stacks/{ident}/resources/{name}")
    assert status == 200, body
    return dict(body["resource"])


def test_new_root_update_preempts_the_nested_update(cloud: Cloud):
    name = f"preempt-{uuid.uuid4().hex[:8]}"
    root_id = cloud.create(
        name,
        ROOT,
        files=FILES,
        parameters={"input": "foo"},
        disable_rollback=True,
    )
    root = f"{name}/{root_id}"
    cloud.wait_state(root, "CREATE_COMPLETE", strict=True)
    # the middle stack's output: the innermost stack's identifier (ARN)
    delay = cloud.stack(cloud.outputs(root)["delay_stack"])
    delay_ident = f"{delay['stack_name']}/{delay['id']}"
    middle_id = _resource(cloud, root, "nested_stack")["physical_resource_id"]

    # the first update stops in the innermost stack for 6000 s
    _update(cloud, root, FILES, "bar")
    wait_for(
        lambda: (
            _resource(cloud, delay_ident, "delay_resource")["resource_status"]
            == "UPDATE_IN_PROGRESS"
        ),
        what="delay_resource UPDATE_IN_PROGRESS",
    )

    # the second one empties the middle stack: it pre-empts the middle
    # stack's update, which deletes the innermost stack (cancelling its
    # resource's wait), and completes
    _update(cloud, root, {"preempt.yaml": json.dumps(_template({}))}, "baz")
    shown = cloud.wait_state(
        root, ("UPDATE_COMPLETE", "UPDATE_FAILED"), timeout=60
    )
    assert shown["stack_status"] == "UPDATE_COMPLETE", shown
    assert shown["parameters"]["input"] == "baz"

    # the pre-empted (failed) nested stack resource is updated in place
    nested = _resource(cloud, root, "nested_stack")
    assert nested["resource_status"] == "UPDATE_COMPLETE", nested
    assert nested["physical_resource_id"] == middle_id
    middle = cloud.stack(nested["physical_resource_id"])
    assert middle["stack_status"] == "UPDATE_COMPLETE", middle
    status, body = cloud.request(
        "GET", f"/stacks/{nested['physical_resource_id']}/resources"
    )
    assert status == 200, body
    assert body["resources"] == []
    # the innermost stack went with its resource
    assert deleted(cloud, delay_ident)
