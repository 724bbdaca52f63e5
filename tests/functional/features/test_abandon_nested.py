"""Abandon and adopt of a stack with a nested stack, through the native
API (Heat's ``test_abandon_adopt``)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core.db import stack as stack_repo
from tests.functional.features.client import Stacks, deleted
from tests.functional.software.harness import Cloud, wait_for

PARENT = """
heat_template_version: 2014-10-16
resources:
  parent_resource:
    type: OS::Heat::TestResource
    properties:
      value: parent_value
  nested:
    type: nested.yaml
outputs:
  parent_output:
    value: {get_attr: [parent_resource, output]}
  nested_output1:
    value: {get_attr: [nested, nested_output1]}
"""
NESTED = """
heat_template_version: 2014-10-16
resources:
  nested_resource1:
    type: OS::Heat::TestResource
    properties:
      value: nested_value_1
  nested_resource2:
    type: OS::Heat::TestResource
    properties:
      value: nested_value_2
outputs:
  nested_output1:
    value: {get_attr: [nested_resource1, output]}
"""


@pytest.fixture(scope="module")
def adopting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    options = {
        ("DEFAULT", "enable_stack_abandon"): True,
        ("DEFAULT", "enable_stack_adopt"): True,
    }
    with Cloud(tmp_path_factory.mktemp("abandon"), options=options) as cloud:
        yield cloud


def _abandon(cloud: Cloud, ident: str) -> dict[str, Any]:
    status, body = cloud.request("DELETE", f"/stacks/{ident}/abandon")
    assert status == 200, body
    return dict(body)


def _adopt(
    cloud: Cloud, data: dict[str, Any], files: dict[str, str] | None = None
) -> str:
    name = f"adopted-{uuid.uuid4().hex[:8]}"
    status, body = cloud.request(
        "POST",
        "/stacks",
        {
            "stack_name": name,
            "adopt_stack_data": json.dumps(data),
            "files": files or {},
            "disable_rollback": True,
        },
    )
    assert status == 201, body
    return f"{name}/{body['stack']['id']}"


def _physical_ids(cloud: Cloud, ident: str) -> dict[str, str]:
    status, body = cloud.request("GET", f"/stacks/{ident}/resources")
    assert status == 200, body
    return {
        r["resource_name"]: r["physical_resource_id"]
        for r in body["resources"]
    }


def _live_children(cloud: Cloud, owner_id: str) -> list[Any]:
    return list(stack_repo.get_all_by_owner_id(cloud.db, owner_id))


def test_abandon_gives_the_nested_stack_and_adopt_takes_it_back(
    adopting: Cloud,
):
    stacks = Stacks(adopting)
    ident = stacks.create(PARENT, files={"nested.yaml": NESTED}, prefix="ab")
    shown = stacks.wait_status(ident, "CREATE_COMPLETE")
    nested = stacks.nested(ident, "nested")
    nested_ids = _physical_ids(adopting, nested)

    data = _abandon(adopting, ident)
    entry = data["resources"]["nested"]
    assert entry["template"]["resources"].keys() == {
        "nested_resource1",
        "nested_resource2",
    }
    assert {
        name: res["resource_id"] for name, res in entry["resources"].items()
    } == nested_ids
    adopting.wait_deleted(ident)
    # the nested stack went with its parent: nothing left behind
    wait_for(
        lambda: not _live_children(adopting, shown["id"]),
        what="the nested stack abandoned",
    )
    assert deleted(adopting, nested)

    # the nested stack's data alone makes a stack of the same resources
    alone = _adopt(
        adopting,
        {
            "template": entry["template"],
            "resources": entry["resources"],
            "environment": {"parameters": {}},
        },
    )
    stacks.wait_status(alone, "ADOPT_COMPLETE")
    assert _physical_ids(adopting, alone) == nested_ids

    # and the whole data, a parent whose nested stack has them again
    whole = _adopt(adopting, data, files={"nested.yaml": NESTED})
    readopted = stacks.wait_status(whole, "ADOPT_COMPLETE")
    outputs = {
        o["output_key"]: o["output_value"] for o in readopted["outputs"]
    }
    assert outputs == {
        "parent_output": "parent_value",
        "nested_output1": "nested_value_1",
    }
    child = stacks.nested(whole, "nested")
    assert _physical_ids(adopting, child) == nested_ids
