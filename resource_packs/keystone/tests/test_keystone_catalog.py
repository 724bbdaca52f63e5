"""Catalog services, endpoints and regions against the real Keystone."""

from __future__ import annotations

from typing import Any
from urllib import parse

import pytest
from keel_heat_pack_keystone.endpoint import KeystoneEndpoint
from keel_heat_pack_keystone.region import KeystoneRegion
from keel_heat_pack_keystone.service import KeystoneService
from openstack import connection
from openstack import exceptions as sdk_exc

from keel_heat_core.testing import driver as drv
from keel_heat_core.testing.driver import ResourceDriver

pytestmark = pytest.mark.keystone


def test_service_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    unique: str,
) -> None:
    ident = admin_conn.identity
    res = admin_driver.resource(
        "svc",
        KeystoneService,
        {"name": unique, "type": unique + "-type", "description": "first"},
        type_name="OS::Keystone::Service",
    )
    admin_driver.create(res)
    service = ident.get_service(res.resource_id)
    assert (service.name, service.type) == (unique, unique + "-type")
    assert (service.description, service.is_enabled) == ("first", True)

    outcome = admin_driver.update(
        res,
        {
            "name": unique + "-x",
            "type": unique + "-other",
            "description": "second",
            "enabled": False,
        },
    )
    assert outcome == drv.UPDATED
    service = ident.get_service(res.resource_id)
    assert (service.name, service.type) == (unique + "-x", unique + "-other")
    assert (service.description, service.is_enabled) == ("second", False)
    assert res.FnGetAtt("show")["type"] == unique + "-other"

    admin_driver.delete(res)
    with pytest.raises(sdk_exc.NotFoundException):
        ident.get_service(res.resource_id)


def test_region_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    unique: str,
) -> None:
    ident = admin_conn.identity
    top = admin_driver.resource(
        "top",
        KeystoneRegion,
        {"id": unique + " top", "description": "first"},
        type_name="OS::Keystone::Region",
    )
    admin_driver.create(top)
    # The id given is URL-encoded, as Heat does.
    assert top.resource_id == unique + "%20top"
    region = _region(admin_conn, top.resource_id)
    assert region.description == "first"
    assert region.parent_region_id is None

    child = admin_driver.resource(
        "child", KeystoneRegion, {}, type_name="OS::Keystone::Region"
    )
    admin_driver.create(child)
    assert ident.get_region(child.resource_id).id == child.resource_id

    outcome = admin_driver.update(
        child, {"parent_region": top.resource_id, "description": "below"}
    )
    assert outcome == drv.UPDATED
    region = ident.get_region(child.resource_id)
    assert (region.parent_region_id, region.description) == (
        top.resource_id,
        "below",
    )
    assert child.FnGetAtt("show")["parent_region_id"] == top.resource_id

    # A region's id is fixed: another id is another region.
    assert admin_driver.update(top, {"id": unique + "-new"}) == drv.REPLACE
    new = admin_driver.resource(
        "top",
        KeystoneRegion,
        {"id": unique + "-new"},
        type_name="OS::Keystone::Region",
    )
    admin_driver.create(new)
    assert ident.get_region(unique + "-new").id == unique + "-new"

    for old in (child, top, new):
        admin_driver.delete(old)
        with pytest.raises(sdk_exc.NotFoundException):
            _region(admin_conn, old.resource_id)


def _region(conn: connection.Connection, region_id: str) -> Any:
    # openstacksdk puts the id in the URL as it is; "%20" must be quoted.
    return conn.identity.get_region(parse.quote(region_id, safe=""))


def test_endpoint_lifecycle(
    admin_driver: ResourceDriver,
    admin_conn: connection.Connection,
    unique: str,
) -> None:
    ident = admin_conn.identity
    service = ident.create_service(name=unique, type=unique + "-type")
    try:
        res = admin_driver.resource(
            "ep",
            KeystoneEndpoint,
            {
                "name": unique + "-ep",
                "service": unique,
                "region": "RegionOne",
                "interface": "public",
                "url": "http://first.example.com/v1",
            },
            type_name="OS::Keystone::Endpoint",
        )
        admin_driver.create(res)
        endpoint = ident.get_endpoint(res.resource_id)
        assert endpoint.service_id == service.id
        assert endpoint.region_id == "RegionOne"
        assert endpoint.interface == "public"
        assert endpoint.url == "http://first.example.com/v1"
        assert endpoint.is_enabled is True
        shown = res.FnGetAtt("show")
        assert shown["name"] == unique + "-ep"

        outcome = admin_driver.update(
            res,
            {
                "name": unique + "-ep2",
                "service": service.id,
                "region": "RegionOne",
                "interface": "internal",
                "url": "http://second.example.com/v1",
                "enabled": False,
            },
        )
        assert outcome == drv.UPDATED
        endpoint = ident.get_endpoint(res.resource_id)
        assert endpoint.interface == "internal"
        assert endpoint.url == "http://second.example.com/v1"
        assert endpoint.is_enabled is False
        assert res.FnGetAtt("show")["name"] == unique + "-ep2"

        admin_driver.delete(res)
        with pytest.raises(sdk_exc.NotFoundException):
            ident.get_endpoint(res.resource_id)
    finally:
        ident.delete_service(service, ignore_missing=True)
