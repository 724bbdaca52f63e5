"""The metrics of a real engine: keel-heat-all with this pack installed.

keel-heat-all runs the API and one engine in one process on the embedded
SQLite database. Stacks of OS::Heat::TestResource and RandomString are
created, updated and deleted through the native API, then the metrics
endpoint is scraped and read back with prometheus_client's parser.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.slow

ALL = pathlib.Path(sys.executable).with_name("keel-heat-all")
READY = re.compile(r"keel-heat-all ready: native API (http://\S+)/ ")
SERVING = re.compile(r"Serving Prometheus metrics on (http://\S+/metrics)")
TEST = "OS::Heat::TestResource"
RANDOM = "OS::Heat::RandomString"


class Engine:
    def __init__(self, proc: subprocess.Popen[str], log: pathlib.Path):
        self.proc = proc
        self.log = log
        self.api = ""
        self.metrics = ""

    def output(self) -> str:
        return self.log.read_text()


def start(directory: pathlib.Path, extra: str = "") -> Engine:
    conf = directory / "keel-heat.conf"
    conf.write_text(
        "[heat_api]\nbind_port = 0\n[heat_api_cfn]\nbind_port = 0\n"
        "[prometheus]\nbind_port = 0\n"
        f"multiproc_dir = {directory / 'metrics'}\n{extra}"
    )
    log = directory / "keel-heat-all.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(ALL), "--config-file", str(conf)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=directory,
            env={**os.environ, "KEEL_HEAT_STATE_DIR": str(directory / "st")},
            text=True,
            start_new_session=True,
        )
    engine = Engine(proc, log)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        ready = READY.search(engine.output())
        if ready:
            engine.api = ready.group(1) + "/v1/embedded"
            serving = SERVING.search(engine.output())
            engine.metrics = serving.group(1) if serving else ""
            return engine
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    stop(engine)
    raise AssertionError(f"keel-heat-all did not start:\n{engine.output()}")


def stop(engine: Engine) -> None:
    if engine.proc.poll() is None:
        engine.proc.send_signal(signal.SIGTERM)
        try:
            engine.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(engine.proc.pid, signal.SIGKILL)
            engine.proc.wait()


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> Iterator[Engine]:
    directory = tmp_path_factory.mktemp("prometheus-engine")
    running = start(directory)
    yield running
    stop(running)
    shutil.rmtree(directory, ignore_errors=True)


def scrape(engine: Engine) -> dict[tuple[str, frozenset[Any]], float]:
    """Every sample of the endpoint: (name, labels) -> value."""
    response = requests.get(engine.metrics, timeout=10)
    assert response.status_code == 200
    samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            key = (sample.name, frozenset(sample.labels.items()))
            samples[key] = sample.value
    return samples


def sample(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def template(resources: dict[str, Any]) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": resources}


def wait_stack(engine: Engine, url: str, status: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        response = requests.get(url, timeout=10)
        if response.status_code == 404 and status == "DELETE_COMPLETE":
            return {"stack_status": status}
        stack = response.json()["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS"):
            assert stack["stack_status"] == status, stack
            return dict(stack)
        time.sleep(0.2)
    raise AssertionError(f"{url} not {status}:\n{engine.output()[-3000:]}")


def create(engine: Engine, resources: dict[str, Any], status: str) -> str:
    name = f"m-{uuid.uuid4().hex[:8]}"
    response = requests.post(
        f"{engine.api}/stacks",
        json={"stack_name": name, "template": template(resources)},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    url = f"{engine.api}/stacks/{name}/{response.json()['stack']['id']}"
    wait_stack(engine, url, status)
    return url


def delta(before, after, name, **labels) -> float:
    return sample(after, name, **labels) - sample(before, name, **labels)


def test_create_update_delete_move_the_metrics(engine):
    before = scrape(engine)
    resources = {
        f"t{i}": {"type": TEST, "properties": {"value": "a"}} for i in range(3)
    }
    resources["rand"] = {"type": RANDOM, "properties": {"length": 8}}
    url = create(engine, resources, "CREATE_COMPLETE")
    created = scrape(engine)
    seconds = "keel_heat_resource_action_seconds_count"
    assert delta(before, created, seconds, type=TEST, action="CREATE") == 3
    assert delta(before, created, seconds, type=RANDOM, action="CREATE") == 1
    ops = "keel_heat_stack_operations_total"
    assert delta(before, created, ops, action="CREATE", status="COMPLETE") == 1
    assert (
        delta(
            before,
            created,
            "keel_heat_stack_operation_seconds_count",
            action="CREATE",
        )
        == 1
    )
    # a stack event and a resource event at each state change
    assert (
        delta(before, created, "keel_heat_events_total", status="COMPLETE")
        == 5
    )
    assert (
        delta(
            before,
            created,
            "keel_heat_rpc_call_seconds_count",
            method="create_stack",
        )
        == 1
    )

    body = {
        "template": template(
            {**resources, "t0": {"type": TEST, "properties": {"value": "b"}}}
        )
    }
    response = requests.patch(url, json=body, timeout=30)
    assert response.status_code == 202, response.text
    wait_stack(engine, url, "UPDATE_COMPLETE")
    updated = scrape(engine)
    assert delta(created, updated, seconds, type=TEST, action="UPDATE") == 1
    assert (
        delta(created, updated, ops, action="UPDATE", status="COMPLETE") == 1
    )

    assert requests.delete(url, timeout=30).status_code == 204
    wait_stack(engine, url, "DELETE_COMPLETE")
    deleted = scrape(engine)
    assert delta(updated, deleted, seconds, type=TEST, action="DELETE") == 3
    assert delta(updated, deleted, seconds, type=RANDOM, action="DELETE") == 1
    assert (
        delta(updated, deleted, ops, action="DELETE", status="COMPLETE") == 1
    )
    for action in ("CREATE", "UPDATE", "DELETE"):
        assert (
            sample(
                deleted,
                "keel_heat_stack_operations_in_progress",
                action=action,
            )
            == 0
        )
        for kind in (TEST, RANDOM):
            assert (
                sample(
                    deleted,
                    "keel_heat_resource_actions_in_progress",
                    type=kind,
                    action=action,
                )
                == 0
            )


def test_a_failing_resource_counts_a_failure(engine):
    before = scrape(engine)
    resources = {
        "ok": {"type": TEST, "properties": {"value": "x"}},
        "bad": {"type": TEST, "properties": {"fail": True}},
    }
    url = create(engine, resources, "CREATE_FAILED")
    after = scrape(engine)
    failures = "keel_heat_resource_action_failures_total"
    assert delta(before, after, failures, type=TEST, action="CREATE") == 1
    assert (
        delta(
            before,
            after,
            "keel_heat_stack_operations_total",
            action="CREATE",
            status="FAILED",
        )
        == 1
    )
    assert delta(before, after, "keel_heat_events_total", status="FAILED") >= 2
    assert (
        sample(
            after,
            "keel_heat_resource_actions_in_progress",
            type=TEST,
            action="CREATE",
        )
        == 0
    )
    # rollback is off by default: the stack stays CREATE_FAILED
    assert requests.delete(url, timeout=30).status_code == 204
    wait_stack(engine, url, "DELETE_COMPLETE")


def test_rpc_errors_are_counted_by_method(engine):
    before = scrape(engine)
    missing = f"{engine.api}/stacks/no-such-stack"
    assert requests.get(missing, timeout=10).status_code == 404
    after = scrape(engine)
    errors = "keel_heat_rpc_call_errors_total"
    assert delta(before, after, errors, method="identify_stack") == 1
