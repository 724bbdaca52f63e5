"""The ``inproc://`` oslo.messaging driver: the embedded mode's bus.

oslo.messaging's ``fake://`` driver passes messages in memory, but its
listeners look for a message every 50 ms and sleep in between: each RPC
call of the embedded API waits 25 ms on average (50 at worst) before the
engine sees it, and so does every ``check_resource`` cast of a
traversal. This driver keeps the fake driver's queues and semantics (one
process, messages as JSON-serialisable dicts, exchanges shared by every
transport of the process) and wakes a waiting listener as soon as a
message is delivered.

It is found by oslo.messaging through the ``oslo.messaging.drivers``
entry point ``inproc``; ``[DEFAULT] transport_url = inproc://`` selects
it (the embedded default).
"""

from __future__ import annotations

import threading
import time
from typing import Any, ClassVar

import oslo_messaging
from oslo_messaging._drivers import base, impl_fake

#: The longest a listener sleeps without a delivery (it wakes at once
#: on one); bounds how late a stopped listener notices.
IDLE_WAIT = 0.5


class _Exchange(impl_fake.FakeExchange):  # type: ignore[misc]
    """The fake driver's exchange, ringing the bell on each delivery."""

    def __init__(self, name: str, arrived: threading.Condition) -> None:
        super().__init__(name)
        self._arrived = arrived

    def deliver_message(self, *args: Any, **kwargs: Any) -> None:
        super().deliver_message(*args, **kwargs)
        with self._arrived:
            self._arrived.notify_all()


class _Exchanges(impl_fake.FakeExchangeManager):  # type: ignore[misc]
    """This driver's exchanges, process-wide as the fake driver's are,
    but apart from them (a ``fake://`` transport never sees them)."""

    _exchanges_lock = threading.Lock()
    _exchanges: ClassVar[dict[str, Any]] = {}
    #: notified after every delivery to any exchange of the process
    arrived = threading.Condition()

    def get_exchange(self, name: str | None) -> Any:
        key = name if name is not None else self._default_exchange
        with self._exchanges_lock:
            found = self._exchanges.get(key)
            if found is None:
                found = self._exchanges[key] = _Exchange(key, self.arrived)
            return found


class _Listener(impl_fake.FakeListener):  # type: ignore[misc]
    """Waits on the deliveries' condition instead of polling."""

    @base.batch_poll_helper  # type: ignore[untyped-decorator]
    def poll(self, timeout: float | None = None) -> Any:
        deadline = None if timeout is None else time.monotonic() + timeout
        arrived = self._exchange_manager.arrived
        while not self._stopped.is_set():
            with arrived:
                # checked under the condition's lock: a delivery made
                # after this look notifies only once we wait
                for target in self._targets:
                    exchange = self._exchange_manager.get_exchange(
                        target.exchange
                    )
                    ctxt, message, reply_q, requeue = exchange.poll(
                        target, self._pool
                    )
                    if message is not None:
                        return impl_fake.FakeIncomingMessage(
                            ctxt, message, reply_q, requeue
                        )
                wait = IDLE_WAIT
                if deadline is not None:
                    wait = min(wait, deadline - time.monotonic())
                    if wait <= 0:
                        return None
                arrived.wait(wait)
        return None

    def stop(self) -> None:
        super().stop()
        arrived = self._exchange_manager.arrived
        with arrived:
            arrived.notify_all()


class InProcessDriver(impl_fake.FakeDriver):  # type: ignore[misc]
    """oslo.messaging driver for one process: the fake driver's queues,
    listeners that wake on delivery."""

    def __init__(
        self,
        conf: Any,
        url: Any,
        default_exchange: str | None = None,
        allowed_remote_exmods: Any = None,
    ) -> None:
        super().__init__(conf, url, default_exchange, allowed_remote_exmods)
        self._exchange_manager = _Exchanges(default_exchange)

    def listen(self, target: Any, batch_size: int, batch_timeout: Any) -> Any:
        exchange = target.exchange or self._default_exchange
        # the server's own queue and the topic's shared one
        targets = [
            oslo_messaging.Target(
                topic=target.topic, server=target.server, exchange=exchange
            ),
            oslo_messaging.Target(topic=target.topic, exchange=exchange),
        ]
        listener = _Listener(self._exchange_manager, targets)
        return base.PollStyleListenerAdapter(
            listener, batch_size, batch_timeout
        )

    def listen_for_notifications(
        self,
        targets_and_priorities: Any,
        pool: Any,
        batch_size: int,
        batch_timeout: Any,
    ) -> Any:
        targets = [
            oslo_messaging.Target(
                topic=f"{target.topic}.{priority}", exchange=target.exchange
            )
            for target, priority in targets_and_priorities
        ]
        listener = _Listener(self._exchange_manager, targets, pool)
        return base.PollStyleListenerAdapter(
            listener, batch_size, batch_timeout
        )

    def cleanup(self) -> None:
        # as the fake driver: undelivered messages go with the transport
        with _Exchanges._exchanges_lock:
            _Exchanges._exchanges.clear()
