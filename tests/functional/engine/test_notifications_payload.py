"""A stack's notifications, read off the real RabbitMQ, name its tags and
its template's description, as Heat's do."""

from __future__ import annotations

import json
import pathlib
import time
from typing import Any

import kombu
import pytest

from keel_heat_core.testing import cloud_setup
from keel_heat_core.testing.cloud import InProcessCloud, NoauthAPI

pytestmark = [pytest.mark.rabbit, pytest.mark.slow]

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "description": "a web tier, for the notification",
    "resources": {"nothing": {"type": "OS::Heat::None"}},
}


def _payloads(queue: Any, want: int, timeout: float = 60.0) -> list[Any]:
    """The notifications' ``(event_type, payload)`` as they arrive, until
    ``want`` of them ended a stack action."""
    found: list[Any] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = queue.get(no_ack=True)
        if message is None:
            if sum(kind.endswith(".end") for kind, _ in found) >= want:
                return found
            time.sleep(0.2)
            continue
        envelope = json.loads(message.body)
        body = json.loads(envelope["oslo.message"])
        found.append((body["event_type"], body["payload"]))
    raise AssertionError(f"only these notifications came: {found}")


def test_notifications_carry_tags_and_description(
    tmp_path: pathlib.Path, rabbit_vhost: str
) -> None:
    with kombu.Connection(
        cloud_setup.rabbit_url(rabbit_vhost, scheme="amqp")
    ) as conn:
        cloud = InProcessCloud(
            tmp_path,
            transport_url=cloud_setup.rabbit_url(rabbit_vhost),
            apis={"member": NoauthAPI("project-n")},
            options={
                ("oslo_messaging_notifications", "driver"): "messagingv2",
                ("DEFAULT", "control_exchange"): "keel_notify",
            },
        )
        try:
            queue = kombu.Queue(
                "keel-notify-tap",
                kombu.Exchange("keel_notify", type="topic", durable=False),
                routing_key="notifications.#",
                durable=False,
            )(conn.channel())
            queue.declare()
            tagged = cloud.create("tagged", TEMPLATE, tags="web,blue")
            cloud.wait_state(tagged, "CREATE_COMPLETE")
            bare = {k: v for k, v in TEMPLATE.items() if k != "description"}
            plain = cloud.create("plain", bare)
            cloud.wait_state(plain, "CREATE_COMPLETE")
            found = _payloads(queue, 2)
        finally:
            cloud.close()

    by_stack = {(p["stack_identity"], kind): p for kind, p in found}
    start = by_stack[(tagged, "orchestration.stack.create.start")]
    end = by_stack[(tagged, "orchestration.stack.create.end")]
    for payload in (start, end):
        assert payload["tags"] == ["web", "blue"]
        assert payload["description"] == "a web tier, for the notification"
    assert end["state"] == "CREATE_COMPLETE"
    untagged = by_stack[(plain, "orchestration.stack.create.end")]
    assert untagged["tags"] == []
    assert untagged["description"] == "No description"
