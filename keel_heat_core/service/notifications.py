"""Stack notifications with Heat's event types and payload.

``orchestration.stack.<action>.start|end|error`` on every persisted stack
state: IN_PROGRESS → ``start``, COMPLETE → ``end``, FAILED → ``error``
(at level ERROR; the others at ``default_notification_level``). Nothing
is sent unless ``[oslo_messaging_notifications] driver`` is set.

The payload names the stack's tags (None when it has none, as Heat) and
its template's description. Neither is on the stack row: the notifier
asks a ``details`` callable for them, and only when it sends.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.service.views import timestamp

LOG = logging.getLogger(__name__)

_PHASE = {r.IN_PROGRESS: "start", r.COMPLETE: "end", r.FAILED: "error"}


#: ``(tags or None, template description)`` of a stack
Details = Callable[[r.StackRow], tuple[list[str] | None, str]]


def stack_payload(
    ctxt: Any,
    stack: r.StackRow,
    tags: list[str] | None = None,
    description: str = "",
) -> dict[str, Any]:
    """The payload Heat's stack notifications carry."""
    return {
        "tenant_id": stack.tenant,
        "user_id": getattr(ctxt, "username", None) or stack.username,
        "user_identity": getattr(ctxt, "user_id", None),
        "username": getattr(ctxt, "username", None) or stack.username,
        "stack_identity": stack.id,
        "stack_name": stack.name,
        "state": f"{stack.action}_{stack.status}",
        "state_reason": stack.status_reason,
        "create_at": timestamp(stack.created_at),
        "updated_at": timestamp(stack.updated_at),
        "tags": list(tags or ()),  # Heat sends [] for none
        "description": description,
    }


def event_type(stack: r.StackRow) -> str | None:
    """``orchestration.stack.<action>.<phase>``, or None."""
    phase = _PHASE.get(stack.status)
    if phase is None:
        return None
    return f"orchestration.stack.{stack.action.lower()}.{phase}"


class StackNotifier:
    """The worker's ``Notifier`` over an ``oslo_messaging.Notifier``.

    :param notifier: an oslo.messaging notifier (or None: send nothing).
    :param default_level: ``default_notification_level`` (``INFO``).
    :param details: the stack's tags and template description; without
        it they are sent as None and "".
    """

    def __init__(
        self,
        notifier: Any,
        default_level: str = "INFO",
        details: Details | None = None,
    ) -> None:
        self._notifier = notifier
        self._level = default_level.lower()
        self._details = details

    def stack_state(self, ctxt: Any, stack: r.StackRow) -> None:
        kind = event_type(stack)
        if self._notifier is None or kind is None:
            return
        level = "error" if stack.status == r.FAILED else self._level
        try:
            tags, description = (
                self._details(stack) if self._details else (None, "")
            )
            getattr(self._notifier, level)(
                ctxt or {},
                kind,
                stack_payload(ctxt, stack, tags, description),
            )
        except Exception:
            LOG.exception("Sending %s failed", kind)
