"""Client of the ``engine_worker`` topic (worker API 1.9, casts only).

Engines cast ``check_resource`` to any engine (no server) and
``cancel_check_resource`` to the engine holding a lock (server =
engine_id), with Heat's method names, argument names and versions, so
keel-heat and Python Heat engines can share one bus. One cast is keel-heat's
own: ``stack_finished``, a fanout when a nested stack's traversal ends
(a Heat engine on the same bus logs it as an unknown method).
"""

from __future__ import annotations

from typing import Any

import oslo_messaging

from keel_heat_core.context import BusContextSerializer
from keel_heat_core.rpc.payload import PayloadSerializer

TOPIC = "engine_worker"
BASE_VERSION = "1.0"
VERSION = "1.9"


def serializer() -> BusContextSerializer:
    """The serializer every keel-heat RPC client and server uses."""
    return BusContextSerializer(PayloadSerializer())


class WorkerClient:
    """Casts to engine workers.

    :param transport: the RPC transport.
    :param topic: Heat's ``engine_worker`` unless a test isolates itself.
    """

    def __init__(
        self, transport: oslo_messaging.Transport, topic: str = TOPIC
    ) -> None:
        target = oslo_messaging.Target(topic=topic, version=BASE_VERSION)
        self._client = oslo_messaging.get_rpc_client(
            transport, target, serializer=serializer()
        )

    def check_resource(
        self,
        ctxt: Any,
        resource_id: int | str,
        current_traversal: str,
        data: dict[str, Any],
        is_update: bool,
        adopt_stack_data: Any = None,
        converge: bool = False,
        skip_propagate: bool = False,
        accumulated_failures: Any = None,
        node_type: str = "resource",
        abandon: bool = False,
    ) -> None:
        """Cast one traversal node to any engine."""
        self._client.prepare(version="1.9").cast(
            ctxt or {},
            "check_resource",
            resource_id=resource_id,
            current_traversal=current_traversal,
            data=data,
            is_update=is_update,
            adopt_stack_data=adopt_stack_data,
            converge=converge,
            skip_propagate=skip_propagate,
            accumulated_failures=accumulated_failures,
            node_type=node_type,
            abandon=abandon,
        )

    def cancel_check_resource(
        self, ctxt: Any, stack_id: str, engine_id: str
    ) -> None:
        """Ask one engine to cancel its operations on a stack."""
        self._client.prepare(server=engine_id, version="1.3").cast(
            ctxt or {}, "cancel_check_resource", stack_id=stack_id
        )

    def stack_finished(self, ctxt: Any, stack_id: str) -> None:
        """Tell every engine that a nested stack's state is final.

        A keel-heat extension of the worker API: the engines wake the
        parent resource waiting for that stack instead of letting it
        find out at its next poll (``worker/wake.py``).
        """
        self._client.prepare(fanout=True, version="1.9").cast(
            ctxt or {}, "stack_finished", stack_id=stack_id
        )

    def check_resource_delete_snapshot(
        self,
        ctxt: Any,
        snapshot_id: str,
        resource_name: str,
        start_time: str,
        is_stack_delete: bool,
        current_traversal: str,
    ) -> None:
        """Cast the deletion of one resource's snapshot data."""
        self._client.prepare(version="1.7").cast(
            ctxt or {},
            "check_resource_delete_snapshot",
            snapshot_id=snapshot_id,
            resource_name=resource_name,
            start_time=start_time,
            is_stack_delete=is_stack_delete,
            current_traversal=current_traversal,
        )
