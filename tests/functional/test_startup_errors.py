"""A command that cannot start because of its configuration or its
surroundings says why in one line naming the option or address, and
exits non-zero, with no traceback (as Heat's commands do)."""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys

import pytest

BIN = pathlib.Path(sys.executable).parent
PORTS = (
    "[heat_api]\nbind_host = 127.0.0.1\nbind_port = 0\n"
    "[heat_api_cfn]\nbind_host = 127.0.0.1\nbind_port = 0\n"
)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(
    tmp_path: pathlib.Path, command: str, conf_text: str, *args: str
) -> tuple[int, str]:
    conf = tmp_path / "keel-heat.conf"
    conf.write_text(conf_text)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "KEEL_HEAT_STATE_DIR": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [str(BIN / command), "--config-file", str(conf), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def _one_line(output: str, command: str) -> str:
    assert "Traceback" not in output, output[-3000:]
    last = output.strip().splitlines()[-1]
    assert last.startswith(f"{command}: "), output[-3000:]
    # every line is a log line or the last one: no dump of any kind
    assert len(output.strip().splitlines()) <= 20, output
    return last


@pytest.mark.parametrize("command", ["keel-heat-all", "keel-heat-engine"])
def test_database_that_does_not_answer(
    tmp_path: pathlib.Path, command: str
) -> None:
    port = _closed_port()
    url = f"mysql+pymysql://keel:s3cret@127.0.0.1:{port}/keel"
    status, output = _run(
        tmp_path, command, f"{PORTS}[database]\nconnection = {url}\n"
    )
    assert status == 1
    line = _one_line(output, command)
    assert "cannot connect to the database" in line
    assert f"127.0.0.1:{port}/keel ([database] connection)" in line
    assert "s3cret" not in output


def test_database_url_of_no_driver(tmp_path: pathlib.Path) -> None:
    status, output = _run(
        tmp_path,
        "keel-heat-all",
        f"{PORTS}[database]\nconnection = postgresql+nodriver://x/y\n",
    )
    assert status == 1
    line = _one_line(output, "keel-heat-all")
    assert line == (
        "keel-heat-all: [database] connection postgresql+nodriver://x/y: "
        "no such database dialect or driver"
    )


def test_engine_on_a_database_never_synced(tmp_path: pathlib.Path) -> None:
    url = f"sqlite:///{tmp_path}/empty.sqlite"
    status, output = _run(
        tmp_path, "keel-heat-engine", f"[database]\nconnection = {url}\n"
    )
    assert status == 1
    assert _one_line(output, "keel-heat-engine") == (
        f"keel-heat-engine: the database {url} has no keel-heat schema: "
        "run `keel-heat-manage db sync`"
    )


def test_port_in_use(tmp_path: pathlib.Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, output = _run(
            tmp_path,
            "keel-heat-all",
            f"[heat_api]\nbind_host = 127.0.0.1\nbind_port = {port}\n"
            "[heat_api_cfn]\nbind_host = 127.0.0.1\nbind_port = 0\n",
        )
    assert status == 1
    assert _one_line(output, "keel-heat-all") == (
        f"keel-heat-all: cannot listen on 127.0.0.1:{port} ([heat_api] "
        "bind_host, bind_port): the address is already in use"
    )


def test_port_that_is_not_a_number(tmp_path: pathlib.Path) -> None:
    status, output = _run(
        tmp_path, "keel-heat-all", "[heat_api]\nbind_port = eighty\n"
    )
    assert status == 1
    line = _one_line(output, "keel-heat-all")
    assert "Value for option bind_port" in line and "eighty" in line


def test_manage_on_a_database_never_synced(tmp_path: pathlib.Path) -> None:
    url = f"sqlite:///{tmp_path}/empty.sqlite"
    status, output = _run(
        tmp_path,
        "keel-heat-manage",
        f"[database]\nconnection = {url}\n",
        "service",
        "list",
    )
    assert status == 1
    assert _one_line(output, "keel-heat-manage") == (
        f"keel-heat-manage: the database {url} has no keel-heat schema or "
        "an old one: run `keel-heat-manage db sync`"
    )
