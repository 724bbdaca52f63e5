"""``restricted_actions`` of the environment's resource registry through
the native API and the engine (Heat's functional
``test_update_restricted``): an update or replacement that is restricted
fails the stack update with Heat's text, records an ``UPDATE FAILED``
event on the resource and leaves the resource as it was.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.functional.features.client import Stacks
from tests.functional.software.harness import Cloud

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2013-05-23",
    "resources": {
        "bar": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "1234", "update_replace": False},
        }
    },
}
BOTH = {
    "resource_registry": {
        "resources": {"bar": {"restricted_actions": ["update", "replace"]}}
    }
}
REPLACE_ONLY = {
    "resource_registry": {
        "resources": {"*ar": {"restricted_actions": "replace"}}
    }
}
UPDATE_RESTRICTED = "update is restricted for resource."
REPLACE_RESTRICTED = "replace is restricted for resource."


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _changed(**props: Any) -> dict[str, Any]:
    template = copy.deepcopy(TEMPLATE)
    template["resources"]["bar"]["properties"].update(props)
    return template


def _reasons(stacks: Stacks, ident: str, reason: str) -> list[Any]:
    return [
        e["resource_status"]
        for e in stacks.events(ident, "bar")
        if e["resource_status_reason"] == reason
    ]


def _update_fails(
    stacks: Stacks, ident: str, template: Any, env: Any, action: str
) -> None:
    physical_id = stacks.resource(ident, "bar")["physical_resource_id"]
    stacks.update(ident, template, env)
    shown = stacks.wait_status(ident, "UPDATE_FAILED")
    assert shown["stack_status_reason"] == (
        "Resource UPDATE failed: ResourceActionRestricted: "
        f"resources.bar: {action} is restricted for resource."
    )
    # the resource keeps the state it had, and is not replaced
    shown = stacks.resource(ident, "bar")
    assert shown["resource_status"] == "CREATE_COMPLETE"
    assert shown["physical_resource_id"] == physical_id


def test_restricted_update_fails_and_replace_only_lets_it_pass(
    stacks: Stacks,
) -> None:
    ident = stacks.create(TEMPLATE)
    stacks.wait_status(ident, "CREATE_COMPLETE")
    new = _changed(value="4567")

    _update_fails(stacks, ident, new, BOTH, "update")
    assert stacks.resource(ident, "bar")["attributes"]["output"] == "1234"
    assert _reasons(stacks, ident, UPDATE_RESTRICTED) == ["UPDATE_FAILED"]

    # only replace restricted: the in-place update goes ahead
    stacks.update(ident, new, REPLACE_ONLY)
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    assert stacks.resource_state(ident, "bar") == "UPDATE_COMPLETE"
    assert stacks.resource(ident, "bar")["attributes"]["output"] == "4567"
    assert len(_reasons(stacks, ident, UPDATE_RESTRICTED)) == 1
    assert _reasons(stacks, ident, REPLACE_RESTRICTED) == []


@pytest.mark.parametrize(
    "template",
    [
        pytest.param(_changed(value="4567", update_replace=True), id="prop"),
        pytest.param(
            {
                **TEMPLATE,
                "resources": {"bar": {"type": "OS::Heat::None"}},
            },
            id="type",
        ),
    ],
)
def test_restricted_replace_fails(stacks: Stacks, template: Any) -> None:
    ident = stacks.create(TEMPLATE)
    stacks.wait_status(ident, "CREATE_COMPLETE")

    _update_fails(stacks, ident, template, BOTH, "replace")
    assert len(_reasons(stacks, ident, REPLACE_RESTRICTED)) == 1
    _update_fails(stacks, ident, template, REPLACE_ONLY, "replace")
    assert _reasons(stacks, ident, REPLACE_RESTRICTED) == [
        "UPDATE_FAILED",
        "UPDATE_FAILED",
    ]
    assert _reasons(stacks, ident, UPDATE_RESTRICTED) == []
    # the resource was never replaced: one row, the original
    status, body = stacks.cloud.request("GET", f"/stacks/{ident}/resources")
    assert status == 200, body
    assert [r["resource_name"] for r in body["resources"]] == ["bar"]


def test_no_change_is_not_refused(stacks: Stacks) -> None:
    ident = stacks.create(TEMPLATE)
    stacks.wait_status(ident, "CREATE_COMPLETE")
    stacks.update(ident, TEMPLATE, BOTH)
    stacks.wait_status(ident, "UPDATE_COMPLETE")
    assert stacks.resource_state(ident, "bar") == "CREATE_COMPLETE"
    assert _reasons(stacks, ident, UPDATE_RESTRICTED) == []
