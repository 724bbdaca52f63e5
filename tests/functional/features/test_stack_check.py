"""Stack check runs each type's own check (issue 30, 14).

Heat's ``TemplateResourceCheckTest.test_check_fail``: a TestResource
whose create failed has no physical resource, so its check fails; the
resources that depend on it are not checked, and the stack ends
CHECK_FAILED. A TestResource that was created checks fine.
"""

from __future__ import annotations

import pytest
import yaml

from tests.functional.features.client import Stacks
from tests.functional.software.harness import Cloud

FAILED = yaml.safe_load(
    """
HeatTemplateFormatVersion: '2012-12-12'
Resources:
  check_succeed:
    Type: OS::Heat::TestResource
  check_failed:
    Type: OS::Heat::TestResource
    Properties:
      fail: true
      action_wait_secs:
        create: 1
  check_deps_failed:
    Type: OS::Heat::TestResource
    DependsOn: check_failed
  check_deps_deps_failed:
    Type: OS::Heat::TestResource
    DependsOn: check_deps_failed
"""
)

PLAIN = yaml.safe_load(
    """
heat_template_version: '2016-10-14'
resources:
  test1:
    type: OS::Heat::TestResource
"""
)


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _check(cloud: Cloud, ident: str) -> None:
    status, body = cloud.request(
        "POST", f"/stacks/{ident}/actions", {"check": None}
    )
    assert status == 200, body


def test_a_failing_check_fails_the_stack_check(
    cloud: Cloud, stacks: Stacks
) -> None:
    ident = stacks.create(FAILED, prefix="check")
    stacks.wait_status(ident, "CREATE_FAILED")
    _check(cloud, ident)
    shown = stacks.wait_status(ident, "CHECK_FAILED")
    assert shown["stack_status_reason"] == (
        "Resource CHECK failed: check_failed: "
        "Exception: resources.check_failed: Resource not created"
    )
    failed = stacks.resource(ident, "check_failed")
    assert failed["resource_status"] == "CHECK_FAILED"
    assert failed["resource_status_reason"] == (
        "Exception: resources.check_failed: Resource not created"
    )
    assert stacks.resource_state(ident, "check_succeed") == "CHECK_COMPLETE"
    for name in ("check_deps_failed", "check_deps_deps_failed"):
        assert stacks.resource_state(ident, name) == "INIT_COMPLETE"


def test_a_created_test_resource_checks_fine(
    cloud: Cloud, stacks: Stacks
) -> None:
    ident = stacks.create(PLAIN, prefix="check")
    stacks.wait_status(ident, "CREATE_COMPLETE")
    _check(cloud, ident)
    stacks.wait_status(ident, "CHECK_COMPLETE")
    res = stacks.resource(ident, "test1")
    assert (res["resource_status"], res["resource_status_reason"]) == (
        "CHECK_COMPLETE",
        "state changed",
    )
