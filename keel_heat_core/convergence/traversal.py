"""Planning a traversal: which rows it drives and in what order.

This is the graph-building step of Heat's ``converge_stack`` (see
docs/design/engine.md, "Starting a traversal") as
pure functions: given the target template's resources (names and the names
each depends on) and the stack's *active* resource rows, choose the row
each template resource converges, then build the graph of update and
cleanup nodes.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence

from keel_heat_core.convergence.node import (
    SNAPSHOT,
    Node,
    cleanup_node,
    update_node,
)
from keel_heat_core.graph import Graph
from keel_heat_core.model.rows import RowSummary

_EPOCH = datetime.datetime.min


def is_active(row: RowSummary) -> bool:
    """Rows other than ``DELETE_COMPLETE`` take part in a traversal."""
    return not (row.action == "DELETE" and row.status == "COMPLETE")


def suitability(
    row: RowSummary, prev_template_id: int | None, target_template_id: int
) -> tuple[int, datetime.datetime]:
    """Heat's score for reusing ``row`` (higher is better).

    FAILED rows and rows being deleted are avoided, replaced rows slightly
    so; rows of the previous template (the live resource) and, stronger,
    rows of the target template (a rollback returning to an original) are
    preferred. Ties go to the most recently updated row.
    """
    score = 0
    if row.status == "FAILED":
        score -= 30
    if row.action == "DELETE":
        score -= 50
    if row.replaced_by:
        score -= 1
    if row.current_template_id == prev_template_id:
        score += 5
    if row.current_template_id == target_template_id:
        score += 10
    return score, row.updated_at or row.created_at or _EPOCH


def choose_rows(
    names: Iterable[str],
    rows: Iterable[RowSummary],
    prev_template_id: int | None,
    target_template_id: int,
) -> tuple[dict[str, RowSummary], list[str]]:
    """Pick the row each template resource converges.

    :param names: the target template's resource names.
    :param rows: the stack's active rows.
    :returns: ``(chosen, missing)``: the chosen row per name and the names
        that need a new ``INIT_COMPLETE`` row, in ``names`` order.
    """
    by_name: dict[str, list[RowSummary]] = {}
    for row in rows:
        by_name.setdefault(row.name, []).append(row)
    chosen: dict[str, RowSummary] = {}
    missing: list[str] = []
    for name in names:
        candidates = by_name.get(name)
        if not candidates:
            missing.append(name)
            continue
        chosen[name] = max(
            candidates,
            key=lambda r: suitability(r, prev_template_id, target_template_id),
        )
    return chosen, missing


def build_graph(
    dependencies: Mapping[str, Iterable[str]],
    row_ids: Mapping[str, int],
    active_rows: Sequence[RowSummary],
    snapshot_ids: Iterable[str] = (),
) -> Graph[Node]:
    """Build the traversal graph.

    :param dependencies: template resource name → names it depends on.
    :param row_ids: template resource name → id of the row it converges.
    :param active_rows: every active row of the stack (chosen or not).
    :param snapshot_ids: snapshots to delete (DELETE traversals only).
    """
    graph: Graph[Node] = Graph()
    for name in dependencies:
        graph.add_node(update_node(row_ids[name]))
    for name, required in dependencies.items():
        for dep in required:
            graph.add_edge(
                update_node(row_ids[name]), update_node(row_ids[dep])
            )
    active = {row.id for row in active_rows}
    for row in active_rows:
        graph.add_node(cleanup_node(row.id))
    for row in active_rows:
        for requirement in row.requires:
            if requirement in active:
                graph.add_edge(cleanup_node(requirement), cleanup_node(row.id))
        if row.replaces in active:
            assert row.replaces is not None
            graph.add_edge(cleanup_node(row.replaces), cleanup_node(row.id))
        if update_node(row.id) in graph:
            graph.add_edge(cleanup_node(row.id), update_node(row.id))
    for snapshot_id in snapshot_ids:
        graph.add_node(Node(snapshot_id, False, SNAPSHOT))
    graph.validate()
    return graph


def leaves_in_cast_order(graph: Graph[Node]) -> list[Node]:
    """The leaves of ``graph``, cleanup nodes first (as Heat casts them)."""
    leaves = graph.leaves()
    return [n for n in leaves if not n.is_update] + [
        n for n in leaves if n.is_update
    ]


def retrigger_key(graph: Graph[Node], resource_id: int) -> Node | None:
    """The node a resource re-enters a newer traversal through.

    ``U(id)`` if the new graph has it, else ``C(id)``, else None (the row is
    not part of the new traversal).
    """
    for node in (update_node(resource_id), cleanup_node(resource_id)):
        if node in graph:
            return node
    return None
