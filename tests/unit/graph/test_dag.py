import pytest
from hypothesis import given
from hypothesis import strategies as st

from keel_heat_core.graph import CircularDependency, Graph, to_dot


@st.composite
def dags(draw: st.DrawFn) -> Graph[int]:
    """Random DAGs: edges only from a higher to a lower number."""
    size = draw(st.integers(min_value=0, max_value=25))
    graph: Graph[int] = Graph()
    for n in range(size):
        graph.add_node(n)
    for a in range(size):
        for b in range(a):
            if draw(st.booleans()):
                graph.add_edge(a, b)
    return graph


@given(dags())
def test_topological_order_puts_requirements_first(graph: Graph[int]) -> None:
    order = graph.topological_order()
    assert sorted(order) == sorted(graph.nodes())
    position = {n: i for i, n in enumerate(order)}
    for requirer, required in graph.edges():
        assert position[required] < position[requirer]


@given(dags())
def test_reversal_swaps_leaves_and_roots(graph: Graph[int]) -> None:
    rev = graph.reversed()
    assert set(rev.leaves()) == set(graph.roots())
    assert set(rev.roots()) == set(graph.leaves())
    assert {(b, a) for a, b in graph.edges()} == set(rev.edges())
    assert rev.reversed().edges() == graph.edges() or set(
        rev.reversed().edges()
    ) == set(graph.edges())


@given(dags(), st.data())
def test_any_added_back_edge_is_reported_with_its_cycle(
    graph: Graph[int], data: st.DataObject
) -> None:
    edges = graph.edges()
    if not edges:
        return
    requirer, required = data.draw(st.sampled_from(edges))
    graph.add_edge(required, requirer)
    with pytest.raises(CircularDependency) as info:
        graph.topological_order()
    cycle = info.value.nodes
    assert len(cycle) >= 2
    for i, node in enumerate(cycle):
        assert cycle[(i + 1) % len(cycle)] in graph.requires(node)


def test_self_loop_is_a_cycle() -> None:
    graph: Graph[str] = Graph()
    graph.add_edge("a", "a")
    assert graph.find_cycle() == ["a"]
    with pytest.raises(CircularDependency, match="'a' -> 'a'"):
        graph.validate()


def test_leaves_roots_and_neighbours() -> None:
    graph: Graph[str] = Graph()
    graph.add_edge("server", "port")
    graph.add_edge("port", "net")
    graph.add_edge("subnet", "net")
    graph.add_node("lonely")
    assert graph.leaves() == ["net", "lonely"]
    assert graph.roots() == ["server", "subnet", "lonely"]
    assert graph.requires("port") == ["net"]
    assert graph.required_by("net") == ["port", "subnet"]
    assert graph.transitive_requirements("server") == {"port", "net"}
    graph.remove_node("port")
    assert graph.requires("server") == []
    assert graph.required_by("net") == ["subnet"]
    assert graph.subgraph(["server", "net"]).edges() == []


def test_dot_output_is_stable_and_escaped() -> None:
    graph: Graph[str] = Graph()
    graph.add_edge('a"b', "c")
    assert to_dot(graph, name="g") == (
        'digraph "g" {\n  "a\\"b";\n  "c";\n  "a\\"b" -> "c";\n}\n'
    )


def test_the_root_set_follows_every_change() -> None:
    g: Graph[str] = Graph()
    g.add_edge("b", "a")
    assert g.root_set() == {"b"}
    assert g.root_set() is g.root_set()  # kept until the graph changes
    g.add_node("c")
    assert g.root_set() == {"b", "c"}
    g.add_edge("c", "b")
    assert g.root_set() == {"c"}
    g.remove_node("c")
    assert g.root_set() == {"b"}
    assert g.root_set() == frozenset(g.roots())
