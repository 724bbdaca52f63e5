"""``cloudformation:*`` rules, checked against the caller's project.

Heat checks them with an empty target, which denies every action to
everyone under the default rules; here the project personas act as in
the native API.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_api.cfn.router import ACTIONS
from tests.unit.api_cfn.harness import PROJECT, CfnHarness

READ = {
    "ListStacks",
    "DescribeStacks",
    "DescribeStackEvents",
    "ValidateTemplate",
    "GetTemplate",
    "EstimateTemplateCost",
    "DescribeStackResources",
    "ListStackResources",
    "DescribeStackResource",
}
WRITE = {"CreateStack", "DeleteStack", "UpdateStack", "CancelUpdateStack"}


@pytest.fixture(
    scope="module",
    params=[
        ("member", "reader"),
        ("reader",),
        ("heat_stack_user",),
        ("admin", "member", "reader"),
        (),
    ],
    ids=lambda roles: "+".join(roles) or "none",
)
def harness(request: Any) -> Iterator[tuple[tuple[str, ...], CfnHarness]]:
    roles = request.param
    cfn = CfnHarness({("api", "noauth_roles"): list(roles)})
    try:
        yield roles, cfn
    finally:
        cfn.stop()


def _allowed(roles: tuple[str, ...], action: str) -> bool:
    if "member" in roles:
        return True
    if "reader" in roles:
        return action in READ
    if "heat_stack_user" in roles:
        return action == "DescribeStackResource"
    return False


def test_the_13_actions_are_guarded() -> None:
    assert set(ACTIONS) == READ | WRITE


@pytest.mark.parametrize("action", sorted(READ | WRITE))
def test_default_rules(
    harness: tuple[tuple[str, ...], CfnHarness], action: str
) -> None:
    roles, cfn = harness
    cfn.reset()
    cfn.engine.add_stack(PROJECT, "foo")
    resp = cfn.action(action, StackName="nope-" + action)
    if _allowed(roles, action):
        assert resp.status_int != 403, resp.text
    else:
        assert resp.status == "403 AccessDenied"
        assert resp.text == (
            "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied"
            "</Code><Message>User is not authorized to perform action:"
            f"Action {action} not allowed for user</Message></Error>"
            "</ErrorResponse>"
        )
        assert not cfn.engine.calls


class _BrokenEnforcer:
    def check_is_admin(self, context: Any) -> bool:
        return False

    def enforce(self, context: Any, rule: str, target: Any) -> None:
        raise RuntimeError("policy file unreadable")


def test_failing_policy_check_is_internal_failure() -> None:
    cfn = CfnHarness(enforcer=_BrokenEnforcer())
    try:
        resp = cfn.action("ListStacks")
    finally:
        cfn.stop()
    assert resp.status == "500 InternalFailure"
    assert (
        "<Message>The request processing has failed due to an internal "
        "error:Error authorizing action ListStacks</Message>" in resp.text
    )
