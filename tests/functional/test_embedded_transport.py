"""RPC through keel_heat_core.rpc.transport: in-process and RabbitMQ."""

import threading
import uuid

import oslo_messaging
import pytest
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core.rpc import transport


class Endpoint:
    def __init__(self) -> None:
        self.casts: list[str] = []
        self.cast_seen = threading.Event()

    def echo(self, ctxt, value):
        return {"value": value, "ctxt": ctxt.get("request_id")}

    def remember(self, ctxt, value):
        self.casts.append(value)
        self.cast_seen.set()

    def fail(self, ctxt):
        raise ValueError("nope")


def make_conf(url: str, exchange: str) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    conf([], default_config_files=[])
    conf.set_override("transport_url", url)
    conf.set_override("control_exchange", exchange)
    return conf


def round_trip(conf: cfg.ConfigOpts) -> None:
    topic = f"keel_found_{uuid.uuid4().hex[:8]}"
    endpoint = Endpoint()
    server = transport.get_rpc_server(conf, topic, "host-a", [endpoint])
    server.start()
    try:
        client = transport.get_rpc_client(conf, topic, "1.0", timeout=10)
        reply = client.call({"request_id": "req-1"}, "echo", value=3)
        assert reply == {"value": 3, "ctxt": "req-1"}
        client.cast({}, "remember", value="x")
        assert endpoint.cast_seen.wait(10)
        assert endpoint.casts == ["x"]
        with pytest.raises(ValueError, match="nope"):
            client.call({}, "fail")
    finally:
        server.stop()
        server.wait()
        transport.cleanup()


def test_in_process_transport_round_trip():
    round_trip(make_conf(transport.IN_PROCESS_TRANSPORT_URL, "keel_found"))


def test_transport_is_shared_per_conf():
    conf = make_conf(transport.IN_PROCESS_TRANSPORT_URL, "keel_found")
    try:
        first = transport.get_transport(conf)
        assert transport.get_transport(conf) is first
        other = make_conf(transport.IN_PROCESS_TRANSPORT_URL, "keel_found")
        assert transport.get_transport(other) is not first
    finally:
        transport.cleanup()


def test_notifier_publisher_id():
    conf = make_conf(transport.IN_PROCESS_TRANSPORT_URL, "keel_found")
    conf.set_override("host", "node-1")
    try:
        notifier = transport.get_notifier(conf)
        assert notifier.publisher_id == "orchestration.node-1"
    finally:
        transport.cleanup()


@pytest.mark.rabbit
def test_rabbit_round_trip():
    exchange = f"keel_found_{uuid.uuid4().hex[:8]}"
    round_trip(make_conf("rabbit://guest:guest@127.0.0.1:5672/", exchange))


def test_in_process_listener_takes_a_delivery_made_while_it_waits():
    """A cast sent while the server's listener sleeps is served, and a
    server blocked waiting for messages stops when asked."""
    conf = make_conf(transport.IN_PROCESS_TRANSPORT_URL, "keel_wait")
    topic = f"keel_wait_{uuid.uuid4().hex[:8]}"
    endpoint = Endpoint()
    server = transport.get_rpc_server(conf, topic, "host-a", [endpoint])
    server.start()
    try:
        client = transport.get_rpc_client(conf, topic, "1.0", timeout=10)
        for value in ("a", "b", "c"):
            endpoint.cast_seen.clear()
            client.cast({}, "remember", value=value)
            assert endpoint.cast_seen.wait(10)
        assert endpoint.casts == ["a", "b", "c"]
    finally:
        stopper = threading.Thread(
            target=lambda: (server.stop(), server.wait())
        )
        stopper.start()
        stopper.join(10)
        alive = stopper.is_alive()
        transport.cleanup()
    assert not alive, "the server did not stop"


def test_fake_and_in_process_transports_do_not_meet():
    """oslo.messaging's fake:// keeps its own exchanges: an inproc://
    server never takes a fake:// client's call."""
    topic = f"keel_apart_{uuid.uuid4().hex[:8]}"
    inproc = make_conf(transport.IN_PROCESS_TRANSPORT_URL, "keel_apart")
    server = transport.get_rpc_server(inproc, topic, "host-a", [Endpoint()])
    server.start()
    try:
        fake = make_conf("fake://", "keel_apart")
        client = transport.get_rpc_client(fake, topic, "1.0", timeout=1)
        with pytest.raises(oslo_messaging.MessagingTimeout):
            client.call({}, "echo", value=1)
    finally:
        server.stop()
        server.wait()
        transport.cleanup()
