"""``external_id`` through the native API and the engine (heat-tempest-plugin
``test_external_ref``, plus the events and states a user sees)."""

from __future__ import annotations

import pytest
import yaml

from tests.functional.features.client import Stacks, deleted
from tests.functional.software.harness import Cloud, wait_for

PLAIN = yaml.safe_load(
    """
heat_template_version: '2016-10-14'
resources:
  test1:
    type: OS::Heat::TestResource
"""
)
EXTERNAL = yaml.safe_load(
    """
heat_template_version: '2016-10-14'
resources:
  test1:
    type: OS::Heat::TestResource
    external_id: foobar
outputs:
  str:
    value: {get_resource: test1}
"""
)


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _reasons(stacks: Stacks, ident: str) -> list[tuple[str, str]]:
    return [
        (e["resource_status"], e["resource_status_reason"])
        for e in stacks.events(ident, "test1")
    ]


def test_create_adopts_the_external_resource(cloud: Cloud, stacks: Stacks):
    ident = stacks.create(EXTERNAL, prefix="ext")
    shown = stacks.wait_status(ident, "CREATE_COMPLETE")
    assert shown["outputs"] == [
        {
            "description": "No description given",
            "output_key": "str",
            "output_value": "foobar",
        }
    ]
    res = stacks.resource(ident, "test1")
    assert res["physical_resource_id"] == "foobar"
    assert res["resource_status"] == "CHECK_COMPLETE"
    assert _reasons(stacks, ident) == [
        ("ADOPT_IN_PROGRESS", "state changed"),
        ("ADOPT_COMPLETE", "state changed"),
        # the type's own check (as Heat runs it after an adopt)
        ("CHECK_IN_PROGRESS", "state changed"),
        ("CHECK_COMPLETE", "state changed"),
    ]
    # an update that keeps the external_id leaves the resource alone
    stacks.update(ident, EXTERNAL)
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    assert stacks.resource_state(ident, "test1") == "CHECK_COMPLETE"
    assert len(_reasons(stacks, ident)) == 4
    stacks.delete(ident)
    wait_for(
        lambda: deleted(cloud, ident),
        what="the stack to be deleted",
    )


def test_adding_an_external_id_fails_the_update(cloud: Cloud, stacks: Stacks):
    ident = stacks.create(PLAIN, prefix="ext")
    stacks.wait_status(ident, "CREATE_COMPLETE")
    before = stacks.resource(ident, "test1")["physical_resource_id"]
    stacks.update(ident, EXTERNAL)
    shown = stacks.wait_status(ident, "UPDATE_FAILED")
    assert shown["stack_status_reason"] == (
        "Resource UPDATE failed: NotSupported: resources.test1: Update to "
        "property external_id of test1 (OS::Heat::TestResource) is not "
        "supported."
    )
    res = stacks.resource(ident, "test1")
    assert res["resource_status"] == "CREATE_COMPLETE"
    assert res["physical_resource_id"] == before
