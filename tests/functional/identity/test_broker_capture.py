"""Issue 5's acceptance: nothing secret crosses the broker.

A Keystone member creates, updates, signals and deletes a stack through
keystonemiddleware and the native API; two engines share the work over
the real RabbitMQ on a private control exchange, with notifications on.
Two captures watch the bus:

* a tap: a queue of our own bound with ``#`` to the control exchange
  (every RPC call and cast, topic and server routing keys, and the
  notifications) and to the ``<topic>_fanout`` exchanges of the engine
  topics, read back from RabbitMQ after the run;
* a hook on kombu's ``Producer.publish``, which every oslo.messaging
  rabbit send goes through, so the replies (sent to the default exchange,
  which no queue can be bound to) are seen as well.

Neither may hold the user's token, the token body (its audit id, the
catalog's endpoint ids), the password, or the keys ``auth_token`` and
``password``; both must have seen the traffic.
"""

from __future__ import annotations

import json
import pathlib
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import kombu
import kombu.messaging
import pytest

from keel_heat_core.service.db_backend import DatabaseBackend
from keel_heat_core.service.engine import EngineService
from keel_heat_core.testing import cloud_setup
from keel_heat_core.testing.keystone import KeystoneServer
from tests.functional.identity.harness import SCALING, KeystoneCloud, wait_for

pytestmark = [pytest.mark.keystone, pytest.mark.rabbit, pytest.mark.slow]

TOPICS = ("engine", "engine_worker", "heat-engine-listener")


def _template(value: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            **SCALING,
            "test": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": value},
            },
        },
        "outputs": {
            "size": {"value": {"get_attr": ["group", "current_size"]}},
            "value": {"value": {"get_attr": ["test", "output"]}},
        },
    }


