"""OS::Heat::DeployedServer."""

from __future__ import annotations

import pytest
from keel_heat_pack_heat.deployed_server import DeployedServer

from keel_heat_core import exception


def test_cfn_transport(resource_driver, fake_keystone):
    res = resource_driver.resource("srv", DeployedServer, {"name": "box"})
    resource_driver.create(res)
    assert res.resource_id == res.uuid
    occ = res.FnGetAtt("os_collect_config")
    assert occ["collectors"] == ["cfn", "local"]
    assert occ["cfn"]["stack_name"] == "test_stack"
    assert occ["cfn"]["path"] == "srv.Metadata"
    assert occ["cfn"]["access_key_id"] == res.data()["access_key"]
    assert res.metadata_get()["deployments"] == []
    assert res.FnGetAtt("name") == "box"


def test_heat_transport_and_switch(resource_driver, fake_keystone):
    res = resource_driver.resource(
        "srv",
        DeployedServer,
        {"software_config_transport": "POLL_SERVER_HEAT"},
    )
    resource_driver.create(res)
    occ = res.FnGetAtt("os_collect_config")
    assert occ["collectors"] == ["heat", "local"]
    assert occ["heat"]["user_id"] == res.data()["user_id"]
    assert occ["heat"]["stack_id"] == f"test_stack/{res.stack.id}"
    assert res.FnGetAtt("name") == res.physical_resource_name()
    assert len(res.physical_resource_name()) <= 53
    res.handle_update(
        res.t, None, {"software_config_transport": "POLL_SERVER_CFN"}
    )
    occ = res.metadata_get(refresh=True)["os-collect-config"]
    assert occ["collectors"] == ["cfn", "local"]
    assert set(occ["heat"].values()) == {None}


def test_temp_url_left_for_swift_pack(resource_driver, fake_keystone):
    res = resource_driver.resource(
        "srv", DeployedServer, {"software_config_transport": "POLL_TEMP_URL"}
    )
    with pytest.raises(exception.ResourceFailure, match="not supported"):
        resource_driver.create(res)


def test_delete_removes_user(resource_driver, fake_keystone):
    res = resource_driver.resource("srv", DeployedServer)
    resource_driver.create(res)
    resource_driver.delete(res)
    assert fake_keystone.users == {}
