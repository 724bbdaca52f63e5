"""EngineService over oslo.messaging's in-process transport."""

import time
import uuid
from collections.abc import Iterator

import oslo_messaging
import pytest
from oslo_config import cfg
from oslo_messaging._metrics import client as metrics
from oslo_messaging._tracing import client as tracing

from keel_heat_core.conf import register_opts
from keel_heat_core.model import rows as r
from keel_heat_core.rpc.listener_client import ListenerClient
from keel_heat_core.service.engine import EngineService
from keel_heat_core.worker.converge import converge_stack
from tests.unit.engine.memory_backend import MemoryBackend
from tests.unit.worker.fakes import Harness

CHAIN = {
    "a": {"properties": {"value": "1", "polls": 2}},
    "b": {"properties": {"value": "2"}, "depends_on": ["a"]},
    "c": {"properties": {"value": "3"}, "depends_on": ["a"]},
    "d": {"properties": {"value": "4"}, "depends_on": ["b", "c"]},
}


def make_conf() -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    register_opts(conf)
    conf.register_opts(
        tracing.oslo_messaging_tracing, group="oslo_messaging_tracing"
    )
    conf.register_opts(
        metrics.oslo_messaging_metrics, group="oslo_messaging_metrics"
    )
    conf([], project="keel-heat-test")
    return conf


@pytest.fixture
def transport() -> Iterator[oslo_messaging.Transport]:
    conf = make_conf()
    transport = oslo_messaging.get_rpc_transport(conf, url="fake://")
    yield transport
    transport.cleanup()


def wait_for(predicate, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError("timed out waiting")


def start_engines(
    transport: oslo_messaging.Transport, backend: MemoryBackend, count: int
) -> list[EngineService]:
    engines = []
    for _ in range(count):
        conf = make_conf()
        engine = EngineService(
            conf,
            str(uuid.uuid4()),
            transport=transport,
            backend=backend,
            resume_interval=0.2,
        )
        engine.start()
        engines.append(engine)
    return engines


def test_two_engines_run_a_traversal_over_the_bus(
    transport: oslo_messaging.Transport,
) -> None:
    h = Harness()
    backend = MemoryBackend(h)
    engines = start_engines(transport, backend, 2)
    try:
        tid = h.templates.store(CHAIN)
        stack = r.StackRow(
            id=str(uuid.uuid4()),
            name="s",
            action="CREATE",
            status="IN_PROGRESS",
            status_reason="",
            raw_template_id=tid,
            current_traversal="",
        )
        h.stores.stacks[stack.id] = stack
        deps = backend.deps[engines[0].engine_id]
        converge_stack(deps, None, h.stores.get_stack(stack.id), tid, "CREATE")
        wait_for(lambda: h.state(stack.id) == "CREATE_COMPLETE")
        rows = h.rows(stack.id)
        assert {x.status for x in rows.values()} == {"COMPLETE"}
        assert len(h.cloud.objects) == 4
    finally:
        for engine in engines:
            engine.stop()
            engine.wait()


def test_listening_probe(transport: oslo_messaging.Transport) -> None:
    h = Harness()
    engines = start_engines(transport, MemoryBackend(h), 1)
    try:
        probe = ListenerClient(transport, timeout=0.5)
        assert probe.is_alive(engines[0].engine_id)
        started = time.monotonic()
        assert not probe.is_alive(str(uuid.uuid4()))
        assert time.monotonic() - started < 5
    finally:
        engines[0].stop()
        engines[0].wait()
