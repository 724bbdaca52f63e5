"""keel-heat-engine as a process: cotyledon workers, SIGHUP, SIGTERM."""

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

RUNNER = (
    "import sys\n"
    "from keel_heat_core.cmd import engine\n"
    "from tests.functional.embedded_stubs import FakeEngine\n"
    "sys.exit(engine.main(sys.argv[1:], factory=FakeEngine))\n"
)


def wait_for(log: pathlib.Path, text: str, count: int = 1) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        output = log.read_text()
        if output.count(text) >= count:
            return output
        time.sleep(0.1)
    raise AssertionError(f"{text!r} x{count} not seen in:\n{output}")


@pytest.fixture
def engine(tmp_path):
    conf = tmp_path / "engine.conf"
    conf.write_text("[DEFAULT]\nnum_engine_workers = 2\ndebug = false\n")
    log = tmp_path / "engine.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", RUNNER, "--config-file", str(conf)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            start_new_session=True,
        )
    yield proc, conf, log
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_workers_reload_and_stop(engine):
    proc, conf, log = engine
    wait_for(log, "fake engine", 2)
    output = wait_for(log, "started", 2)
    engine_ids = {
        line.split("fake engine ")[1].split()[0]
        for line in output.splitlines()
        if "fake engine" in line
    }
    assert len(engine_ids) == 2

    conf.write_text("[DEFAULT]\nnum_engine_workers = 2\ndebug = true\n")
    proc.send_signal(signal.SIGHUP)
    wait_for(log, "reloaded its configuration", 3)
    assert proc.poll() is None

    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    output = wait_for(log, "stopped", 2)
    # The same engines stopped: SIGHUP did not restart the workers.
    for engine_id in engine_ids:
        assert f"fake engine {engine_id} stopped" in output
