"""OS::Heat::Delay and OS::Heat::AccessPolicy."""

from __future__ import annotations

import datetime

import pytest
from keel_heat_pack_heat.access_policy import AccessPolicy
from keel_heat_pack_heat.delay import Delay
from keel_heat_pack_heat.none_resource import NoneResource

from keel_heat_core import exception, plugin_api
from keel_heat_core.testing import driver as drv


def test_delay_waits_only_on_chosen_actions(resource_driver):
    res = resource_driver.resource(
        "d", Delay, {"min_wait": 30, "actions": ["DELETE"]}
    )
    resource_driver.create(res)  # no wait on CREATE
    started, secs = res._handle_action()
    assert secs == 0
    res.action = "DELETE"
    started, secs = res._handle_action()
    assert secs == 30
    with pytest.raises(plugin_api.PollDelay) as delay:
        res.check_delete_complete((started, secs))
    assert delay.value.period in (14, 15)
    past = started - datetime.timedelta(seconds=31)
    assert res.check_delete_complete((past, secs)) is True


def test_delay_jitter_bounds(resource_driver):
    res = resource_driver.resource(
        "d", Delay, {"min_wait": 1, "max_jitter": 2, "jitter_multiplier": 3}
    )
    res.action = "CREATE"
    for _ in range(20):
        assert 1 <= res._wait_secs("CREATE") <= 7


def test_delay_updates_in_place(resource_driver):
    res = resource_driver.resource("d", Delay, {"min_wait": 0})
    resource_driver.create(res)
    assert resource_driver.update(res, {"min_wait": 0.5}) == drv.UPDATED


def test_access_policy(resource_driver):
    resource_driver.resource("server", NoneResource)
    res = resource_driver.resource(
        "policy", AccessPolicy, {"AllowedResources": ["server"]}
    )
    resource_driver.create(res)
    assert res.access_allowed("server")
    assert not res.access_allowed("policy")
    bad = resource_driver.resource(
        "bad", AccessPolicy, {"AllowedResources": ["missing"]}
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        bad.validate()
    assert str(err.value) == "AccessPolicy resource missing not in stack"
