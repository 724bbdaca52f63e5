"""Endpoints of the ``engine_worker`` and listener topics."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import oslo_messaging

from keel_heat_core.worker.check_resource import CheckResource

LOG = logging.getLogger(__name__)

#: listener messages (Heat's THREAD_CANCEL, THREAD_CANCEL_WITH_ROLLBACK)
CANCEL_MESSAGES = frozenset({"cancel", "cancel_with_rollback"})


def _stack_id(stack_identity: Any) -> str:
    if isinstance(stack_identity, Mapping):
        return str(stack_identity["stack_id"])
    return str(stack_identity)


class WorkerEndpoint:
    """``engine_worker`` API 1.9.

    :param check: this engine's :class:`CheckResource`.
    """

    target = oslo_messaging.Target(version="1.9")

    def __init__(self, check: CheckResource) -> None:
        self._check = check

    def check_resource(
        self,
        ctxt: Any,
        resource_id: int | str,
        current_traversal: str,
        data: dict[str, Any],
        is_update: bool,
        adopt_stack_data: Any,
        converge: bool = False,
        skip_propagate: bool = False,
        accumulated_failures: Any = None,
        node_type: str = "resource",
        abandon: bool = False,
    ) -> None:
        """Process one traversal node (runs for the whole operation)."""
        if node_type != "resource":
            LOG.warning("Snapshot nodes are not handled yet: %s", resource_id)
            return
        try:
            self._check(
                ctxt,
                int(resource_id),
                current_traversal,
                data,
                is_update,
                adopt_stack_data,
                converge,
                skip_propagate,
                accumulated_failures,
                node_type,
                abandon,
            )
        except Exception:
            LOG.exception("check_resource %s failed", resource_id)

    def cancel_check_resource(self, ctxt: Any, stack_id: str) -> None:
        """Abort this engine's running operations on a stack."""
        self._check.cancel_stack(stack_id)

    def stack_finished(self, ctxt: Any, stack_id: str) -> None:
        """A nested stack's state is final (keel-heat's fanout): wake the
        parent resource here that waits for it."""
        self._check.stack_finished(stack_id)


class ListenerEndpoint:
    """``heat-engine-listener.<engine_id>`` API 1.0."""

    target = oslo_messaging.Target(version="1.0")

    def __init__(self, check: CheckResource) -> None:
        self._check = check

    def listening(self, ctxt: Any) -> bool:
        """The liveness probe: always true while the process serves."""
        return True

    def stop_stack(self, ctxt: Any, stack_identity: Any) -> None:
        """Stop this engine's work on a stack."""
        self._check.cancel_stack(_stack_id(stack_identity))

    def send(self, ctxt: Any, stack_identity: Any, message: str) -> None:
        """Deliver ``cancel``/``cancel_with_rollback`` to local work."""
        if message in CANCEL_MESSAGES:
            self._check.cancel_stack(_stack_id(stack_identity))
        else:
            LOG.error('Unknown message "%s" received', message)
