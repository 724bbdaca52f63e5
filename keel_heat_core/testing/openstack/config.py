"""Configuration files of the test cloud's services, rendered from a
:class:`~.layout.Layout`.

Every function here is pure: it returns sections (``{section: {option:
value}}``) or text, and :func:`render` turns sections into an INI file.
What each option is for, where it is not obvious, is said next to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from keel_heat_core.testing.openstack.layout import Layout

Sections = dict[str, dict[str, str]]

SWIFT_PIPELINE = (
    "catch_errors gatekeeper healthcheck proxy-logging listing_formats "
    "bulk tempurl authtoken keystoneauth copy container-quotas "
    "account-quotas slo dlo versioned_writes symlink proxy-logging "
    "proxy-server"
)
"""The proxy's pipeline; no ``cache`` nor ``ratelimit`` (no memcached)."""

SERVICE_TOKEN_ROLES = {
    "service_token_roles_required": "true",
    "service_token_roles": "service",
}
"""keystonemiddleware: a service token must carry the ``service`` role."""

FAKE_VOLUME_DRIVER = "keel_cloud_volume.FakeImageCloningDriver"
"""The Cinder back end: cinder's shipped fake, able to clone images."""

FAKE_VOLUME_DRIVER_MODULE = '''\
"""Cinder's fake volume driver, cloning images without qemu-img.

Creating a volume from an image otherwise downloads it and runs
``qemu-img info`` through privsep before the driver is asked; answering
that the image was cloned skips both.
"""

from cinder.tests import fake_driver


class FakeImageCloningDriver(fake_driver.FakeLoggingVolumeDriver):
    def clone_image(self, context, volume, image_location, image_meta,
                    image_service):
        return {}, True
'''


def render(sections: Mapping[str, Mapping[str, object]]) -> str:
    """Return the INI text of ``sections`` (``DEFAULT`` first if any)."""
    order = sorted(sections, key=lambda name: name != "DEFAULT")
    out: list[str] = []
    for name in order:
        out.append(f"[{name}]")
        for key, value in sections[name].items():
            out.append(f"{key} = {_text(value)}")
        out.append("")
    return "\n".join(out)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def keystoneauth(layout: Layout, user: str) -> dict[str, str]:
    """keystoneauth1 password options of service user ``user``."""
    return {
        "auth_type": "password",
        "auth_url": layout.keystone_url,
        "username": user,
        "password": layout.service_password,
        "user_domain_name": "Default",
        "project_name": "service",
        "project_domain_name": "Default",
        "region_name": layout.region,
    }


def authtoken(layout: Layout, user: str) -> dict[str, str]:
    """``[keystone_authtoken]`` of a service logging in as ``user``."""
    options = keystoneauth(layout, user)
    options.pop("region_name")
    options["www_authenticate_uri"] = layout.keystone_url
    options.update(SERVICE_TOKEN_ROLES)
    return options


def _common(layout: Layout, service: str) -> dict[str, str]:
    return {
        "debug": "false",
        "use_stderr": "true",
        "transport_url": layout.transport_url,
        "state_path": str(layout.dir(service)),
    }


def _locks(layout: Layout, service: str) -> dict[str, str]:
    return {"lock_path": str(layout.dir(service) / "locks")}


def placement_conf(layout: Layout) -> Sections:
    """``placement.conf``."""
    return {
        "DEFAULT": {"debug": "false", "use_stderr": "true"},
        "api": {"auth_strategy": "keystone"},
        "placement_database": {"connection": layout.database_url("placement")},
        "keystone_authtoken": authtoken(layout, "placement"),
    }


