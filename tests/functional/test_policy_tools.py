"""oslo.policy's command-line tools work on keel-heat's namespace, as
operators run them for Heat's: each is the installed console script,
reading a keel-heat configuration file that names the policy file."""

from __future__ import annotations

import pathlib
import subprocess
import sys

BIN = pathlib.Path(sys.executable).parent


def _tool(
    name: str, *args: str, cwd: pathlib.Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / name), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _conf(tmp_path: pathlib.Path, rules: str) -> str:
    policy = tmp_path / "policy.yaml"
    policy.write_text(rules)
    conf = tmp_path / "keel-heat.conf"
    conf.write_text(f"[oslo_policy]\npolicy_file = {policy}\n")
    return str(conf)


def test_validator_finds_unknown_and_broken_rules(
    tmp_path: pathlib.Path,
) -> None:
    conf = _conf(
        tmp_path,
        '"stacks:create": "role:member"\n'
        '"stacks:no_such_rule": "role:member"\n'
        '"stacks:delete": "rule:project_admin or"\n',
    )
    found = _tool(
        "oslopolicy-validator",
        "--namespace",
        "keel_heat_core",
        "--config-file",
        conf,
        cwd=tmp_path,
    )
    assert found.returncode == 1, found.stderr
    assert "Unknown rule found in policy file: stacks:no_such_rule" in (
        found.stdout
    )
    assert "Failed to parse rule: rule:project_admin or" in found.stdout
    assert "stacks:create" not in found.stdout


def test_validator_accepts_a_good_file(tmp_path: pathlib.Path) -> None:
    conf = _conf(tmp_path, '"stacks:create": "role:member"\n')
    found = _tool(
        "oslopolicy-validator",
        "--namespace",
        "keel_heat_core",
        "--config-file",
        conf,
        cwd=tmp_path,
    )
    assert (found.returncode, found.stdout) == (0, ""), found.stderr


def test_redundant_rules_and_the_effective_policy(
    tmp_path: pathlib.Path,
) -> None:
    conf = _conf(
        tmp_path,
        '"stacks:index": "role:reader and project_id:%(project_id)s"\n'
        '"stacks:create": "role:admin"\n',
    )
    common = ("--namespace", "keel_heat_core", "--config-file", conf)
    redundant = _tool("oslopolicy-list-redundant", *common, cwd=tmp_path)
    assert redundant.returncode == 0, redundant.stderr
    assert '"stacks:index"' in redundant.stdout
    assert "stacks:create" not in redundant.stdout

    effective = _tool("oslopolicy-policy-generator", *common, cwd=tmp_path)
    assert effective.returncode == 0, effective.stderr
    lines = effective.stdout.splitlines()
    assert '"stacks:create": "role:admin"' in lines
    # the installed packs' rules are part of the namespace's policy
    assert (
        '"resource_types:OS::Keystone::Project": "rule:project_admin"' in lines
    )


def test_sample_names_the_packs_rules(tmp_path: pathlib.Path) -> None:
    repo = pathlib.Path(__file__).resolve().parents[2]
    out = tmp_path / "policy.yaml.sample"
    found = _tool(
        "oslopolicy-sample-generator",
        "--config-file",
        str(repo / "etc/oslopolicy/keel-heat-policy-generator.conf"),
        "--output-file",
        str(out),
        cwd=tmp_path,
    )
    assert found.returncode == 0, found.stderr
    sample = out.read_text()
    assert '#"stacks:create": "role:member and project_id:' in sample
    assert '#"resource_types:OS::Keystone::Project": "rule:project_admin"' in (
        sample
    )