class PublishHook:
    """Records every message oslo.messaging hands to kombu."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, str]] = []
        self._lock = threading.Lock()

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        original = kombu.messaging.Producer.publish
        hook = self

        def publish(producer: Any, body: Any, *args: Any, **kw: Any) -> Any:
            exchange = kw.get("exchange")
            name = getattr(exchange, "name", exchange) or ""
            text = json.dumps(
                {"body": body, "headers": kw.get("headers")}, default=str
            )
            with hook._lock:
                hook.sent.append((str(name), str(kw.get("routing_key")), text))
            return original(producer, body, *args, **kw)

        monkeypatch.setattr(kombu.messaging.Producer, "publish", publish)


class Tap:
    """A queue bound to the control exchange and the fanout exchanges."""

    def __init__(self, exchange: str, vhost: str) -> None:
        self.exchange = exchange
        self.conn = kombu.Connection(cloud_setup.rabbit_url(vhost, "amqp"))
        channel = self.conn.channel()
        self.queue = kombu.Queue(
            f"{exchange}_tap", channel=channel, auto_delete=False
        )
        self.queue.declare()
        # the same flags as oslo.messaging's (non-durable topic exchange,
        # auto-deleted fanout exchanges), so that both declarations agree
        topic = kombu.Exchange(exchange, type="topic", durable=False)
        topic(channel).declare()
        self.queue.bind_to(exchange=exchange, routing_key="#")
        for name in TOPICS:
            fanout = kombu.Exchange(
                f"{name}_fanout",
                type="fanout",
                durable=False,
                auto_delete=True,
            )
            fanout(channel).declare()
            self.queue.bind_to(exchange=f"{name}_fanout", routing_key=name)

    def drain(self) -> list[tuple[str, str]]:
        out = []
        while True:
            message = self.queue.get(no_ack=True)
            if message is None:
                return out
            body = message.body
            text = body.decode() if isinstance(body, bytes) else str(body)
            out.append((str(message.delivery_info["routing_key"]), text))

    def close(self) -> None:
        try:
            self.queue.delete()
            self.conn.channel().exchange_delete(self.exchange)
        finally:
            self.conn.release()


@pytest.fixture
def hook(monkeypatch: pytest.MonkeyPatch) -> PublishHook:
    found = PublishHook()
    found.install(monkeypatch)
    return found


@pytest.fixture
def rabbit_cloud(
    keystone: KeystoneServer,
    tmp_path: pathlib.Path,
    hook: PublishHook,
    rabbit_vhost: str,
) -> Iterator[tuple[KeystoneCloud, Tap, EngineService]]:
    exchange = f"keel_cap_{uuid.uuid4().hex[:10]}"
    tap = Tap(exchange, rabbit_vhost)
    cloud = KeystoneCloud(
        keystone,
        tmp_path,
        {
            ("DEFAULT", "transport_url"): cloud_setup.rabbit_url(rabbit_vhost),
            ("DEFAULT", "control_exchange"): exchange,
            ("oslo_messaging_notifications", "driver"): "messagingv2",
        },
    )
    second = EngineService(
        cloud.conf,
        str(uuid.uuid4()),
        transport=cloud.transport,
        backend=DatabaseBackend(cloud.conf, cloud.db),
        resume_interval=1.0,
    )
    second.start()
    try:
        yield cloud, tap, second
    finally:
        second.stop()
        second.wait()
        cloud.close()
        tap.close()


def _token_body(keystone: KeystoneServer, token: str) -> dict[str, Any]:
    found = keystone.admin_session().get(
        f"{keystone.v3_url}/auth/tokens", headers={"X-Subject-Token": token}
    )
    body: dict[str, Any] = found.json()["token"]
    return body


def _method(text: str) -> str | None:
    """The RPC method of a captured oslo.messaging envelope."""
    envelope = json.loads(text)
    inner = envelope.get("oslo.message")
    message = json.loads(inner) if isinstance(inner, str) else envelope
    method = message.get("method")
    return None if method is None else str(method)


def _outputs(cloud: KeystoneCloud, user: Any, stack_id: str) -> dict[str, Any]:
    stack = cloud.stack(user, stack_id)
    return {o["output_key"]: o["output_value"] for o in stack["outputs"]}


def test_no_token_or_password_crosses_the_broker(
    rabbit_cloud: tuple[KeystoneCloud, Tap, EngineService],
    keystone: KeystoneServer,
    hook: PublishHook,
) -> None:
    cloud, tap, second = rabbit_cloud
    demo = keystone.demo
    token = cloud.token(demo, fresh=True)
    body = _token_body(keystone, token)
    endpoint_ids = [
        ep["id"]
        for service in body.get("catalog", [])
        for ep in service.get("endpoints", [])
    ]
    assert endpoint_ids and body["audit_ids"]
    secrets = {
        "token": token,
        "password": demo.password,
        "heat's password": keystone.heat.password,
        "domain admin's password": keystone.domain_admin.password,
        **{f"audit id {i}": a for i, a in enumerate(body["audit_ids"])},
        **{f"endpoint {e}": e for e in endpoint_ids},
    }

    stack_id = cloud.create(demo, "captured", _template("one"))
    cloud.wait_state(demo, stack_id, ("CREATE_COMPLETE",))
    status, answer = cloud.request(
        demo, "PUT", cloud.path(stack_id), {"template": _template("two")}
    )
    assert status == 202, answer
    cloud.wait_state(demo, stack_id, ("UPDATE_COMPLETE",))
    assert _outputs(cloud, demo, stack_id)["value"] == "two"
    status, answer = cloud.request(
        demo, "POST", f"{cloud.path(stack_id)}/resources/up/signal", {}
    )
    assert status == 200, answer
    wait_for(
        lambda: _outputs(cloud, demo, stack_id)["size"] == 2,
        60,
        "the group to grow to 2",
    )
    status, answer = cloud.request(demo, "DELETE", cloud.path(stack_id))
    assert status == 204, answer
    cloud.wait_deleted(demo, stack_id)

    tapped = tap.drain()
    published = list(hook.sent)
    tap_text = "\n".join(text for _key, text in tapped)
    hook_text = "\n".join(text for _e, _k, text in published)

    # the captures saw the traffic: the API's calls, the casts of both
    # engines' traversals, the replies, the notifications, the user
    keys = {key for key, _text in tapped}
    assert {"engine", "engine_worker"} <= keys, keys
    assert any(key.startswith("notifications.") for key in keys), keys
    methods = {_method(text) for _key, text in tapped}
    assert {
        "create_stack",
        "update_stack",
        "resource_signal",
        "delete_stack",
        "check_resource",
    } <= methods, methods
    assert "orchestration.stack.update.end" in tap_text
    assert demo.user_id in tap_text and demo.project_id in tap_text
    replies = [p for p in published if p[1].startswith("reply_")]
    assert replies, "no RPC reply was published"
    assert len(published) > len(tapped) > 20

    for text in (tap_text, hook_text):
        for what, secret in secrets.items():
            assert secret not in text, what
        for word in ("auth_token", "password", "X-Auth-Token", "catalog"):
            assert word not in text, word