def nova_conf(layout: Layout) -> Sections:
    """``nova.conf``: the fake compute driver, cells v2, no VNC."""
    auth = keystoneauth(layout, "nova")
    default = _common(layout, "nova")
    default.update(
        host=layout.host,
        my_ip="127.0.0.1",
        compute_driver="fake.FakeDriverWithoutFakeNodes",
        # no agent will ever say a VIF is plugged
        vif_plugging_is_fatal="false",
        vif_plugging_timeout="0",
        # fake guests live in nova-compute's memory only
        sync_power_state_interval="-1",
        enabled_apis="osapi_compute",
        allow_resize_to_same_host="true",
    )
    return {
        "DEFAULT": default,
        "api": {"auth_strategy": "keystone"},
        "wsgi": {
            "api_paste_config": str(layout.venv / "etc/nova/api-paste.ini")
        },
        "api_database": {"connection": layout.database_url("nova_api")},
        "database": {"connection": layout.database_url("nova")},
        "scheduler": {
            "workers": "1",
            "discover_hosts_in_cells_interval": "-1",
        },
        "conductor": {"workers": "1"},
        "vnc": {"enabled": "false"},
        "quota": {"instances": "100", "cores": "200", "ram": "512000"},
        "placement": dict(auth),
        "neutron": dict(auth),
        "cinder": {
            **{k: v for k, v in auth.items() if k != "region_name"},
            "os_region_name": layout.region,
        },
        "service_user": {**auth, "send_service_user_token": "true"},
        "glance": {"valid_interfaces": "public", "region_name": layout.region},
        "keystone_authtoken": authtoken(layout, "nova"),
        "oslo_concurrency": _locks(layout, "nova"),
        "oslo_messaging_notifications": {"driver": "noop"},
    }


def glance_conf(layout: Layout) -> Sections:
    """``glance-api.conf``: a file store and web-download import."""
    data = layout.dir("glance")
    return {
        "DEFAULT": {
            "debug": "false",
            "use_stderr": "true",
            "enabled_backends": "fast:file",
            "worker_self_reference_url": layout.url("glance"),
            "enabled_import_methods": (
                "[glance-direct,web-download,copy-image]"
            ),
        },
        "database": {"connection": layout.database_url("glance")},
        "glance_store": {"default_backend": "fast"},
        "fast": {"filesystem_store_datadir": str(data / "images")},
        "os_glance_staging_store": {
            "filesystem_store_datadir": str(data / "staging")
        },
        "os_glance_tasks_store": {
            "filesystem_store_datadir": str(data / "tasks")
        },
        "paste_deploy": {"flavor": "keystone"},
        # the brackets matter: without them oslo.config refuses the
        # value and Glance only says the URI "does not pass filtering"
        "import_filtering_opts": {
            "allowed_hosts": "[127.0.0.1,localhost]",
            "allowed_ports": "[]",
        },
        "keystone_authtoken": authtoken(layout, "glance"),
        "oslo_concurrency": _locks(layout, "glance"),
        "oslo_messaging_notifications": {"driver": "noop"},
    }


def neutron_conf(layout: Layout) -> Sections:
    """``neutron.conf``: ML2 and routers, no agents but one row."""
    default = _common(layout, "neutron")
    default.update(
        core_plugin="ml2",
        service_plugins="router",
        auth_strategy="keystone",
        allow_overlapping_ips="true",
        notify_nova_on_port_status_changes="true",
        notify_nova_on_port_data_changes="true",
        dhcp_agent_notification="false",
        # the one agent row never reports again: keep it alive (maximum)
        agent_down_time="2147483",
        host=layout.host,
        api_paste_config=str(layout.venv / "etc/neutron/api-paste.ini"),
    )
    return {
        "DEFAULT": default,
        "database": {"connection": layout.database_url("neutron")},
        "keystone_authtoken": authtoken(layout, "neutron"),
        "nova": keystoneauth(layout, "neutron"),
        "oslo_concurrency": _locks(layout, "neutron"),
        "oslo_messaging_notifications": {"driver": "noop"},
    }


def ml2_conf() -> Sections:
    """``ml2_conf.ini``: a flat ``public`` network, VXLAN for projects."""
    return {
        "ml2": {
            "type_drivers": "flat,vxlan",
            "tenant_network_types": "vxlan",
            "mechanism_drivers": "openvswitch",
            "extension_drivers": "port_security",
        },
        "ml2_type_flat": {"flat_networks": "public"},
        "ml2_type_vxlan": {"vni_ranges": "1:1000"},
        "securitygroup": {
            "enable_security_group": "true",
            "firewall_driver": "openvswitch",
        },
    }


