from hypothesis import given
from hypothesis import strategies as st

from keel_heat_core.convergence.node import (
    Node,
    decode_tuple_keys,
    encode_tuple_keys,
    graph_from_deps,
    graph_to_deps,
    node_from_key,
    node_key,
)
from keel_heat_core.graph import Graph


def test_keys_are_heats_bit_for_bit() -> None:
    assert node_key(Node(42, True)) == "tuple:(42, True, 'resource')"
    assert (
        node_key(Node("5b0c", False, "snapshot"))
        == "tuple:('5b0c', False, 'snapshot')"
    )


def test_two_element_keys_of_old_engines_are_normalised() -> None:
    assert node_from_key("tuple:(42, True)") == Node(42, True, "resource")


@given(
    st.one_of(st.integers(min_value=1), st.text(min_size=1)),
    st.booleans(),
    st.sampled_from(["resource", "snapshot"]),
)
def test_key_round_trip(entity: int | str, is_update: bool, kind: str) -> None:
    node = Node(entity, is_update, kind)
    assert node_from_key(node_key(node)) == node


def test_tuple_keys_nested_in_attributes() -> None:
    attrs = {("networks", "private", 0): "10.0.0.3", "name": {"a": [1]}}
    encoded = encode_tuple_keys({"attrs": attrs})
    assert encoded == {
        "attrs": {
            "tuple:('networks', 'private', 0)": "10.0.0.3",
            "name": {"a": [1]},
        }
    }
    assert decode_tuple_keys(encoded) == {"attrs": attrs}


def test_current_deps_format() -> None:
    graph: Graph[Node] = Graph()
    graph.add_edge(Node(2, True), Node(1, True))
    graph.add_edge(Node(1, False), Node(2, False))
    graph.add_node(Node("snap", False, "snapshot"))
    deps = graph_to_deps(graph)
    assert deps == {
        "edges": [
            [[2, True], [1, True]],
            [[1, True], None],
            [[1, False], [2, False]],
            [[2, False], None],
            [["snap", False, "snapshot"], None],
        ]
    }
    again = graph_from_deps(deps)
    assert set(again.edges()) == set(graph.edges())
    assert set(again.nodes()) == set(graph.nodes())
