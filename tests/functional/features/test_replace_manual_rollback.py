"""Updating back to the old template after a failed replacement.

As in heat_integrationtests' ``test_stack_update_replace_manual_rollback``:
an update that replaces a resource fails while creating the replacement
(rollback disabled); the user then updates back to the template the stack
was created with. The original resource matches that template again, so
it is kept: the same physical resource, shown, listed and current.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from tests.functional.software.harness import Cloud

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "pike",
    "resources": {
        "test1": {
            "type": "OS::Heat::TestResource",
            "properties": {
                "value": "Test1",
                "fail": False,
                "update_replace": False,
                "wait_secs": 0,
                "update_replace_value": "1",
            },
        }
    },
}


def _with(**props: Any) -> dict[str, Any]:
    tmpl = copy.deepcopy(TEMPLATE)
    tmpl["resources"]["test1"]["properties"].update(props)
    return tmpl


def _update(cloud: Cloud, ident: str, template: dict[str, Any]) -> None:
    status, body = cloud.request(
        "PUT",
        f"/stacks/{ident}",
        {"template": template, "disable_rollback": True},
    )
    assert status == 202, body


def _shown(cloud: Cloud, ident: str) -> dict[str, Any]:
    status, body = cloud.request("GET", f"/stacks/{ident}/resources/test1")
    assert status == 200, body
    return dict(body["resource"])


def test_update_back_after_failed_replacement_keeps_original(cloud: Cloud):
    name = f"manual-rollback-{uuid.uuid4().hex[:8]}"
    ident = f"{name}/{cloud.create(name, TEMPLATE, disable_rollback=True)}"
    cloud.wait_state(ident, "CREATE_COMPLETE", strict=True)
    original = _shown(cloud, ident)["physical_resource_id"]
    assert original

    # a new update_replace_value replaces test1; the replacement fails
    _update(cloud, ident, _with(update_replace_value="2", fail=True))
    failed = cloud.wait_state(ident, ("UPDATE_FAILED", "UPDATE_COMPLETE"))
    assert failed["stack_status"] == "UPDATE_FAILED", failed

    # back to the template the stack was created with
    _update(cloud, ident, TEMPLATE)
    done = cloud.wait_state(ident, ("UPDATE_COMPLETE", "UPDATE_FAILED"))
    assert done["stack_status"] == "UPDATE_COMPLETE", done

    shown = _shown(cloud, ident)
    assert shown["physical_resource_id"] == original
    assert shown["resource_status"] in ("CREATE_COMPLETE", "UPDATE_COMPLETE")
    status, body = cloud.request("GET", f"/stacks/{ident}/resources")
    assert status == 200, body
    assert [
        (r["resource_name"], r["physical_resource_id"])
        for r in body["resources"]
    ] == [("test1", original)]
    assert shown["attributes"]["output"] == "Test1"
