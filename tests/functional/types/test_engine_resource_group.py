"""``OS::Heat::ResourceGroup`` through the engine: HTTP → API → RPC →
engine → SQLite, read back as a user of the native API sees it.

Heat's behaviour (``heat/engine/resources/openstack/heat/
resource_group.py``): members ``0``..``N-1`` in a child stack,
``index_var`` replaced in member properties, shrinking removes the
highest indexes or those ``removal_policies`` name (never reused),
``rolling_update`` replaces members in batches, ``batch_create`` creates
them in batches, and a member changes in place or is replaced as its own
type decides.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.functional.types.engine_api import Stacks, template
from tests.functional.types.harness import Cloud

MEMBER = {
    "type": "OS::Heat::TestResource",
    "properties": {"value": "v-%index%"},
}


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _group(
    count: int,
    member: dict[str, Any] | None = None,
    outputs: dict[str, Any] | None = None,
    update_policy: dict[str, Any] | None = None,
    **props: Any,
) -> dict[str, Any]:
    group: dict[str, Any] = {
        "type": "OS::Heat::ResourceGroup",
        "properties": {
            "count": count,
            "resource_def": copy.deepcopy(member or MEMBER),
            **props,
        },
    }
    if update_policy:
        group["update_policy"] = update_policy
    return template({"g": group}, outputs)


def _members(stacks: Stacks, ident: str) -> dict[str, dict[str, Any]]:
    """The group's members, from the resource list with nested_depth."""
    return {
        r["resource_name"]: r
        for r in stacks.resources(ident, nested_depth=1)
        if r.get("parent_resource") == "g"
    }


def _child_events(stacks: Stacks, ident: str) -> list[dict[str, Any]]:
    return stacks.events(stacks.nested(ident, "g"))


def _position(
    events: list[dict[str, Any]], name: str, state: str
) -> list[int]:
    return [
        i
        for i, e in enumerate(events)
        if e["resource_name"] == name and e["resource_status"] == state
    ]


def _stack_updates(events: list[dict[str, Any]], stack_name: str) -> int:
    return sum(
        1
        for e in events
        if e["resource_name"] == stack_name
        and e["resource_status_reason"]
        == "Stack UPDATE completed successfully"
    )


OUTPUTS = {
    "refs": {"get_attr": ["g", "refs"]},
    "refs_map": {"get_attr": ["g", "refs_map"]},
    "values": {"get_attr": ["g", "output"]},
    "ref_1": {"get_attr": ["g", "resource.1"]},
    "removed": {"get_attr": ["g", "removed_rsrc_list"]},
}


def test_count_grows_and_shrinks(stacks: Stacks) -> None:
    ident = stacks.create_complete(_group(2, outputs=OUTPUTS))
    group = stacks.resource(ident, "g")
    assert group["resource_status"] == "CREATE_COMPLETE"
    members = _members(stacks, ident)
    assert sorted(members) == ["0", "1"]
    assert {m["resource_type"] for m in members.values()} == {
        "OS::Heat::TestResource"
    }
    assert {m["resource_status"] for m in members.values()} == {
        "CREATE_COMPLETE"
    }
    physical = {n: m["physical_resource_id"] for n, m in members.items()}
    assert stacks.output(ident, "refs") == [physical["0"], physical["1"]]
    assert stacks.output(ident, "refs_map") == physical
    assert stacks.output(ident, "ref_1") == physical["1"]
    assert stacks.output(ident, "values") == ["v-0", "v-1"]
    assert stacks.output(ident, "removed") == []
    # the child stack belongs to the group
    child = stacks.show(stacks.nested(ident, "g"))
    assert child["parent"] == ident.split("/")[1]
    assert child["stack_status"] == "CREATE_COMPLETE"

    stacks.update_complete(ident, _group(4, outputs=OUTPUTS))
    assert stacks.resource_state(ident, "g") == "UPDATE_COMPLETE"
    grown = _members(stacks, ident)
    assert sorted(grown) == ["0", "1", "2", "3"]
    # growing leaves the existing members alone
    for name in ("0", "1"):
        assert grown[name]["physical_resource_id"] == physical[name]
        assert grown[name]["resource_status"] == "CREATE_COMPLETE"
    assert stacks.output(ident, "values") == ["v-0", "v-1", "v-2", "v-3"]
    assert len(stacks.output(ident, "refs")) == 4

    stacks.update_complete(ident, _group(1, outputs=OUTPUTS))
    shrunk = _members(stacks, ident)
    assert sorted(shrunk) == ["0"]
    assert shrunk["0"]["physical_resource_id"] == physical["0"]
    assert stacks.output(ident, "refs") == [physical["0"]]
    assert stacks.output(ident, "values") == ["v-0"]
    # highest indexes removed, without removal_policies nothing is
    # remembered as removed
    assert stacks.output(ident, "removed") == []

    child_ident = stacks.nested(ident, "g")
    stacks.delete_complete(ident)
    # the group's stack is deleted with its parent (shown by id as Heat
    # shows a deleted stack)
    status, body = stacks.cloud.request("GET", f"/stacks/{child_ident}")
    assert status == 404 or body["stack"]["stack_status"] == (
        "DELETE_COMPLETE"
    ), body


