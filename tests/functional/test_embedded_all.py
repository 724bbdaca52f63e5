"""keel-heat-all as a process, with stand-ins for the engine and the API.

These tests hold whatever the API and engine do: they check the process
(state directory, key, ports, signals) and the exact OSC invocation of
the README against a stub that answers like Heat's API.
"""

import contextlib
import os
import pathlib
import stat
import sys
import urllib.request

import pytest

from tests.functional import embedded_stubs

ROOT = pathlib.Path(__file__).resolve().parents[2]
OPENSTACK = pathlib.Path(sys.executable).with_name("openstack")


def stub_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "tests.functional.embedded_stubs", *args]


def stub_env(state: pathlib.Path) -> dict[str, str]:
    return {
        "KEEL_HEAT_STATE_DIR": str(state),
        "PYTHONPATH": str(ROOT),
    }


@pytest.fixture
def running(tmp_path):
    conf = embedded_stubs.ports_config(tmp_path)
    server = embedded_stubs.start(
        stub_command("--config-file", str(conf)),
        tmp_path,
        stub_env(tmp_path / "state"),
    )
    yield server
    server.stop()


def osc(*args: str, env: dict[str, str] | None = None) -> str:
    import subprocess

    clean = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    result = subprocess.run(
        [str(OPENSTACK), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, **(env or {})},
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_state_dir_and_generated_key(running, tmp_path):
    key_file = tmp_path / "state" / "auth_encryption_key"
    key = key_file.read_text()
    assert len(key) == 32
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert running.native_url.startswith("http://127.0.0.1:")
    assert running.cfn_url.startswith("http://127.0.0.1:")
    assert running.native_url != running.cfn_url


def test_key_survives_restart(tmp_path):
    conf = embedded_stubs.ports_config(tmp_path)
    env = stub_env(tmp_path / "state")
    first = embedded_stubs.start(
        stub_command("--config-file", str(conf)), tmp_path, env
    )
    first.stop()
    key = (tmp_path / "state" / "auth_encryption_key").read_text()
    second = embedded_stubs.start(
        stub_command("--config-file", str(conf)), tmp_path, env
    )
    second.stop()
    assert (tmp_path / "state" / "auth_encryption_key").read_text() == key


def test_sigterm_stops_gracefully(running):
    with urllib.request.urlopen(running.native_url + "/v1/p/build_info") as r:
        assert r.status == 200
    assert running.stop() == 0
    output = running.output()
    assert "stopping on signal 15" in output
    assert "fake engine" in output and "stopped" in output


def test_osc_noauth_flags(running):
    endpoint = f"{running.native_url}/v1/admin"
    out = osc(
        "--os-auth-type",
        "none",
        "--os-endpoint",
        endpoint,
        "orchestration",
        "build",
        "info",
        "-f",
        "json",
    )
    assert '"revision": "stub"' in out
    out = osc(
        "--os-auth-type",
        "none",
        "--os-endpoint",
        endpoint,
        "orchestration",
        "template",
        "version",
        "list",
        "-f",
        "value",
    )
    assert "heat_template_version.2013-05-23 hot" in out
    assert "GET /v1/admin/template_versions" in running.output()


def test_osc_noauth_environment(running):
    env = {
        "OS_AUTH_TYPE": "none",
        "OS_ENDPOINT": f"{running.native_url}/v1/admin",
    }
    out = osc("orchestration", "build", "info", "-f", "json", env=env)
    assert '"revision": "stub"' in out


def test_embedded_database_is_created(running, tmp_path):
    import sqlite3

    path = tmp_path / "state" / "keel-heat.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        tables = {
            row[0]
            for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            )
        }
    assert {"stack", "resource", "event", "alembic_version"} <= tables
