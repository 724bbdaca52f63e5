"""Wait conditions and their handles (Heat and CloudFormation styles)."""

from __future__ import annotations

import datetime
import json
import urllib.parse

import pytest
from keel_heat_pack_heat.wait_condition import HeatWaitCondition, WaitCondition
from keel_heat_pack_heat.wait_condition_handle import (
    HeatWaitConditionHandle,
    UpdateWaitConditionHandle,
    WaitConditionHandle,
)

from keel_heat_core import exception
from keel_heat_core.testing import driver as drv


@pytest.fixture
def handle(resource_driver, fake_keystone):
    res = resource_driver.resource("h", HeatWaitConditionHandle)
    resource_driver.create(res)
    return res


def _wait(resource_driver, count=1, timeout=60):
    return resource_driver.resource(
        "wc",
        HeatWaitCondition,
        {"handle": "PLACEHOLDER", "count": count, "timeout": timeout},
    )


def _condition(resource_driver, handle, count=1, timeout=60):
    wc = _wait(resource_driver, count, timeout)
    wc.t.raw_properties["handle"] = handle.get_reference_id()
    wc.properties = wc.t.properties(wc.properties_schema, wc.context)
    return wc


def test_token_handle(handle, fake_keystone):
    user_id = handle.resource_id
    assert (
        fake_keystone.users[user_id]["name"] == handle.physical_resource_name()
    )
    assert handle.FnGetAtt("token") == f"token-{user_id}"
    endpoint = handle.FnGetAtt("endpoint")
    assert endpoint == (
        "http://heat.example.com:8004/v1/test_tenant_id/stacks/test_stack/"
        f"{handle.stack.id}/resources/h/signal"
    )
    assert handle.FnGetAtt("curl_cli") == (
        f"curl -i -X POST -H 'X-Auth-Token: token-{user_id}' "
        "-H 'Content-Type: application/json' "
        f"-H 'Accept: application/json' {endpoint}"
    )
    assert "password" in handle.store.redacted


def test_signal_defaults_and_wait_success(resource_driver, handle):
    wc = _condition(resource_driver, handle, count=2)
    data = wc.handle_create()
    assert wc.check_create_complete(data) is False
    assert resource_driver.signal(handle, None) == (
        "status:SUCCESS reason:Signal 1 received"
    )
    assert wc.check_create_complete(data) is False
    resource_driver.signal(handle, {"data": "two", "id": "x"})
    assert wc.check_create_complete(data) is True
    assert handle.metadata_get() == {
        "1": {
            "status": "SUCCESS",
            "reason": "Signal 1 received",
            "data": None,
        },
        "x": {
            "status": "SUCCESS",
            "reason": "Signal 2 received",
            "data": "two",
        },
    }
    assert json.loads(wc.get_attribute("data")) == {"1": None, "x": "two"}


def test_failure_signal_fails(resource_driver, handle):
    wc = _condition(resource_driver, handle)
    data = wc.handle_create()
    resource_driver.signal(handle, {"status": "FAILURE", "reason": "broke"})
    with pytest.raises(exception.Error) as err:
        wc.check_create_complete(data)
    assert str(err.value) == "broke"


def test_bad_status_refused(resource_driver, handle):
    with pytest.raises(exception.ResourceFailure) as err:
        resource_driver.signal(handle, {"status": "MAYBE"})
    assert "Metadata format invalid" in str(err.value)


def test_timeout_message(resource_driver, handle):
    wc = _condition(resource_driver, handle, count=3, timeout=5)
    resource_driver.signal(handle, {"reason": "one"})
    old = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=9)
    with pytest.raises(exception.Error) as err:
        wc.check_create_complete((handle, old, 5.0))
    assert str(err.value) == "1 of 3 received - one"


def test_handle_must_be_a_handle(resource_driver):
    wc = _wait(resource_driver)
    with pytest.raises(exception.ResourceFailure) as err:
        resource_driver.create(wc)
    assert "PLACEHOLDER is not a valid wait condition handle." in str(
        err.value
    )


def test_delete_clears_signals(resource_driver, handle):
    wc = _condition(resource_driver, handle)
    resource_driver.signal(handle, None)
    resource_driver.create(wc)
    resource_driver.delete(wc)
    assert handle.metadata_get(refresh=True) == {}


def test_no_signal_transport_has_no_token(resource_driver, fake_keystone):
    res = resource_driver.resource(
        "h", HeatWaitConditionHandle, {"signal_transport": "NO_SIGNAL"}
    )
    resource_driver.create(res)
    assert res.FnGetAtt("token") is None
    assert res.FnGetAtt("signal") == "{}"


def test_heat_signal_transport(resource_driver, fake_keystone):
    res = resource_driver.resource(
        "h", HeatWaitConditionHandle, {"signal_transport": "HEAT_SIGNAL"}
    )
    resource_driver.create(res)
    signal = json.loads(res.FnGetAtt("signal"))
    assert signal["alarm_url"].endswith("/resources/h/signal")
    assert signal["user_id"] == res.resource_id
    assert signal["auth_url"] == fake_keystone.v3_endpoint


def test_delete_handle_removes_user(resource_driver, handle, fake_keystone):
    resource_driver.delete(handle)
    assert fake_keystone.users == {}


def test_cfn_handle_and_condition(resource_driver, fake_keystone):
    handle = resource_driver.resource("WaitHandle", WaitConditionHandle)
    handle.created_time = datetime.datetime(2026, 1, 2, 3, 4, 5)
    resource_driver.create(handle)
    url = handle.get_reference_id()
    parsed = urllib.parse.urlparse(url)
    assert parsed.netloc == "heat.example.com:8000"
    assert parsed.path.startswith(
        "/v1/waitcondition/arn%3Aopenstack%3Aheat%3A%3Atest_tenant_id"
    )
    query = urllib.parse.parse_qs(parsed.query)
    assert query["SignatureMethod"] == ["HmacSHA256"]
    assert query["Timestamp"] == ["2026-01-02T03:04:05Z"]
    assert len(fake_keystone.keypairs) == 1

    wc = resource_driver.resource(
        "Wait", WaitCondition, {"Handle": url, "Timeout": 100}
    )
    data = wc.handle_create()
    signal = {
        "Status": "SUCCESS",
        "Reason": "ok",
        "UniqueId": "1",
        "Data": "d",
    }
    resource_driver.signal(handle, signal)
    assert wc.check_create_complete(data) is True
    assert json.loads(wc.get_attribute("Data")) == {"1": "d"}
    # CloudFormation handles need all four keys.
    with pytest.raises(exception.ResourceFailure):
        resource_driver.signal(handle, {"Status": "SUCCESS"})


def test_cfn_condition_checks_handle_stack(resource_driver, fake_keystone):
    handle = resource_driver.resource("WaitHandle", WaitConditionHandle)
    handle.created_time = datetime.datetime(2026, 1, 2)
    resource_driver.create(handle)
    url = handle.get_reference_id().replace("test_stack", "other")
    wc = resource_driver.resource(
        "Wait", WaitCondition, {"Handle": url, "Timeout": 100}
    )
    with pytest.raises(exception.ResourceFailure) as err:
        resource_driver.create(wc)
    assert "WaitCondition invalid Handle stack other" in str(err.value)


def test_update_handle_always_replaced(resource_driver, fake_keystone):
    res = resource_driver.resource("h", UpdateWaitConditionHandle)
    res.created_time = datetime.datetime(2026, 1, 2)
    resource_driver.create(res)
    assert resource_driver.update(res, {}) == drv.REPLACE
