"""How a nested resource's failure reads in its parents, through the
native API and the engine (Heat's functional
``TemplateResourceErrorMessageTest``): the child's kind of error, its
full path from the root and its message, with no ``ResourceFailure:``
layer added by each parent.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.features.client import Stacks
from tests.functional.software.harness import Cloud

FAIL = """
heat_template_version: "2013-05-23"
resources:
  oops:
    type: OS::Heat::TestResource
    properties:
      fail: true
"""
CFN_PARENT = """
HeatTemplateFormatVersion: '2012-12-12'
Resources:
  victim:
    Type: fail.yaml
"""
TWO_LEVELS = """
heat_template_version: "2013-05-23"
resources:
  outer:
    type: middle.yaml
"""
MIDDLE = """
heat_template_version: "2013-05-23"
resources:
  inner:
    type: fail.yaml
"""
GROUP = """
heat_template_version: "2013-05-23"
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 1
      resource_def:
        type: OS::Heat::TestResource
        properties:
          fail: true
"""
MESSAGE = "Test Resource failed oops"


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _failed(stacks: Stacks, template: Any, **files: str) -> dict[str, Any]:
    ident = stacks.create(template, files=files)
    return stacks.wait_status(ident, "CREATE_FAILED")


def test_template_resource_failure_reaches_the_parent(stacks: Stacks) -> None:
    shown = _failed(stacks, CFN_PARENT, **{"fail.yaml": FAIL})
    assert shown["stack_status_reason"] == (
        "Resource CREATE failed: ValueError: "
        f"resources.victim.resources.oops: {MESSAGE}"
    )
    ident = f"{shown['stack_name']}/{shown['id']}"
    victim = stacks.resource(ident, "victim")
    assert victim["resource_status"] == "CREATE_FAILED"
    assert victim["resource_status_reason"] == (
        f"ValueError: resources.victim.resources.oops: {MESSAGE}"
    )
    child = stacks.show(stacks.nested(ident, "victim"))
    assert child["stack_status_reason"] == (
        f"Resource CREATE failed: ValueError: resources.oops: {MESSAGE}"
    )


def test_failure_two_levels_down(stacks: Stacks) -> None:
    shown = _failed(
        stacks, TWO_LEVELS, **{"middle.yaml": MIDDLE, "fail.yaml": FAIL}
    )
    assert shown["stack_status_reason"] == (
        "Resource CREATE failed: ValueError: "
        f"resources.outer.resources.inner.resources.oops: {MESSAGE}"
    )


def test_group_member_failure_reaches_the_parent(stacks: Stacks) -> None:
    shown = _failed(stacks, GROUP)
    # a member's name is a number: Heat writes it as an index
    assert shown["stack_status_reason"] == (
        "Resource CREATE failed: ValueError: "
        "resources.group.resources[0]: Test Resource failed 0"
    )