def test_attributes_and_member_attribute(stacks: Stacks) -> None:
    outputs = {
        "by_member": {"get_attr": ["g", "attributes", "output"]},
        "member_1": {"get_attr": ["g", "resource.1", "output"]},
    }
    ident = stacks.create_complete(_group(2, outputs=outputs))
    assert stacks.output(ident, "by_member") == {"0": "v-0", "1": "v-1"}
    assert stacks.output(ident, "member_1") == "v-1"


def test_removal_policies_names_never_reused(stacks: Stacks) -> None:
    ident = stacks.create_complete(_group(3, outputs=OUTPUTS))
    before = {
        n: m["physical_resource_id"]
        for n, m in _members(stacks, ident).items()
    }
    policies = [{"resource_list": ["1"]}]
    stacks.update_complete(
        ident, _group(2, outputs=OUTPUTS, removal_policies=policies)
    )
    members = _members(stacks, ident)
    assert sorted(members) == ["0", "2"]
    assert members["2"]["physical_resource_id"] == before["2"]
    assert stacks.output(ident, "removed") == ["1"]
    assert stacks.output(ident, "values") == ["v-0", "v-2"]
    assert sorted(stacks.output(ident, "refs_map")) == ["0", "2"]

    # growing again takes a new index: "1" stays removed
    stacks.update_complete(
        ident, _group(3, outputs=OUTPUTS, removal_policies=policies)
    )
    assert sorted(_members(stacks, ident)) == ["0", "2", "3"]
    assert stacks.output(ident, "values") == ["v-0", "v-2", "v-3"]

    # a member named by its reference id is removed too
    ref_of_0 = stacks.output(ident, "refs_map")["0"]
    stacks.update_complete(
        ident,
        _group(
            2,
            outputs=OUTPUTS,
            removal_policies=[{"resource_list": ["1", ref_of_0]}],
        ),
    )
    assert sorted(_members(stacks, ident)) == ["2", "3"]
    assert stacks.output(ident, "removed") == ["0", "1"]
    stacks.delete_complete(ident)


def test_index_var_default_and_custom(stacks: Stacks) -> None:
    custom = {
        "type": "OS::Heat::Value",
        "properties": {
            "value": {"name": "m__n__", "kept": "%index%", "list": ["__n__"]}
        },
    }
    tmpl = template(
        {
            "default": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "resource_def": {
                        "type": "OS::Heat::Value",
                        "properties": {"value": "d-%index%"},
                    },
                },
            },
            "custom": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": 2,
                    "index_var": "__n__",
                    "resource_def": custom,
                },
            },
        },
        {
            "default": {"get_attr": ["default", "value"]},
            "custom": {"get_attr": ["custom", "value"]},
        },
    )
    ident = stacks.create_complete(tmpl)
    assert stacks.output(ident, "default") == ["d-0", "d-1"]
    assert stacks.output(ident, "custom") == [
        {"name": "m0", "kept": "%index%", "list": ["0"]},
        {"name": "m1", "kept": "%index%", "list": ["1"]},
    ]


def test_index_var_too_short_is_refused(stacks: Stacks) -> None:
    status, body = stacks.cloud.request(
        "POST",
        "/stacks",
        {
            "stack_name": "short-index-var",
            "template": _group(1, index_var="%i"),
        },
    )
    assert status == 400, body
    assert body["error"]["message"] == (
        "Property error: : resources.g.properties.index_var: : length (2) "
        "is out of range (min: 3, max: None)"
    )


