"""osprofiler traces and Guru Meditation Reports of a running keel-heat.

keel-heat-all runs with ``[profiler]`` sending spans to the machine's
Redis; a request signed with the configured HMAC key (as ``openstack
--os-profile <key>`` signs it) must leave one trace holding the API's
``wsgi`` span, the engine's ``rpc`` span and ``db`` spans, all under the
request's base id. SIGUSR2 must make the process write a report of its
threads and carry on serving.
"""

from __future__ import annotations

import pathlib
import signal
import socket
import time

import pytest
import requests
from osprofiler import profiler, web
from osprofiler.drivers import base as profiler_drivers

from keel_heat_core.testing.cloud import BIN
from tests.functional import embedded_stubs

REDIS = "redis://127.0.0.1:6379"
KEY = "trace-secret"


def _redis_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=2).close()
    except OSError:
        return False
    return True


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    if not _redis_up():  # CI starts Redis; a developer's machine may not
        pytest.skip("no Redis on 127.0.0.1:6379 for the traces")
    directory = tmp_path_factory.mktemp("diagnostics")
    conf = directory / "keel-heat.conf"
    conf.write_text(
        embedded_stubs.ports_config(directory).read_text()
        + "[profiler]\nenabled = true\n"
        + f"hmac_keys = {KEY}\nconnection_string = {REDIS}\n"
        + "trace_sqlalchemy = true\n"
    )
    running = embedded_stubs.start(
        [str(BIN / "keel-heat-all"), "--config-file", str(conf)],
        directory,
        {"KEEL_HEAT_STATE_DIR": str(directory / "state")},
    )
    try:
        yield running
    finally:
        assert running.stop() == 0, running.output()


def _spans(report: dict, out: list[dict] | None = None) -> list[dict]:
    out = [] if out is None else out
    for child in report.get("children", []):
        out.append(child)
        _spans(child, out)
    return out


def test_a_signed_request_is_traced_through_api_engine_and_db(server):
    profiler.init(KEY)
    try:
        headers = web.get_trace_id_headers()
        base_id = profiler.get().get_base_id()
    finally:
        profiler.clean()
    url = server.native_url + "/v1/embedded/stacks"
    answer = requests.get(url, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text

    driver = profiler_drivers.get_driver(REDIS)
    deadline = time.monotonic() + 20
    names: set[str] = set()
    while time.monotonic() < deadline:
        spans = _spans(driver.get_report(base_id))
        names = {span["info"]["name"] for span in spans}
        if {"wsgi", "rpc", "db"} <= names:
            break
        time.sleep(0.5)
    assert {"wsgi", "rpc", "db"} <= names, names
    by_name = {span["info"]["name"]: span for span in spans}
    assert by_name["wsgi"]["info"]["meta.raw_payload.wsgi-start"]["info"][
        "request"
    ]["path"].endswith("/stacks")
    rpc = by_name["rpc"]["info"]["meta.raw_payload.rpc-start"]["info"]
    assert rpc["function"]["name"].endswith("list_stacks")
    # the trace's HMAC key never travels with the context on the bus
    assert KEY not in pathlib.Path(server.log).read_text()


def test_a_request_signed_with_another_key_leaves_no_trace(server):
    profiler.init("not-" + KEY)
    try:
        headers = web.get_trace_id_headers()
        base_id = profiler.get().get_base_id()
    finally:
        profiler.clean()
    answer = requests.get(
        server.native_url + "/v1/embedded/stacks", headers=headers, timeout=30
    )
    assert answer.status_code == 200
    time.sleep(2)  # what a traced request wrote is there by now
    driver = profiler_drivers.get_driver(REDIS)
    assert _spans(driver.get_report(base_id)) == []


def test_sigusr2_writes_a_guru_meditation_report(server):
    server.proc.send_signal(signal.SIGUSR2)
    deadline = time.monotonic() + 20
    while "Guru Meditation" not in server.output():
        assert time.monotonic() < deadline, server.output()[-2000:]
        time.sleep(0.2)
    time.sleep(1)
    report = server.output()
    assert "Threads" in report and "Configuration" in report
    assert "keel-heat-core" in report
    # it carries on serving
    answer = requests.get(server.native_url + "/v1/embedded/stacks")
    assert answer.status_code == 200
