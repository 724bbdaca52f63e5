"""The test cloud's pure parts: lock hashing, layout, rendered configs."""

from __future__ import annotations

import configparser
from pathlib import Path

from keel_heat_core.testing.openstack import config, venv
from keel_heat_core.testing.openstack.layout import DATABASES, Layout


def _layout(tmp_path: Path) -> Layout:
    ports = {
        name: 40000 + i
        for i, name in enumerate(
            (
                "keystone",
                "placement",
                "nova",
                "glance",
                "neutron",
                "cinder",
                "swift-proxy",
                "swift-account",
                "swift-container",
                "swift-object",
            )
        )
    }
    return Layout(
        tmp_path / "state",
        tmp_path / "venv",
        "kcdeadbeef_",
        ports=ports,
        service_password="pw",
        swift_hash="abcdef",
    )


def _parse(text: str) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return parser


def test_lock_hash_follows_every_input() -> None:
    base = venv.lock_hash(b"a==1\n", b"c===1\n", "3.11")
    assert base == venv.lock_hash(b"a==1\n", b"c===1\n", "3.11")
    assert base != venv.lock_hash(b"a==2\n", b"c===1\n", "3.11")
    assert base != venv.lock_hash(b"a==1\n", b"c===2\n", "3.11")
    assert base != venv.lock_hash(b"a==1\n", b"c===1\n", "3.12")
    # the two files are hashed apart: moving a line changes the hash
    assert venv.lock_hash(b"a", b"b", "3.11") != venv.lock_hash(
        b"ab", b"", "3.11"
    )


def test_shipped_lock_pins_the_releases() -> None:
    pins = dict(
        line.split("==", 1)
        for line in venv.LOCK_FILE.read_text().split()
        if "==" in line
    )
    assert pins["keystone"] == "30.0.0"
    assert pins["openstack-placement"] == "16.0.0"
    assert pins["nova"] == "34.0.0"
    assert pins["glance"] == "33.0.0"
    assert pins["neutron"] == "29.0.0"
    assert pins["cinder"] == "29.0.0"
    assert pins["swift"] == "2.38.3"
    for extra in ("gunicorn", "PyMySQL", "pyroute2", "python-swiftclient"):
        assert extra in pins
    assert "keystoneauth1===5.16.0" in venv.CONSTRAINTS_FILE.read_text()


def test_layout_names_and_json_round_trip(tmp_path: Path) -> None:
    layout = _layout(tmp_path)
    assert layout.vhost == "kcdeadbeef"
    assert layout.database_url("nova_api") == (
        "mysql+pymysql://root@127.0.0.1:3306/kcdeadbeef_nova_api?charset=utf8"
    )
    assert {layout.database(n) for n in DATABASES} == {
        f"kcdeadbeef_{n}" for n in DATABASES
    }
    assert Layout.from_json(layout.to_json()) == layout
    assert layout.endpoints()["object-store"][1] == (
        "http://127.0.0.1:40006/v1/AUTH_$(project_id)s"
    )


def test_render_puts_default_first_and_spells_booleans() -> None:
    text = config.render({"b": {"x": True}, "DEFAULT": {"y": 1}})
    assert text.splitlines()[:2] == ["[DEFAULT]", "y = 1"]
    assert "x = true" in text


def test_every_file_parses_and_points_at_the_layout(tmp_path: Path) -> None:
    layout = _layout(tmp_path)
    files = config.files(layout)
    for path, text in files.items():
        if path.suffix in (".conf", ".ini"):
            _parse(text)
    nova = _parse(files[layout.dir("nova") / "nova.conf"])
    assert nova["DEFAULT"]["compute_driver"] == (
        "fake.FakeDriverWithoutFakeNodes"
    )
    assert nova["DEFAULT"]["host"] == layout.host
    assert nova["DEFAULT"]["transport_url"].endswith("/kcdeadbeef")
    assert nova["api_database"]["connection"] == layout.database_url(
        "nova_api"
    )
    assert nova["keystone_authtoken"]["service_token_roles"] == "service"
    assert nova["cinder"]["os_region_name"] == "RegionOne"
    glance = _parse(files[layout.dir("glance") / "glance-api.conf"])
    assert glance["import_filtering_opts"]["allowed_ports"] == "[]"
    cinder = _parse(files[layout.dir("cinder") / "cinder.conf"])
    assert cinder["fake"]["volume_driver"] == config.FAKE_VOLUME_DRIVER
    module = files[layout.dir("cinder") / "keel_cloud_volume.py"]
    compile(module, "keel_cloud_volume.py", "exec")
    assert "return {}, True" in module


def test_swift_proxy_pipeline_has_a_section_per_filter(
    tmp_path: Path,
) -> None:
    layout = _layout(tmp_path)
    proxy = _parse(config.render(config.swift_server_conf(layout, "proxy")))
    assert proxy["DEFAULT"]["bind_port"] == "40006"
    for name in proxy["pipeline:main"]["pipeline"].split()[:-1]:
        assert proxy.has_section(f"filter:{name}"), name
    assert "cache" not in proxy["pipeline:main"]["pipeline"].split()
    obj = _parse(config.render(config.swift_server_conf(layout, "object")))
    assert obj["DEFAULT"]["mount_check"] == "false"
    assert obj["app:object-server"]["use"] == "egg:swift#object"
