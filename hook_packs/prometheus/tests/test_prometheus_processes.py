"""Several engine processes of one host: values add up, one endpoint.

Each child process is what an engine worker is to this pack: it calls
the hooks through the core's hook manager after ``engine_start``. The
first child binds the port; the second finds it taken, and takes it over
once the first is killed. Both write to one multiprocess directory.
"""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import pytest
import requests
from keel_heat_metrics_prometheus import exposition, options
from oslo_config import cfg
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.slow

CHILD = """
import sys
from oslo_config import cfg
from keel_heat_core import plugins
from keel_heat_metrics_prometheus import hooks, options

port, directory, creates = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
conf = cfg.ConfigOpts()
conf([], default_config_files=[])
options.register_opts(conf)
conf.set_override("bind_port", port, "prometheus")
conf.set_override("multiproc_dir", directory, "prometheus")
conf.set_override("bind_retry_interval", 0.2, "prometheus")
manager = plugins.HookManager()
manager.register(hooks, "keel-heat-metrics-prometheus:prometheus")
manager.check_pending()
manager.engine_start(conf, "engine-" + sys.argv[3])

class Resource:
    def type(self):
        return "OS::Heat::TestResource"

for _ in range(creates):
    manager.resource_action(None, Resource(), "CREATE", lambda: None)
print("bound" if hooks._endpoint.server else "waiting", flush=True)
# one action runs until stdin closes
manager.resource_action(None, Resource(), "CREATE", sys.stdin.read)
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Children:
    def __init__(self, port: int, directory: pathlib.Path) -> None:
        self.port = port
        self.directory = directory
        self.procs: list[subprocess.Popen[str]] = []

    def start(self, creates: int) -> str:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD,
                str(self.port),
                str(self.directory),
                str(creates),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.procs.append(proc)
        assert proc.stdout is not None
        return proc.stdout.readline().strip()


@pytest.fixture
def children(tmp_path) -> Iterator[Children]:
    kids = Children(free_port(), tmp_path / "metrics")
    yield kids
    for proc in kids.procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def scrape(port: int) -> dict[str, float]:
    url = f"http://127.0.0.1:{port}/metrics"
    text = requests.get(url, timeout=10).text
    labels = {"type": "OS::Heat::TestResource", "action": "CREATE"}
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.labels == labels:
                found[sample.name] = sample.value
    return found


def test_values_of_all_processes_add_up_on_one_endpoint(children):
    assert children.start(2) == "bound"
    assert children.start(3) == "waiting"
    both = scrape(children.port)
    assert both["keel_heat_resource_action_seconds_count"] == 5
    assert both["keel_heat_resource_actions_in_progress"] == 2

    first = children.procs[0]
    first.kill()
    first.wait()
    deadline = time.monotonic() + 20
    while True:
        try:
            after = scrape(children.port)
            break
        except requests.ConnectionError:
            assert time.monotonic() < deadline, "no process took the port"
            time.sleep(0.1)
    # the dead process's finished actions still count; its running one
    # ended with it
    assert after["keel_heat_resource_action_seconds_count"] == 5
    assert after["keel_heat_resource_actions_in_progress"] == 1


def test_default_directories_of_ended_services_are_removed(
    tmp_path, monkeypatch
):

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    prefix = f"keel-heat-prometheus-{os.getuid()}-"
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # its pid is no process group any more
    stale = tmp_path / f"{prefix}{ended.pid}"
    stale.mkdir()
    (stale / "counter_1.db").write_bytes(b"")
    conf = cfg.ConfigOpts()
    conf([], default_config_files=[])
    options.register_opts(conf)
    mine = exposition.multiproc_dir(conf)
    assert mine == tmp_path / f"{prefix}{os.getpgid(0)}"
    assert mine.is_dir()
    assert not stale.exists()


def test_an_unusable_directory_turns_metrics_off_not_the_engine(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    script = CHILD.split("\nclass Resource")[0].replace(
        'manager.engine_start(conf, "engine-" + sys.argv[3])',
        'manager.engine_start(conf, "e")\n'
        "print(hooks._metrics is None, hooks._endpoint is None)",
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            str(free_port()),
            str(blocker / "m"),
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True True"
    assert "Prometheus metrics are off in this process" in result.stderr
