"""Resources with an ``external_id`` (HOT 2016-10-14 and later).

Such a resource adopts an existing physical resource instead of creating
one: its create is an ``ADOPT`` of that id followed by a ``CHECK``; it is
never updated (the row only moves to the new template); changing or
adding the ``external_id`` on update fails the resource's update; its
deletion policy is always ``Retain`` (``template/rsrc_defn.py``), so a
stack delete leaves the physical resource alone.
"""

from __future__ import annotations

import threading
from typing import Any

from keel_heat_core import exception
from keel_heat_core.model import rows as r
from keel_heat_core.worker.resource import (
    ConvergenceResource,
    ResourceActionFailed,
    failure_text,
)


def external_id_of(definition: Any) -> Any:
    """The definition's ``external_id``, or None."""
    return getattr(definition, "external_id", None)


def adopt_external(
    rsrc: ConvergenceResource,
    template_id: int,
    requires: list[int],
    deadline: float | None,
    cancel: threading.Event,
    interval: float,
) -> bool:
    """Adopt the external physical resource; False when there is none."""
    external_id = external_id_of(rsrc.definition)
    if external_id is None:
        return False
    rsrc.adopt(
        template_id,
        requires,
        {"resource_id": str(external_id)},
        deadline,
        cancel,
        interval,
    )
    rsrc.stack_action(r.CHECK, deadline, cancel, interval)
    return True


def skip_update(
    rsrc: ConvergenceResource,
    old: Any,
    template_id: int,
    requires: list[int],
) -> bool:
    """Handle ``external_id`` on update; True when the update is done.

    :raises ResourceActionFailed: the ``external_id`` changed (Heat's
        ``NotSupported``, the resource state is left as it is).
    """
    new_id = external_id_of(rsrc.definition)
    if old is not None and external_id_of(old) != new_id:
        feature = (
            f"Update to property external_id of {rsrc.name} "
            f"({rsrc.definition.resource_type})"
        )
        text = failure_text(exception.NotSupported(feature=feature), rsrc.name)
        raise ResourceActionFailed(r.UPDATE, text)
    if new_id is None:
        return False
    rsrc.keep(template_id, requires)
    return True
