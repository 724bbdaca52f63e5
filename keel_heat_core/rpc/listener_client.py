"""Client of ``heat-engine-listener.<engine_id>`` (listener API 1.0).

``listening`` is the liveness probe behind lock stealing: an engine that
does not answer within ``engine_life_check_timeout`` (2 s) is dead.
"""

from __future__ import annotations

import logging
from typing import Any

import oslo_messaging

from keel_heat_core.rpc.worker_client import serializer

LOG = logging.getLogger(__name__)

TOPIC = "heat-engine-listener"
VERSION = "1.0"
#: Heat's ``engine_life_check_timeout``
LIFE_CHECK_TIMEOUT = 2


class ListenerClient:
    """Calls one engine's listener.

    :param transport: the RPC transport.
    :param timeout: seconds to wait for ``listening``.
    :param topic: Heat's topic unless a test isolates itself.
    """

    def __init__(
        self,
        transport: oslo_messaging.Transport,
        timeout: float = LIFE_CHECK_TIMEOUT,
        topic: str = TOPIC,
    ) -> None:
        self._transport = transport
        self._timeout = timeout
        self._topic = topic

    def _client(self, engine_id: str) -> Any:
        target = oslo_messaging.Target(
            topic=self._topic, server=engine_id, version=VERSION
        )
        return oslo_messaging.get_rpc_client(
            self._transport,
            target,
            serializer=serializer(),
            timeout=self._timeout,
        )

    def is_alive(self, engine_id: str, ctxt: Any = None) -> bool:
        """True when ``engine_id`` answers ``listening`` in time."""
        try:
            return bool(self._client(engine_id).call(ctxt or {}, "listening"))
        except oslo_messaging.MessagingTimeout:
            return False
        except oslo_messaging.MessagingException:
            LOG.warning("Liveness probe of %s failed", engine_id)
            return False

    def stop_stack(
        self, ctxt: Any, engine_id: str, stack_identity: Any
    ) -> None:
        """Ask ``engine_id`` to stop its work on a stack."""
        self._client(engine_id).call(
            ctxt or {}, "stop_stack", stack_identity=stack_identity
        )

    def send(
        self, ctxt: Any, engine_id: str, stack_identity: Any, message: str
    ) -> None:
        """Send ``cancel`` or ``cancel_with_rollback`` to ``engine_id``."""
        self._client(engine_id).call(
            ctxt or {}, "send", stack_identity=stack_identity, message=message
        )
