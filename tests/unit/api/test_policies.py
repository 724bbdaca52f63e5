"""Policy in code: Heat 27's 100 defaults and the enforcer."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import unittest.mock

from oslo_config import cfg
from oslo_policy import policy

from keel_heat_core import policies
from keel_heat_core.context import RequestContext as ApiRequestContext
from keel_heat_core.policies import enforcer as enforcer_mod
from keel_heat_core.policies.enforcer import Enforcer, PolicyDenied

READER = "role:reader and project_id:%(project_id)s"
MEMBER = "role:member and project_id:%(project_id)s"


def rules() -> dict[str, str]:
    return {r.name: r.check_str for r in policies.list_rules()}


def test_one_hundred_rules() -> None:
    assert len(policies.list_rules()) == 100
    assert len(rules()) == 100


def test_notable_defaults() -> None:
    r = rules()
    assert r["stacks:global_index"] == "rule:deny_everybody"
    assert r["stacks:validate_template"] == MEMBER
    assert r["actions:check"] == READER
    assert r["resource:signal"].startswith("(" + READER + ") or (")
    assert r["service:index"] == "role:admin and project_id:%(project_id)s"
    assert r["resource_types:OS::Keystone::*"] == "rule:project_admin"
    assert r["stacks:update_no_change"] == "rule:stacks:update_patch"


def _ctx(roles: list[str], project: str = "p") -> ApiRequestContext:
    return ApiRequestContext(
        project_id=project, user_id="u", roles=roles, is_admin_project=True
    )


def enforcer() -> Enforcer:
    conf = cfg.ConfigOpts()
    conf([], project="keel-heat-test")
    return Enforcer(conf)


def test_reader_and_member() -> None:
    enf = enforcer()
    target = {"project_id": "p"}
    assert enf.check(_ctx(["reader"]), "stacks:index", target)
    assert not enf.check(_ctx(["reader"]), "stacks:create", target)
    assert enf.check(_ctx(["member"]), "stacks:create", target)
    assert not enf.check(
        _ctx(["member"]), "stacks:create", {"project_id": "q"}
    )


def test_unregistered_api_rule_denies() -> None:
    assert not enforcer().check(_ctx(["admin"]), "stacks:nothing", {})


def test_admin_detection() -> None:
    enf = enforcer()
    assert enf.check_is_admin(_ctx(["admin"]))
    assert not enf.check_is_admin(_ctx(["member"]))


def test_resource_types_and_wildcards() -> None:
    enf = enforcer()
    member = _ctx(["member"])
    enf.enforce_resource_type(member, "OS::Heat::None")
    for name, denied in (
        ("OS::Nova::Flavor", "resource_types:OS::Nova::Flavor"),
        # A type no pack registers: only the wildcard denies it.
        ("OS::Keystone::NoSuchType", "OS::Keystone::NoSuchType"),
    ):
        try:
            enf.enforce_resource_type(member, name)
        except PolicyDenied as err:
            assert err.action == denied
        else:
            raise AssertionError(name + " allowed")
    enf.enforce_resource_type(_ctx(["admin"]), "OS::Keystone::NoSuchType")


def test_sample_generator_works() -> None:
    out = subprocess.run(
        [
            str(
                pathlib.Path(sys.executable).parent
                / "oslopolicy-sample-generator"
            ),
            "--namespace",
            "keel_heat_core",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert '#"stacks:create": "role:member and project_id:%(project_id)s"' in (
        out.stdout
    )


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _loaded_enforcer(
    tmp_path: pathlib.Path,
) -> tuple[Enforcer, pathlib.Path, _Clock]:
    """An enforcer over a policy file letting readers list stacks, with a
    clock of the test's, after its first check (which loads the file)."""
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text('"stacks:index": "role:reader"\n')
    conf = cfg.ConfigOpts()
    conf([], project="keel-heat-test")
    enf = Enforcer(conf, policy_file=str(policy_file))
    clock = _Clock()
    enf.enforcer.clock = clock
    assert enf.check(_ctx(["reader"]), "stacks:index", {"project_id": "p"})
    return enf, policy_file, clock


def test_a_changed_policy_file_takes_effect_within_the_interval(
    tmp_path: pathlib.Path,
) -> None:
    enf, policy_file, clock = _loaded_enforcer(tmp_path)
    policy_file.write_text('"stacks:index": "!"\n')
    # the mtime must differ for oslo.policy's file cache to read it again
    stat = policy_file.stat()
    os.utime(policy_file, (stat.st_atime, stat.st_mtime + 5))
    reader = _ctx(["reader"])
    clock.now += enforcer_mod.RELOAD_INTERVAL / 2
    assert enf.check(reader, "stacks:index", {"project_id": "p"})
    clock.now += enforcer_mod.RELOAD_INTERVAL
    assert not enf.check(reader, "stacks:index", {"project_id": "p"})


def test_checks_within_the_interval_do_not_look_at_the_files(
    tmp_path: pathlib.Path,
) -> None:
    enf, policy_file, _clock = _loaded_enforcer(tmp_path)
    policy_file.unlink()  # a look at the files now would miss it
    loads: list[bool] = []
    real = policy.Enforcer.load_rules

    def counting(self: object, force_reload: bool = False) -> None:
        loads.append(force_reload)
        real(self, force_reload)

    reader = _ctx(["reader"])
    with unittest.mock.patch.object(policy.Enforcer, "load_rules", counting):
        for _ in range(20):
            assert enf.check(reader, "stacks:index", {"project_id": "p"})
        assert loads == []
        enf.enforcer.load_rules(force_reload=True)
        assert loads == [True]
