"""Breakpoints: resources that pause at a hook until a signal clears it.

An environment's ``resource_registry.resources.<name or glob>.hooks``
names hooks (``pre-create`` … ``post-delete``, as in Heat's
environments). When a
node reaches a hook that is set for its resource, the resource records
the event ``<ACTION> paused until Hook <hook> is cleared`` and the
``resource_data`` marker ``<hook> = "True"`` (Heat's format), and the
node *parks*: it returns without propagating, so no engine thread waits
for the user. The node stays pending in the database (its sync point is
complete, its successors' are not), which is all the state there is:

* a signal ``{"unset_hook": "<hook>"}`` (any engine) removes the marker,
  records ``Hook <hook> is cleared`` and re-casts the parked node with
  its stored input data (:func:`resume_parked`);
* the node then passes the hook because a companion item
  (:data:`TRAVERSAL_KEY`) says the hook was reached in this traversal and
  the marker is gone; a new traversal (a later update) pauses again;
* the resumer (``docs/design/resume.md``) does not re-drive a parked
  node (:func:`is_parked`); a duplicate cast of one parks again silently;
* an engine restart loses nothing: the marker, the companion and the
  sync points are rows.

Heat blocks a thread on the hook and, like any of its lost nodes, never
resumes a pause whose engine died.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.plugin_api import protocol as lifecycle

LOG = logging.getLogger(__name__)

PRE_CREATE = "pre-create"
PRE_UPDATE = "pre-update"
PRE_DELETE = "pre-delete"
POST_CREATE = "post-create"
POST_UPDATE = "post-update"
POST_DELETE = "post-delete"

#: Heat's marker value of a hook the resource waits on
PAUSED = "True"
#: hooks met by the cleanup node (the others by the update node)
DELETE_HOOKS = frozenset({PRE_DELETE, POST_DELETE})


def traversal_key(hook: str) -> str:
    """The ``resource_data`` key of the traversal a hook was reached in."""
    return f"keel-heat:hook-traversal:{hook}"


#: prefix of the companion items (left out of abandon data)
TRAVERSAL_KEY = "keel-heat:hook-traversal:"


class Parked(Exception):  # noqa: N818 - control flow, never escapes
    """The node waits at a hook; it returns without propagating."""

    def __init__(self, hook: str) -> None:
        self.hook = hook
        super().__init__(hook)


def _registry(definition: Any) -> Any:
    stored = getattr(definition, "stored", None)
    env = getattr(stored, "env", None)
    return getattr(env, "registry", None)


def hook_set(definition: Any, name: str, hook: str) -> bool:
    """Whether the environment sets ``hook`` on resource ``name``."""
    registry = _registry(definition)
    matches = getattr(registry, "matches_hook", None)
    return bool(matches(name, hook)) if matches is not None else False


def user_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """Resource data without the engine's companion items."""
    return {k: v for k, v in data.items() if not k.startswith(TRAVERSAL_KEY)}


def break_if_required(
    rsrc: Any, stack: r.StackRow, action: str, hook: str
) -> None:
    """Pause ``rsrc`` at ``hook`` unless it passed it in this traversal.

    :param rsrc: the :class:`~keel_heat_core.worker.resource.
        ConvergenceResource` of the node.
    :param stack: the stack row (its ``current_traversal``).
    :param action: the resource action named in the event (``CREATE``...).
    :raises Parked: the node must return and wait for the signal.
    """
    if not hook_set(rsrc.definition, rsrc.name, hook):
        return
    plugin = rsrc.plugin
    if not lifecycle.has_data(plugin):
        return  # a bare plugin object (unit tests) has no resource data
    data = plugin.data()
    traversal = stack.current_traversal
    if data.get(traversal_key(hook)) == traversal:
        if data.get(hook) != PAUSED:
            return  # cleared in this traversal: go on
        raise Parked(hook)  # a second delivery of a parked node
    plugin.data_set(traversal_key(hook), traversal)
    plugin.data_set(hook, PAUSED)
    row = rsrc.row
    rsrc._event(
        row.action, row.status, f"{action} paused until Hook {hook} is cleared"
    )
    LOG.info("Reached hook %s on %s of stack %s", hook, row.name, stack.id)
    raise Parked(hook)


def is_parked(data: Mapping[str, Any], traversal: str) -> bool:
    """Whether resource data shows a node parked in ``traversal``."""
    return any(
        data.get(traversal_key(hook)) == traversal and data.get(hook) == PAUSED
        for hook in (
            PRE_CREATE,
            PRE_UPDATE,
            PRE_DELETE,
            POST_CREATE,
            POST_UPDATE,
            POST_DELETE,
        )
    )


def resume_parked(
    ctxt: Any,
    caster: Any,
    sync_points: Any,
    stack: r.StackRow,
    row: r.ResourceRow,
    hook: str,
    paused_in: str | None,
) -> bool:
    """Re-cast the node parked at ``hook`` after the hook was cleared.

    Only when the stack still runs the traversal the resource paused in:
    a pause of a superseded traversal is simply cleared.

    :returns: True when a cast went out.
    """
    traversal = stack.current_traversal
    if (
        not paused_in
        or paused_in != traversal
        or stack.status != r.IN_PROGRESS
    ):
        return False
    is_update = hook not in DELETE_HOOKS
    point = sync_points.get_sync_point(str(row.id), traversal, is_update)
    data = {"input_data": dict(point.input_data) if point else {}}
    caster.check_resource(ctxt, row.id, traversal, data, is_update)
    return True