def test_member_update_in_place_and_replace(stacks: Stacks) -> None:
    ident = stacks.create_complete(_group(2, outputs=OUTPUTS))
    before = {
        n: m["physical_resource_id"]
        for n, m in _members(stacks, ident).items()
    }
    # value is update_allowed on TestResource: members change in place
    in_place = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "w-%index%"},
    }
    stacks.update_complete(ident, _group(2, member=in_place, outputs=OUTPUTS))
    members = _members(stacks, ident)
    assert {n: m["physical_resource_id"] for n, m in members.items()} == (
        before
    )
    assert {m["resource_status"] for m in members.values()} == {
        "UPDATE_COMPLETE"
    }
    assert stacks.output(ident, "values") == ["w-0", "w-1"]
    events = _child_events(stacks, ident)
    child_name = stacks.nested(ident, "g").split("/")[0]
    # without rolling_update, one update of the child stack does it all
    assert _stack_updates(events, child_name) == 1

    # update_replace_value is not update_allowed: members are replaced
    replaced = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "w-%index%", "update_replace_value": "x"},
    }
    stacks.update_complete(ident, _group(2, member=replaced, outputs=OUTPUTS))
    members = _members(stacks, ident)
    assert sorted(members) == ["0", "1"]
    for name, member in members.items():
        assert member["physical_resource_id"] != before[name]
        assert member["resource_status"] == "CREATE_COMPLETE"
    assert stacks.output(ident, "values") == ["w-0", "w-1"]
    assert stacks.resource_state(ident, "g") == "UPDATE_COMPLETE"
    stacks.delete_complete(ident)


def test_rolling_update_in_batches(stacks: Stacks) -> None:
    policy = {"rolling_update": {"max_batch_size": 2, "pause_time": 0}}
    ident = stacks.create_complete(
        _group(4, outputs=OUTPUTS, update_policy=policy)
    )
    before = {
        n: m["physical_resource_id"]
        for n, m in _members(stacks, ident).items()
    }
    created = {
        n: m["updated_time"] for n, m in _members(stacks, ident).items()
    }
    changed = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": "r-%index%"},
    }
    stacks.update_complete(
        ident, _group(4, member=changed, outputs=OUTPUTS, update_policy=policy)
    )
    members = _members(stacks, ident)
    assert {n: m["physical_resource_id"] for n, m in members.items()} == (
        before
    )
    for name, member in members.items():
        assert member["resource_status"] == "UPDATE_COMPLETE"
        assert member["updated_time"] >= created[name]
    assert stacks.output(ident, "values") == ["r-0", "r-1", "r-2", "r-3"]

    events = _child_events(stacks, ident)
    child_name = stacks.nested(ident, "g").split("/")[0]
    # two batches of two: two updates of the child stack
    assert _stack_updates(events, child_name) == 2
    # Heat replaces the highest indexes first: 3 and 2 finish before 1
    # and 0 start
    first_done = max(
        _position(events, n, "UPDATE_COMPLETE")[0] for n in ("2", "3")
    )
    second_start = min(
        _position(events, n, "UPDATE_IN_PROGRESS")[0] for n in ("0", "1")
    )
    assert first_done < second_start
    stacks.delete_complete(ident)


def test_batch_create(stacks: Stacks) -> None:
    policy = {"batch_create": {"max_batch_size": 1, "pause_time": 0}}
    ident = stacks.create_complete(
        _group(3, outputs=OUTPUTS, update_policy=policy)
    )
    assert sorted(_members(stacks, ident)) == ["0", "1", "2"]
    assert stacks.output(ident, "values") == ["v-0", "v-1", "v-2"]
    events = _child_events(stacks, ident)
    # one member at a time, in index order
    for earlier, later in (("0", "1"), ("1", "2")):
        done = _position(events, earlier, "CREATE_COMPLETE")[0]
        start = _position(events, later, "CREATE_IN_PROGRESS")[0]
        assert done < start, (earlier, later)
    stacks.delete_complete(ident)


def test_pause_time_longer_than_an_hour_is_refused(stacks: Stacks) -> None:
    policy = {"rolling_update": {"pause_time": 3601}}
    status, body = stacks.cloud.request(
        "POST",
        "/stacks",
        {
            "stack_name": "long-pause",
            "template": _group(1, update_policy=policy),
        },
    )
    assert status == 400, body
    assert body["error"]["message"] == (
        "Maximum pause_time allowed is 1hr(3600s), provided 3601 seconds."
    )
