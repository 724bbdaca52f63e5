"""``OS::Heat::AutoScalingGroup`` and ``OS::Heat::ScalingPolicy`` through
the engine: the group is created, updated and deleted through the native
API, and resized by signalling its policies there
(``POST …/resources/<policy>/signal``).

Heat's behaviour (``heat/engine/resources/openstack/heat/
autoscaling_group.py``, ``scaling_policy.py``,
``heat/scaling/scalingutil.py``): the group starts at
``desired_capacity`` (else ``min_size``) and stays within the bounds; a
signalled policy adjusts it by ``change_in_capacity``,
``exact_capacity`` or ``percent_change_in_capacity`` (a change below one
member still moves one, ``min_adjustment_step`` raises small changes);
inside the policy's ``cooldown`` a signal does nothing, and a signal that
would not change the size does nothing and writes no event.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.functional.software.harness import wait_for
from tests.functional.types.engine_api import Stacks, fake_keystone, template
from tests.functional.types.harness import Cloud

MEMBER = {"type": "OS::Heat::TestResource", "properties": {"value": "m"}}


@pytest.fixture(scope="module", autouse=True)
def _stack_users(cloud: Cloud) -> Iterator[None]:
    # policies are signal responders: each creates a stack user
    with fake_keystone(cloud):
        yield


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _policy(adjustment: float, kind: str, **props: Any) -> dict[str, Any]:
    return {
        "type": "OS::Heat::ScalingPolicy",
        "properties": {
            "auto_scaling_group_id": {"get_resource": "asg"},
            "scaling_adjustment": adjustment,
            "adjustment_type": kind,
            **props,
        },
    }


def _template(
    policies: dict[str, Any] | None = None,
    member: dict[str, Any] | None = None,
    **props: Any,
) -> dict[str, Any]:
    asg = {
        "type": "OS::Heat::AutoScalingGroup",
        "properties": {
            "min_size": 1,
            "max_size": 6,
            "resource": member or MEMBER,
            **props,
        },
    }
    return template(
        {"asg": asg, **(policies or {})},
        {
            "size": {"get_attr": ["asg", "current_size"]},
            "refs": {"get_attr": ["asg", "refs"]},
            "refs_map": {"get_attr": ["asg", "refs_map"]},
        },
    )


def _members(stacks: Stacks, ident: str) -> dict[str, dict[str, Any]]:
    return {
        r["resource_name"]: r
        for r in stacks.resources(ident, nested_depth=1)
        if r.get("parent_resource") == "asg"
    }


def _signal(stacks: Stacks, ident: str, policy: str) -> None:
    status, body = stacks.signal(ident, policy, {})
    assert status == 200, body


def _signal_events(stacks: Stacks, ident: str, policy: str) -> list[Any]:
    return [
        e
        for e in stacks.events(ident, policy)
        if e["resource_status"].startswith("SIGNAL")
    ]


def test_sizes_and_update_of_bounds(stacks: Stacks) -> None:
    ident = stacks.create_complete(_template(desired_capacity=3))
    assert stacks.resource_state(ident, "asg") == "CREATE_COMPLETE"
    members = _members(stacks, ident)
    assert len(members) == 3
    assert {m["resource_type"] for m in members.values()} == {
        "OS::Heat::TestResource"
    }
    assert stacks.output(ident, "size") == 3
    refs_map = stacks.output(ident, "refs_map")
    assert refs_map == {
        n: m["physical_resource_id"] for n, m in members.items()
    }
    assert sorted(stacks.output(ident, "refs")) == sorted(refs_map.values())

    # a new desired_capacity resizes; the old members stay
    stacks.update_complete(ident, _template(desired_capacity=5))
    grown = _members(stacks, ident)
    assert len(grown) == 5
    assert set(members) < set(grown)
    assert stacks.output(ident, "size") == 5

    # without desired_capacity, a lower max_size shrinks the group to it
    stacks.update_complete(ident, _template(max_size=2))
    shrunk = _members(stacks, ident)
    assert len(shrunk) == 2
    assert set(shrunk) < set(grown)
    assert stacks.output(ident, "size") == 2
    stacks.delete_complete(ident)


def test_rolling_updates_one_member_at_a_time(stacks: Stacks) -> None:
    ident = stacks.create_complete(_template(desired_capacity=3))
    before = {
        n: m["physical_resource_id"]
        for n, m in _members(stacks, ident).items()
    }
    member = {"type": "OS::Heat::TestResource", "properties": {"value": "n"}}
    policy = {"max_batch_size": 1, "min_in_service": 0, "pause_time": 0}
    stacks.update_complete(
        ident,
        _template(member=member, desired_capacity=3, rolling_updates=policy),
    )
    members = _members(stacks, ident)
    # TestResource takes a new value in place: same members, updated
    assert {n: m["physical_resource_id"] for n, m in members.items()} == (
        before
    )
    assert {m["resource_status"] for m in members.values()} == {
        "UPDATE_COMPLETE"
    }
    events = stacks.events(stacks.nested(ident, "asg"))

    def first(name: str, state: str) -> int:
        return next(
            i
            for i, e in enumerate(events)
            if e["resource_name"] == name and e["resource_status"] == state
        )

    order = sorted(members, key=lambda n: first(n, "UPDATE_IN_PROGRESS"))
    # one batch after the other: each member is done before the next
    for done, started in zip(order, order[1:], strict=False):
        assert first(done, "UPDATE_COMPLETE") < first(
            started, "UPDATE_IN_PROGRESS"
        )
    stacks.delete_complete(ident)


def test_min_size_is_the_start_without_desired_capacity(
    stacks: Stacks,
) -> None:
    ident = stacks.create_complete(_template(min_size=2))
    assert stacks.output(ident, "size") == 2
    stacks.delete_complete(ident)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        (
            {"min_size": 4, "max_size": 2},
            "MinSize can not be greater than MaxSize",
        ),
        (
            {"desired_capacity": 9},
            "DesiredCapacity must be between MinSize and MaxSize",
        ),
    ],
)
def test_bad_bounds_are_refused(
    stacks: Stacks, props: dict[str, Any], message: str
) -> None:
    status, body = stacks.cloud.request(
        "POST",
        "/stacks",
        {"stack_name": "bad-asg", "template": _template(**props)},
    )
    assert status == 400, body
    assert body["error"]["message"] == message


def test_min_adjustment_step_needs_percent(stacks: Stacks) -> None:
    policies = {"p": _policy(1, "change_in_capacity", min_adjustment_step=1)}
    status, body = stacks.cloud.request(
        "POST",
        "/stacks",
        {"stack_name": "bad-step", "template": _template(policies)},
    )
    # Heat's fault map has no status for this error: 500
    assert status == 500, body
    assert body["error"]["type"] == "ResourcePropertyValueDependency"
    assert body["error"]["message"] == (
        "min_adjustment_step property should only be specified for "
        "adjustment_type with value percent_change_in_capacity."
    )


def _scale(stacks: Stacks, ident: str, policy: str, size: int) -> None:
    """Signal ``policy`` and wait until it is handled (its event is
    written once the group has finished scaling)."""
    handled = len(_signal_events(stacks, ident, policy))
    _signal(stacks, ident, policy)
    wait_for(
        lambda: len(_signal_events(stacks, ident, policy)) > handled,
        what=f"{policy} handled",
    )
    assert stacks.output(ident, "size") == size


def _ignored(stacks: Stacks, ident: str, policy: str) -> None:
    """Signal ``policy``; it must neither scale nor write an event."""
    size = stacks.output(ident, "size")
    handled = len(_signal_events(stacks, ident, policy))
    _signal(stacks, ident, policy)
    stacks.settle()
    assert stacks.output(ident, "size") == size
    # Heat writes no event when no action is required
    assert len(_signal_events(stacks, ident, policy)) == handled


def test_signals_change_the_size(stacks: Stacks) -> None:
    policies = {
        "up": _policy(1, "change_in_capacity"),
        "exact": _policy(5, "exact_capacity"),
        "down_pct": _policy(
            -20, "percent_change_in_capacity", min_adjustment_step=2
        ),
        "small_pct": _policy(10, "percent_change_in_capacity"),
        "way_up": _policy(10, "change_in_capacity"),
        "to_zero": _policy(0, "exact_capacity"),
    }
    ident = stacks.create_complete(_template(policies, desired_capacity=2))
    assert stacks.output(ident, "size") == 2
    first = set(_members(stacks, ident))

    _scale(stacks, ident, "up", 3)
    assert first < set(_members(stacks, ident))
    _scale(stacks, ident, "exact", 5)
    # 20 % of 5 is one member; min_adjustment_step makes it two
    _scale(stacks, ident, "down_pct", 3)
    # 10 % of 3 is less than one member: still one
    _scale(stacks, ident, "small_pct", 4)
    # bounded by max_size
    _scale(stacks, ident, "way_up", 6)
    assert len(_members(stacks, ident)) == 6
    # bounded by min_size
    _scale(stacks, ident, "to_zero", 1)
    assert len(_members(stacks, ident)) == 1

    # each handled signal is one event of its policy
    for name in policies:
        events = _signal_events(stacks, ident, name)
        assert [e["resource_status"] for e in events] == ["SIGNAL_COMPLETE"]
    # scaling is no stack update
    assert stacks.resource_state(ident, "asg") == "CREATE_COMPLETE"
    assert stacks.status(ident) == "CREATE_COMPLETE"
    stacks.delete_complete(ident)


def test_at_a_bound_a_signal_does_nothing(stacks: Stacks) -> None:
    policies = {
        "up": _policy(1, "change_in_capacity"),
        "down": _policy(-1, "change_in_capacity"),
    }
    ident = stacks.create_complete(
        _template(policies, min_size=1, max_size=2, desired_capacity=2)
    )
    _ignored(stacks, ident, "up")
    _scale(stacks, ident, "down", 1)
    _ignored(stacks, ident, "down")
    assert len(_members(stacks, ident)) == 1
    stacks.delete_complete(ident)


def test_cooldown_blocks_a_second_signal(stacks: Stacks) -> None:
    policies = {
        "slow": _policy(1, "change_in_capacity", cooldown=600),
        "fast": _policy(1, "change_in_capacity"),
    }
    ident = stacks.create_complete(_template(policies, desired_capacity=1))
    _scale(stacks, ident, "slow", 2)
    _ignored(stacks, ident, "slow")
    # the cooldown is the policy's own: another policy still scales
    _scale(stacks, ident, "fast", 3)
    stacks.delete_complete(ident)


def test_group_cooldown_blocks_every_policy(stacks: Stacks) -> None:
    policies = {"p": _policy(1, "change_in_capacity")}
    ident = stacks.create_complete(
        _template(policies, desired_capacity=1, cooldown=600)
    )
    # the group's cooldown starts when it is created
    _ignored(stacks, ident, "p")
    assert stacks.output(ident, "size") == 1
    stacks.delete_complete(ident)


def test_outputs_and_outputs_list(stacks: Stacks) -> None:
    tmpl = _template(desired_capacity=2)
    tmpl["outputs"] = {
        "outputs": {"value": {"get_attr": ["asg", "outputs", "output"]}},
        "outputs_list": {
            "value": {"get_attr": ["asg", "outputs_list", "output"]}
        },
    }
    ident = stacks.create_complete(tmpl)
    names = sorted(_members(stacks, ident))
    assert stacks.output(ident, "outputs") == dict.fromkeys(names, "m")
    assert stacks.output(ident, "outputs_list") == ["m", "m"]
