"""The test cloud's services as a member uses them through openstacksdk:
network, router, port, server, volume, object storage; all deleted."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from keel_heat_core.testing.openstack import ready
from keel_heat_core.testing.openstack.fixture import CloudAccess

pytestmark = [pytest.mark.cloud, pytest.mark.slow]


def _until(what: str, check: Callable[[], Any], timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"{what} not reached within {timeout} s")


def test_seed_data(openstack_cloud: CloudAccess) -> None:
    conn = openstack_cloud.conn
    flavors = {f.name for f in conn.compute.flavors()}
    assert {"m1.nano", "m1.tiny", "m1.small"} <= flavors
    image = conn.image.find_image(ready.IMAGE_NAME)
    assert image is not None and image.status == "active"
    assert image.visibility == "public"
    public = conn.network.find_network(ready.PUBLIC_NETWORK)
    assert public is not None
    assert public.is_router_external and public.is_shared


def test_network_server_volume_lifecycle(
    openstack_cloud: CloudAccess,
) -> None:
    conn = openstack_cloud.conn
    name = f"t-{uuid.uuid4().hex[:8]}"
    public = conn.network.find_network(ready.PUBLIC_NETWORK)
    net = conn.network.create_network(name=name)
    subnet = conn.network.create_subnet(
        network_id=net.id, cidr="10.20.30.0/24", ip_version=4, name=name
    )
    router = conn.network.create_router(
        name=name, external_gateway_info={"network_id": public.id}
    )
    conn.network.add_interface_to_router(router, subnet_id=subnet.id)
    port = conn.network.create_port(network_id=net.id, name=name)
    assert port.fixed_ips[0]["subnet_id"] == subnet.id
    gateway = conn.network.get_router(router.id).external_gateway_info
    assert gateway["network_id"] == public.id

    flavor = conn.compute.find_flavor("m1.nano")
    image = conn.image.find_image(ready.IMAGE_NAME)
    started = time.monotonic()
    server = conn.compute.create_server(
        name=name,
        flavor_id=flavor.id,
        image_id=image.id,
        networks=[{"port": port.id}],
    )
    server = conn.compute.wait_for_server(server, wait=120)
    active_after = time.monotonic() - started
    assert server.status == "ACTIVE", server
    # the binding is shown to admins only
    admin = openstack_cloud.connection(openstack_cloud.admin)
    bound = admin.network.get_port(port.id)
    assert bound.device_id == server.id
    assert bound.binding_vif_type == "ovs"

    volume = conn.block_storage.create_volume(size=1, name=name)
    conn.block_storage.wait_for_status(volume, "available", wait=60)
    conn.compute.create_volume_attachment(server, volume_id=volume.id)
    conn.block_storage.wait_for_status(volume, "in-use", wait=60)
    attached = conn.block_storage.get_volume(volume.id)
    assert attached.attachments[0]["server_id"] == server.id
    conn.compute.delete_volume_attachment(server, volume.id)
    conn.block_storage.wait_for_status(volume, "available", wait=60)

    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, wait=60)
    conn.block_storage.delete_volume(volume)
    conn.block_storage.wait_for_delete(volume, wait=60)
    conn.network.delete_port(port)
    conn.network.remove_interface_from_router(router, subnet_id=subnet.id)
    conn.network.delete_router(router)
    conn.network.delete_subnet(subnet)
    conn.network.delete_network(net)
    assert conn.compute.find_server(name) is None
    assert conn.block_storage.find_volume(name) is None
    assert conn.network.find_network(name) is None
    assert conn.network.find_router(name) is None
    print(f"server ACTIVE after {active_after:.1f} s")


def test_object_storage(openstack_cloud: CloudAccess) -> None:
    conn = openstack_cloud.conn
    name = f"t-{uuid.uuid4().hex[:8]}"
    conn.object_store.create_container(name=name)
    conn.object_store.upload_object(
        container=name, name="hello.txt", data=b"hello cloud"
    )
    body = conn.object_store.download_object("hello.txt", container=name)
    assert body == b"hello cloud"
    names = [o.name for o in conn.object_store.objects(name)]
    assert names == ["hello.txt"]
    conn.object_store.delete_object("hello.txt", container=name)
    conn.object_store.delete_container(name)
    containers = [c.name for c in conn.object_store.containers()]
    assert name not in containers
