import datetime

import pytest

from keel_heat_core.convergence.node import Node
from keel_heat_core.convergence.traversal import (
    build_graph,
    choose_rows,
    is_active,
    leaves_in_cast_order,
    retrigger_key,
)
from keel_heat_core.graph import CircularDependency
from keel_heat_core.model.rows import RowSummary

U = lambda i: Node(i, True)  # noqa: E731
C = lambda i: Node(i, False)  # noqa: E731


def row(i: int, name: str, **kw: object) -> RowSummary:
    kw.setdefault("action", "CREATE")
    kw.setdefault("status", "COMPLETE")
    return RowSummary(id=i, name=name, **kw)  # type: ignore[arg-type]


def test_create_graph_has_only_update_nodes() -> None:
    deps = {"a": [], "b": ["a"], "c": ["a", "b"]}
    graph = build_graph(deps, {"a": 1, "b": 2, "c": 3}, [])
    assert set(graph.edges()) == {(U(2), U(1)), (U(3), U(1)), (U(3), U(2))}
    assert graph.leaves() == [U(1)]
    assert graph.roots() == [U(3)]


def test_update_graph_orders_cleanup_of_removed_rows() -> None:
    # a <- b existed; the new template keeps a, drops b and adds c -> a.
    rows = [row(1, "a"), row(2, "b", requires=(1,))]
    graph = build_graph({"a": [], "c": ["a"]}, {"a": 1, "c": 3}, rows)
    assert set(graph.edges()) == {
        (U(3), U(1)),
        (C(1), C(2)),  # a is cleaned up after b, which required it
        (C(1), U(1)),  # and after it was updated
    }
    assert leaves_in_cast_order(graph) == [C(2), U(1)]
    assert set(graph.roots()) == {U(3), C(1)}


def test_replacement_is_cleaned_up_before_the_row_it_replaced() -> None:
    rows = [row(1, "a", replaced_by=5), row(5, "a", replaces=1)]
    graph = build_graph({"a": []}, {"a": 5}, rows)
    assert (C(1), C(5)) in graph.edges()
    assert (C(5), U(5)) in graph.edges()


def test_snapshot_nodes_are_isolated() -> None:
    graph = build_graph({}, {}, [row(1, "a")], snapshot_ids=["s1"])
    assert Node("s1", False, "snapshot") in graph.leaves()


def test_cycles_are_refused() -> None:
    with pytest.raises(CircularDependency):
        build_graph({"a": ["b"], "b": ["a"]}, {"a": 1, "b": 2}, [])


def test_row_choice_follows_heats_scores() -> None:
    t0 = datetime.datetime(2026, 1, 1)
    later = t0 + datetime.timedelta(seconds=5)
    rows = [
        row(1, "a", current_template_id=7, updated_at=t0),
        row(2, "a", status="FAILED", current_template_id=8),
        row(3, "b", current_template_id=7, updated_at=t0),
        row(4, "b", current_template_id=7, updated_at=later),
        row(5, "c", action="DELETE", status="FAILED"),
        row(6, "d", current_template_id=8, replaced_by=9),
        row(9, "d", current_template_id=7),
    ]
    chosen, missing = choose_rows(["a", "b", "c", "d", "e"], rows, 7, 8)
    assert chosen["a"].id == 1  # FAILED (-30 +10) < previous template (+5)
    assert chosen["b"].id == 4  # tie broken by the latest update
    assert chosen["c"].id == 5  # the only candidate
    assert chosen["d"].id == 6  # rollback returns to the original (+10 -1)
    assert missing == ["e"]


def test_active_rows() -> None:
    assert not is_active(row(1, "a", action="DELETE", status="COMPLETE"))
    assert is_active(row(1, "a", action="DELETE", status="FAILED"))


def test_retrigger_prefers_update_node() -> None:
    graph = build_graph({"a": []}, {"a": 1}, [row(1, "a"), row(2, "b")])
    assert retrigger_key(graph, 1) == U(1)
    assert retrigger_key(graph, 2) == C(2)
    assert retrigger_key(graph, 3) is None
