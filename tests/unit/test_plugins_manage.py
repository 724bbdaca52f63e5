"""keel-heat-manage packs list/check and keel-heat-status, in-process."""

import importlib.metadata as metadata
import json

import pytest
from oslo_config import cfg

from keel_heat_core.cmd import manage, status
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from keel_heat_core.plugins import registry as reg
from tests.unit.test_plugins_registry import make_dist


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    real = reg.discover

    def discover(distributions=None):
        return real(metadata.distributions(path=[str(tmp_path)]))

    monkeypatch.setattr(reg, "discover", discover)
    return tmp_path


def run(module, *argv):
    return module.main(list(argv), conf=cfg.ConfigOpts())


def test_packs_list_table(site, capsys):
    make_dist(
        site,
        "keel-heat-pack-demo",
        "1.4.2",
        {
            reg.RESOURCES: {
                "OS::Demo::A": "kd_mod:A",
                "OS::Demo::B": "kd_mod:B",
            },
            reg.CLIENTS: {"demo": "kd_mod:C"},
        },
        {"kd_mod": "A = B = C = object\n"},
    )
    make_dist(
        site,
        "keel-heat-pack-broken",
        "0.1",
        {reg.RESOURCES: {"OS::Broken::X": "kd_missing:X"}},
    )
    assert run(manage, "packs", "list", "--long") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == [
        "Distribution",
        "Version",
        "Types",
        "Clients",
        "Constraints",
        "Templates",
        "Enabled",
        "Errors",
    ]
    assert [
        "keel-heat-pack-demo",
        "1.4.2",
        "2",
        "1",
        "0",
        "0",
        "yes",
        "0",
    ] in [line.split() for line in lines]
    assert [
        "keel-heat-pack-broken",
        "0.1",
        "1",
        "0",
        "0",
        "0",
        "yes",
        "1",
    ] in [line.split() for line in lines]
    assert "keel-heat-pack-demo: keel_heat.resources: OS::Demo::A" in out
    assert "OS::Broken::X" in out and "ModuleNotFoundError" in out


def test_packs_list_json(site, capsys):
    make_dist(
        site,
        "p",
        "2",
        {reg.RESOURCES: {"OS::P": "kp_j:P"}},
        {"kp_j": "P = 1\n"},
    )
    assert run(manage, "packs", "list", "--format", "json") == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows == [
        {
            "distribution": "p",
            "version": "2",
            "types": 1,
            "clients": 0,
            "constraints": 0,
            "templates": 0,
            "enabled": True,
            "load_errors": {},
            "names": ["keel_heat.resources: OS::P"],
        }
    ]


def test_packs_check_fails_on_load_error(site, capsys):
    make_dist(site, "p", "1", {reg.RESOURCES: {"OS::P": "kp_gone:P"}})
    assert run(manage, "packs", "check") == 1
    assert "OS::P" in capsys.readouterr().err


def test_packs_check_fails_on_duplicate(site, capsys):
    for name in ("p-one", "p-two"):
        make_dist(site, name, "1", {reg.RESOURCES: {"OS::D": "m:D"}})
    assert run(manage, "packs", "check") == 1
    err = capsys.readouterr().err
    assert "p-one 1" in err and "p-two 1" in err


def test_packs_check_passes(site, capsys):
    make_dist(
        site,
        "p",
        "1",
        {reg.RESOURCES: {"OS::P": "kp_ok2:P"}},
        {"kp_ok2": "P = 1\n"},
    )
    assert run(manage, "packs", "check") == 0
    assert "1 plugins load without error" in capsys.readouterr().out


def test_group_without_subcommand(site, capsys):
    assert run(manage, "packs") == 2
    assert "sub-command is required" in capsys.readouterr().err


def _status_conf(tmp_path, database):
    path = tmp_path / "k.conf"
    path.write_text(
        f"[DEFAULT]\nauth_encryption_key = {'x' * 32}\n"
        "stack_user_domain_name = heat\nstack_domain_admin = a\n"
        "stack_domain_admin_password = p\n"
        f"[database]\nconnection = sqlite:///{database}\n"
    )
    return str(path)


def test_status_upgrade_check(site, tmp_path, capsys):
    migrated = tmp_path / "migrated.sqlite"
    db = Database(f"sqlite:///{migrated}")
    runner.upgrade(db.engine)
    db.engine.dispose()
    conf = _status_conf(tmp_path, migrated)
    assert run(status, "--config-file", conf, "upgrade", "check") == 0
    out = capsys.readouterr().out
    assert "Upgrade Check Results" in out and "Failure" not in out

    path = tmp_path / "bad.conf"
    path.write_text("[DEFAULT]\nauth_encryption_key = short\n")
    assert run(status, "--config-file", str(path), "upgrade", "check") == 2
    out = capsys.readouterr().out
    assert "auth_encryption_key must be 32 characters" in out
    assert "[database] connection is not set" in out


def test_status_refuses_an_unmigrated_database(site, tmp_path, capsys):
    conf = _status_conf(tmp_path, tmp_path / "empty.sqlite")
    argv = ("--config-file", conf, "upgrade", "check", "--json")
    assert run(status, *argv) == 2
    answer = json.loads(capsys.readouterr().out)
    results = {c["check"]: c for c in answer["checks"]}
    assert results["Database"]["result"] == 2
    assert (
        "no keel-heat schema: run `keel-heat-manage db sync`"
        in (results["Database"]["details"])
    )
    assert results["Encryption key"]["result"] == 0
    assert "Policy File JSON to YAML Migration" in results
