"""Two engines share a traversal over a real RabbitMQ; a capture queue
bound to the exchange sees every message and none carries a secret."""

import json
import time
import uuid
from collections.abc import Iterator

import kombu
import oslo_messaging
import pytest
from oslo_config import cfg
from oslo_messaging import opts as messaging_opts
from oslo_messaging._metrics import client as metrics
from oslo_messaging._tracing import client as tracing

from keel_heat_core.conf import register_opts
from keel_heat_core.context import RequestContext
from keel_heat_core.model import rows as r
from keel_heat_core.rpc.listener_client import ListenerClient
from keel_heat_core.service.engine import EngineService
from keel_heat_core.worker.converge import converge_stack
from tests.unit.engine.memory_backend import MemoryBackend
from tests.unit.worker.fakes import Harness

pytestmark = [pytest.mark.rabbit, pytest.mark.slow]

URL = "rabbit://guest:guest@127.0.0.1:5672/"
AMQP_URL = "amqp://guest:guest@127.0.0.1:5672//"
SECRETS = ("SECRET-TOKEN-1234", "SECRET-PASSWORD-5678", "SECRET-CATALOG")


def make_conf(exchange: str) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    register_opts(conf)
    conf.register_opts(
        tracing.oslo_messaging_tracing, group="oslo_messaging_tracing"
    )
    conf.register_opts(
        metrics.oslo_messaging_metrics, group="oslo_messaging_metrics"
    )
    for group, opts in messaging_opts.list_opts():
        conf.register_opts(opts, group=group)
    conf([], project="keel-heat-test")
    conf.set_override("control_exchange", exchange)
    return conf


@pytest.fixture
def exchange() -> Iterator[str]:
    name = f"keel_eng_{uuid.uuid4().hex[:10]}"
    yield name
    with kombu.Connection(AMQP_URL) as conn:
        channel = conn.channel()
        for exch in (name, f"{name}_fanout"):
            try:
                channel.exchange_delete(exch)
            except Exception:
                channel = conn.channel()


def wait_for(predicate, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def test_create_update_delete_over_rabbit(exchange: str) -> None:
    captured: list[bytes] = []
    with kombu.Connection(AMQP_URL) as capture_conn:
        exch = kombu.Exchange(exchange, type="topic", durable=False)
        queue = kombu.Queue(
            f"{exchange}_capture",
            exchange=exch,
            routing_key="#",
            auto_delete=True,
        )
        bound = queue(capture_conn.channel())
        bound.declare()

        h = Harness()
        backend = MemoryBackend(h)
        engines = []
        transports = []
        for _ in range(2):
            conf = make_conf(exchange)
            transport = oslo_messaging.get_rpc_transport(conf, url=URL)
            transports.append(transport)
            engine = EngineService(
                conf,
                str(uuid.uuid4()),
                transport=transport,
                backend=backend,
                resume_interval=1.0,
                topic_prefix=exchange + ".",
            )
            engine.start()
            engines.append(engine)
        try:
            ctxt = RequestContext(
                username="demo",
                password=SECRETS[1],
                auth_token=SECRETS[0],
                auth_token_info={"token": {"catalog": [SECRETS[2]]}},
                user_id="u-1",
                project_id="p-1",
            )
            resources = {
                f"r{i}": {"properties": {"value": str(i)}} for i in range(6)
            }
            resources["top"] = {"depends_on": list(resources)}
            tid = h.templates.store(resources)
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

            def go(template_id: int, action: str) -> None:
                row = h.stores.get_stack(stack.id)
                converge_stack(deps, ctxt, row, template_id, action)

            go(tid, "CREATE")
            wait_for(lambda: h.state(stack.id) == "CREATE_COMPLETE")
            handled = {e.engine_id for e in engines}
            assert len(h.cloud.objects) == 7
            resources.pop("r5")
            resources["top"] = {"depends_on": list(resources)[:-1]}
            go(h.templates.store(resources), "UPDATE")
            wait_for(lambda: h.state(stack.id) == "UPDATE_COMPLETE")
            assert len(h.cloud.objects) == 6
            go(h.templates.store({}), "DELETE")
            wait_for(lambda: h.state(stack.id) == "DELETE_COMPLETE")
            assert h.cloud.objects == {}
            probe = ListenerClient(
                transports[0], topic=f"{exchange}.heat-engine-listener"
            )
            assert all(probe.is_alive(e) for e in handled)
        finally:
            for engine in engines:
                engine.stop()
                engine.wait()
            for transport in transports:
                transport.cleanup()
        while True:
            message = bound.get(no_ack=True)
            if message is None:
                break
            captured.append(message.body)
    assert len(captured) > 20  # every cast and call went through the tap
    text = b"\n".join(
        m if isinstance(m, bytes) else json.dumps(m).encode() for m in captured
    )
    assert b"check_resource" in text
    assert b"_context_user" in text or b"u-1" in text
    for secret in SECRETS:
        assert secret.encode() not in text
    assert b"auth_token" not in text
    assert b"password" not in text
