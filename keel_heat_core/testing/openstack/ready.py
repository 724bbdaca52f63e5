"""Waiting until the test cloud really serves, and its seed data.

"Ready" means more than open ports: the compute service is up and its
resource provider has inventory, Cinder's scheduler lists the fake pool,
the agent row is alive and Swift's ``/healthcheck`` answers. The seed is
what tests and the conformance suites expect to find: flavors, one small
public raw image, and an external shared flat network ``public`` whose
subnet is the floating-IP pool.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import requests
from keystoneauth1 import session as ks_session

from keel_heat_core.testing.openstack.layout import Layout

FLAVORS = (
    # name, vCPUs, RAM MiB, disk GiB
    ("m1.nano", 1, 128, 1),
    ("m1.tiny", 1, 512, 1),
    ("m1.small", 1, 2048, 20),
)
IMAGE_NAME = "keel-tiny-raw"
IMAGE_SIZE = 1024 * 1024
PUBLIC_NETWORK = "public"
PUBLIC_CIDR = "172.24.4.0/24"


def wait(
    what: str,
    check: Callable[[], Any],
    timeout: float,
    alive: Callable[[], None] = lambda: None,
    interval: float = 0.5,
) -> Any:
    """Call ``check`` until it returns something true; return that.

    :param alive: raises when a process the wait depends on died.
    :raises TimeoutError: when ``timeout`` seconds pass.
    """
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        alive()
        try:
            found = check()
        except (requests.RequestException, KeyError, ValueError) as exc:
            last = exc
            found = None
        if found:
            return found
        time.sleep(interval)
    raise TimeoutError(f"{what}: not ready within {timeout:.0f} s ({last})")


def answers(url: str) -> bool:
    """Tell whether an HTTP server answers ``url`` below 500."""
    return requests.get(url, timeout=5).status_code < 500


def _json(sess: ks_session.Session, url: str, **headers: str) -> Any:
    resp = sess.get(url, headers=headers, raise_exc=False)
    return resp.json() if resp.status_code == 200 else None


def compute_up(sess: ks_session.Session, layout: Layout) -> bool:
    """Tell whether nova-compute of the cloud's host reports up."""
    found = _json(
        sess, f"{layout.url('nova')}/v2.1/os-services?binary=nova-compute"
    )
    services = (found or {}).get("services", [])
    return any(
        s["host"] == layout.host and s["state"] == "up" for s in services
    )


def provider_has_inventory(sess: ks_session.Session, layout: Layout) -> bool:
    """Tell whether the compute node's resource provider has VCPUs."""
    base = layout.url("placement")
    found = _json(sess, f"{base}/resource_providers")
    for provider in (found or {}).get("resource_providers", []):
        inv = _json(
            sess, f"{base}/resource_providers/{provider['uuid']}/inventories"
        )
        if inv and "VCPU" in inv.get("inventories", {}):
            return True
    return False


def cinder_pool_listed(
    sess: ks_session.Session, layout: Layout, project_id: str
) -> bool:
    """Tell whether Cinder's scheduler knows the fake back end's pool."""
    found = _json(
        sess,
        f"{layout.url('cinder')}/v3/{project_id}/scheduler-stats/get_pools",
    )
    return bool((found or {}).get("pools"))


def agent_alive(sess: ks_session.Session, layout: Layout) -> bool:
    """Tell whether Neutron shows the host's OVS agent alive."""
    found = _json(sess, f"{layout.url('neutron')}/v2.0/agents")
    return any(
        a["host"] == layout.host and a["alive"]
        for a in (found or {}).get("agents", [])
    )


def swift_healthy(layout: Layout) -> bool:
    """Tell whether Swift's proxy answers ``/healthcheck``."""
    url = f"{layout.url('swift-proxy')}/healthcheck"
    return requests.get(url, timeout=5).status_code == 200


# -- seed -----------------------------------------------------------------


def seed(sess: ks_session.Session, layout: Layout) -> dict[str, str]:
    """Create the flavors, the image and the public network.

    :param sess: a cloud admin's session.
    :returns: ``image_id``, ``public_network_id`` and
        ``public_subnet_id``.
    """
    nova = f"{layout.url('nova')}/v2.1"
    for name, vcpus, ram, disk in FLAVORS:
        body = {"name": name, "vcpus": vcpus, "ram": ram, "disk": disk}
        sess.post(f"{nova}/flavors", json={"flavor": body})
    glance = f"{layout.url('glance')}/v2"
    image = sess.post(
        f"{glance}/images",
        json={
            "name": IMAGE_NAME,
            "disk_format": "raw",
            "container_format": "bare",
            "visibility": "public",
            "min_disk": 0,
            "min_ram": 0,
        },
    ).json()
    sess.put(
        f"{glance}/images/{image['id']}/file",
        data=bytes(IMAGE_SIZE),
        headers={"Content-Type": "application/octet-stream"},
    )
    neutron = f"{layout.url('neutron')}/v2.0"
    network = sess.post(
        f"{neutron}/networks",
        json={
            "network": {
                "name": PUBLIC_NETWORK,
                "router:external": True,
                "shared": True,
                "provider:network_type": "flat",
                "provider:physical_network": "public",
            }
        },
    ).json()["network"]
    subnet = sess.post(
        f"{neutron}/subnets",
        json={
            "subnet": {
                "name": f"{PUBLIC_NETWORK}-subnet",
                "network_id": network["id"],
                "ip_version": 4,
                "cidr": PUBLIC_CIDR,
                "gateway_ip": "172.24.4.1",
                "enable_dhcp": False,
                "allocation_pools": [
                    {"start": "172.24.4.10", "end": "172.24.4.250"}
                ],
            }
        },
    ).json()["subnet"]
    return {
        "image_id": str(image["id"]),
        "public_network_id": str(network["id"]),
        "public_subnet_id": str(subnet["id"]),
    }


def image_active(sess: ks_session.Session, layout: Layout, image: str) -> bool:
    """Tell whether Glance shows ``image`` active."""
    found = _json(sess, f"{layout.url('glance')}/v2/images/{image}")
    return bool(found and found.get("status") == "active")