def cinder_conf(layout: Layout) -> Sections:
    """``cinder.conf``: one fake back end, quotas of the cloud's own."""
    default = _common(layout, "cinder")
    etc = layout.venv / "etc/cinder"
    default.update(
        host=layout.host,
        my_ip="127.0.0.1",
        auth_strategy="keystone",
        enabled_backends="fake",
        # without it "?name=" filters answer 400
        resource_query_filters_file=str(etc / "resource_filters.json"),
        api_paste_config=str(etc / "api-paste.ini"),
        # else the database's default quota class wins over these
        use_default_quota_class="false",
        quota_volumes="100",
        quota_snapshots="100",
        quota_gigabytes="10000",
    )
    return {
        "DEFAULT": default,
        "database": {"connection": layout.database_url("cinder")},
        "keystone_authtoken": authtoken(layout, "cinder"),
        "nova": keystoneauth(layout, "cinder"),
        "fake": {
            "volume_driver": FAKE_VOLUME_DRIVER,
            "volume_backend_name": "fake",
        },
        "oslo_concurrency": _locks(layout, "cinder"),
        "oslo_messaging_notifications": {"driver": "noop"},
    }


def swift_conf(layout: Layout) -> Sections:
    """``swift.conf``: the hash and one storage policy."""
    return {
        "swift-hash": {
            "swift_hash_path_suffix": layout.swift_hash,
            "swift_hash_path_prefix": layout.swift_hash[::-1],
        },
        "storage-policy:0": {"name": "Policy-0", "default": "yes"},
    }


def swift_server_conf(layout: Layout, server: str) -> Sections:
    """The configuration of Swift server ``server`` (``proxy``,
    ``account``, ``container`` or ``object``)."""
    folder = layout.dir("swift")
    default = {
        "bind_ip": "127.0.0.1",
        "bind_port": str(layout.ports[f"swift-{server}"]),
        # else /etc/swift is read
        "swift_dir": str(folder),
        "workers": "0",
        "log_name": f"swift-{server}",
    }
    if server != "proxy":
        default.update(devices=str(folder / "devices"), mount_check="false")
        return {
            "DEFAULT": default,
            "pipeline:main": {"pipeline": f"{server}-server"},
            f"app:{server}-server": {"use": f"egg:swift#{server}"},
        }
    sections: Sections = {
        "DEFAULT": default,
        "pipeline:main": {"pipeline": SWIFT_PIPELINE},
        "app:proxy-server": {
            "use": "egg:swift#proxy",
            "account_autocreate": "true",
        },
        "filter:authtoken": {
            "paste.filter_factory": (
                "keystonemiddleware.auth_token:filter_factory"
            ),
            "delay_auth_decision": "true",
            **authtoken(layout, "swift"),
        },
        "filter:keystoneauth": {
            "use": "egg:swift#keystoneauth",
            "operator_roles": "admin, member",
        },
    }
    for name in SWIFT_PIPELINE.split():
        if name in ("authtoken", "keystoneauth", "proxy-server"):
            continue
        egg = name.replace("-", "_")
        sections[f"filter:{name}"] = {"use": f"egg:swift#{egg}"}
    # X-Versions-Location (kept versions, which Heat's Swift signal
    # handles use) is refused unless this is on, as in devstack
    sections["filter:versioned_writes"]["allow_versioned_writes"] = "true"
    return sections


def files(layout: Layout) -> dict[Path, str]:
    """Every configuration file of the cloud but Keystone's, by path."""
    out: dict[Path, str] = {
        layout.dir("placement") / "placement.conf": render(
            placement_conf(layout)
        ),
        layout.dir("nova") / "nova.conf": render(nova_conf(layout)),
        layout.dir("glance") / "glance-api.conf": render(glance_conf(layout)),
        layout.dir("neutron") / "neutron.conf": render(neutron_conf(layout)),
        layout.dir("neutron") / "ml2_conf.ini": render(ml2_conf()),
        layout.dir("cinder") / "cinder.conf": render(cinder_conf(layout)),
        layout.dir("cinder") / "keel_cloud_volume.py": (
            FAKE_VOLUME_DRIVER_MODULE
        ),
        layout.dir("swift") / "swift.conf": render(swift_conf(layout)),
    }
    for server in ("proxy", "account", "container", "object"):
        path = layout.dir("swift") / f"{server}-server.conf"
        out[path] = render(swift_server_conf(layout, server))
    return out
