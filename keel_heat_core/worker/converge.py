"""Starting a traversal: ``converge_stack`` (docs/design/engine.md).

Runs inside the API call on the engine that received it: switch the
stack to the target template under the traversal CAS, choose or insert
the rows, store the graph, create the sync points, cast the leaves. No
sleep between leaf casts; a fixed number of database round trips plus
one insert per new resource.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from typing import Any

from keel_heat_core.convergence.node import Node, graph_to_deps
from keel_heat_core.convergence.sync_point import (
    create_traversal_sync_points,
)
from keel_heat_core.convergence.traversal import (
    build_graph,
    choose_rows,
    is_active,
    leaves_in_cast_order,
)
from keel_heat_core.model import rows as r
from keel_heat_core.plugins import current_hooks
from keel_heat_core.worker import stack_state
from keel_heat_core.worker.deps import WorkerDeps

LOG = logging.getLogger(__name__)

#: leaves cast before converge_stack returns; the rest from a thread
SYNC_LEAF_CASTS = 200

#: actions that switch the stack to a new template
_SWITCH_TEMPLATE = frozenset(
    {r.CREATE, r.ADOPT, r.UPDATE, r.ROLLBACK, r.DELETE, r.RESTORE}
)


def converge_stack(
    deps: WorkerDeps,
    ctxt: Any,
    stack: r.StackRow,
    template_id: int,
    action: str,
    traversal: str | None = None,
    abandon: bool = False,
    adopt_stack_data: Any = None,
    **stack_values: Any,
) -> str | None:
    """Start a traversal of ``stack`` towards ``template_id``.

    :param stack_values: other stack columns to write with the state
        (``disable_rollback``, ``timeout``, …).
    :returns: the new traversal id, or None when a concurrent action won
        or a plugin refused the operation (the stack is then
        ``<ACTION>_FAILED`` with the plugin's reason).
    """
    try:  # plugins see the stack as it is before the operation
        current_hooks().stack_pre_operation(ctxt, stack, action)
    except Exception as exc:
        _refused(deps, ctxt, stack, action, str(exc))
        return None
    previous = stack.current_traversal
    traversal = traversal or str(uuid.uuid4())
    values: dict[str, Any] = dict(stack_values)
    switch = action in _SWITCH_TEMPLATE and action not in (r.CREATE, r.ADOPT)
    if switch and template_id != stack.raw_template_id:
        values["prev_raw_template_id"] = stack.raw_template_id
    if action in _SWITCH_TEMPLATE:
        values["raw_template_id"] = template_id
    if action not in (r.CREATE, r.ADOPT):
        values["updated_at"] = deps.now()
    # Never pair the new traversal id with the old graph: readers between
    # this write and the graph's see no graph and wait for it.
    values.update(
        action=action, current_traversal=traversal, current_deps=None
    )
    stack.action = action
    reason = f"Stack {action} started"
    if not stack_state.set_state(
        deps, ctxt, stack, previous, r.IN_PROGRESS, reason, **values
    ):
        return None
    if previous:
        deps.sync_points.delete_sync_points(stack.id, previous)
    _plan_and_start(deps, ctxt, stack, traversal, abandon, adopt_stack_data)
    return traversal


def _refused(
    deps: WorkerDeps, ctxt: Any, stack: r.StackRow, action: str, reason: str
) -> None:
    """A plugin refused the operation: ``<ACTION>_FAILED`` with its
    reason, and no traversal runs."""
    LOG.info("Stack %s %s refused by a plugin: %s", stack.id, action, reason)
    previous = stack.current_traversal
    stack.action = action
    stack_state.set_state(
        deps,
        ctxt,
        stack,
        previous,
        r.FAILED,
        reason,
        action=action,
        current_traversal="",
    )


def _plan_and_start(
    deps: WorkerDeps,
    ctxt: Any,
    stack: r.StackRow,
    traversal: str,
    abandon: bool = False,
    adopt_stack_data: Any = None,
) -> None:
    definitions = deps.cache.definitions(
        deps.templates, stack.raw_template_id, stack
    )
    # what planning needs of the rows only: none of their data
    active = [
        row for row in deps.resources.get_summaries(stack.id) if is_active(row)
    ]
    chosen, missing = choose_rows(
        definitions,
        active,
        stack.prev_raw_template_id,
        stack.raw_template_id,
    )
    row_ids = {name: row.id for name, row in chosen.items()}
    # the new INIT rows in one transaction
    new_ids = deps.resources.insert_resources(
        r.ResourceRow(
            id=0,
            name=name,
            stack_id=stack.id,
            current_template_id=stack.raw_template_id,
            uuid=str(uuid.uuid4()),
            root_stack_id=stack.id,
            created_at=deps.now(),
        )
        for name in missing
    )
    row_ids.update(zip(missing, new_ids, strict=True))
    dependencies = {
        name: [d for d in defn.dependency_names() if d in definitions]
        for name, defn in definitions.items()
    }
    graph = build_graph(dependencies, row_ids, active)
    current_deps = graph_to_deps(graph)
    if not deps.stacks.update_stack(
        stack.id, traversal, {"current_deps": current_deps}
    ):
        return
    stack.current_deps = current_deps
    create_traversal_sync_points(deps.sync_points, stack.id, traversal, graph)
    leaves = leaves_in_cast_order(graph)
    if not leaves:
        stack_state.mark_complete(deps, ctxt, stack, traversal)
        return

    def cast(nodes: list[Node]) -> None:
        for node in nodes:
            deps.caster.check_resource(
                ctxt,
                node.entity_id,
                traversal,
                {"input_data": {}},
                node.is_update,
                adopt_stack_data=adopt_stack_data,
                node_type=node.node_type,
                abandon=abandon,
            )

    # The caller (create_stack, update_stack: an RPC call with a timeout)
    # waits for the first casts only. With thousands of leaves, casting
    # while this engine's workers already run the first nodes took longer
    # than the API's 60 s RPC timeout on 2 cores; the rest go out from a
    # thread of their own. Should this engine die before they are all
    # out, the uncast leaves are pending nodes the resume pass re-drives.
    cast(leaves[:SYNC_LEAF_CASTS])
    if len(leaves) > SYNC_LEAF_CASTS:
        threading.Thread(
            target=_cast_rest,
            args=(cast, leaves[SYNC_LEAF_CASTS:], stack.id),
            name=f"leaf-casts-{stack.id}",
            daemon=True,
        ).start()


def _cast_rest(
    cast: Callable[[list[Node]], None], nodes: list[Node], stack_id: str
) -> None:
    try:
        cast(nodes)
    except Exception:
        LOG.exception(
            "Casting the leaves of stack %s (the resume pass will)", stack_id
        )


def rollback(deps: WorkerDeps, ctxt: Any, stack: r.StackRow) -> str | None:
    """Start a ROLLBACK traversal to the previous template.

    A failed CREATE has no previous template: it rolls back to an empty
    template of the same version.
    """
    target = stack.prev_raw_template_id
    if target is None:
        target = deps.templates.store_empty_like(stack.raw_template_id)
    return converge_stack(deps, ctxt, stack, target, r.ROLLBACK)
