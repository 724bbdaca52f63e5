"""Issue 30 (1): one stack-domain project per stack, however many of its
stack users start together, and a stack of them that deletes cleanly.

Each signal handle is a stack user: the first of them to start creates
the stack's project ``<owner project>-<stack id>`` in the stack domain.
They all start at once here (no dependencies between them), so every one
finds no project recorded on the stack; the one Keystone refuses with 409
takes the project the other made, and the stack keeps that one.
"""

from __future__ import annotations

from typing import Any

import pytest

from keel_heat_core.testing.keystone import KeystoneServer
from tests.functional.identity.harness import KeystoneCloud, wait_for

pytestmark = pytest.mark.keystone

HANDLES = ("native1", "native2", "cfn1", "cfn2")

#: the issue's smoke stack, with two handles of each kind
SMOKE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "native1": {"type": "OS::Heat::WaitConditionHandle"},
        "native2": {"type": "OS::Heat::WaitConditionHandle"},
        "cfn1": {"type": "AWS::CloudFormation::WaitConditionHandle"},
        "cfn2": {"type": "AWS::CloudFormation::WaitConditionHandle"},
        "group": {
            "type": "OS::Heat::ResourceGroup",
            "properties": {
                "count": 2,
                "resource_def": {"type": "OS::Heat::RandomString"},
            },
        },
    },
}


def _keystone_get(keystone: KeystoneServer, path: str) -> Any:
    resp = keystone.admin_session().get(
        f"{keystone.v3_url}{path}", raise_exc=False
    )
    return resp.status_code, resp.json() if resp.content else None


def _domain_projects(keystone: KeystoneServer, name: str) -> list[str]:
    status, body = _keystone_get(
        keystone,
        f"/projects?domain_id={keystone.stack_domain_id}&name={name}",
    )
    assert status == 200, body
    return [p["id"] for p in body["projects"]]


def _handle_user(
    cloud: KeystoneCloud, user: Any, stack_id: str, name: str
) -> str:
    status, body = cloud.request(
        user, "GET", f"{cloud.path(stack_id)}/resources/{name}"
    )
    assert status == 200, body
    assert body["resource"]["resource_status"] == "CREATE_COMPLETE", body
    return str(body["resource"]["physical_resource_id"])


def test_stack_users_starting_together_share_one_project(
    cloud: KeystoneCloud, keystone: KeystoneServer
) -> None:
    demo = keystone.demo
    stack_id = cloud.create(demo, "smoke", SMOKE)
    shown = cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))
    project_id = shown["stack_user_project_id"]
    name = f"{demo.project_id}-{stack_id}"[:64]
    assert _domain_projects(keystone, name) == [project_id]
    users = [_handle_user(cloud, demo, stack_id, h) for h in HANDLES]
    for user_id in users:
        status, body = _keystone_get(keystone, f"/users/{user_id}")
        assert status == 200, body
        assert body["user"]["default_project_id"] == project_id

    status, body = cloud.request(demo, "DELETE", cloud.path(stack_id))
    assert status == 204, body
    cloud.wait_deleted(demo, stack_id)
    for user_id in users:
        assert _keystone_get(keystone, f"/users/{user_id}")[0] == 404
    # the project goes once the stack shows DELETE_COMPLETE
    wait_for(
        lambda: _keystone_get(keystone, f"/projects/{project_id}")[0] == 404,
        30,
        "the stack's project to be deleted",
    )
    assert _domain_projects(keystone, name) == []
