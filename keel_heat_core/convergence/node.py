"""Traversal graph nodes and their wire encodings.

A node is ``(entity_id, is_update, node_type)``: ``entity_id`` is the
resource row id (an int) or a snapshot id (a str) for ``node_type``
``snapshot``; ``is_update`` is True for the create/update ("U") node and
False for the cleanup ("C") node. Two encodings reach the database and the
bus and must match Heat's bit for bit:

* sync point ``input_data`` keys: ``tuple:`` + Python ``repr`` of the node
  as a plain tuple, e.g. ``tuple:(42, True, 'resource')``;
* ``stack.current_deps``: ``{"edges": [[requirer, required-or-null], ...]}``
  where a resource node is ``[id, is_update]`` and a snapshot node
  ``[id, false, "snapshot"]``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from typing import Any, NamedTuple

from keel_heat_core.graph import Graph

RESOURCE = "resource"
SNAPSHOT = "snapshot"
_TUPLE_PREFIX = "tuple:"


class Node(NamedTuple):
    """One node of a traversal graph."""

    entity_id: int | str
    is_update: bool
    node_type: str = RESOURCE

    @property
    def is_resource(self) -> bool:
        """True for resource nodes (as opposed to snapshot nodes)."""
        return self.node_type == RESOURCE


def update_node(resource_id: int) -> Node:
    """The create/update node of a resource row."""
    return Node(resource_id, True)


def cleanup_node(resource_id: int) -> Node:
    """The cleanup node of a resource row."""
    return Node(resource_id, False)


def encode_key(value: tuple[Any, ...]) -> str:
    """Encode a tuple as Heat stores tuple dict keys (``tuple:(...)``)."""
    return _TUPLE_PREFIX + repr(tuple(value))


@functools.lru_cache(maxsize=65536)
def decode_key(text: str) -> tuple[Any, ...]:
    """Decode a ``tuple:`` key back to a tuple.

    Cached: a sync point row is read and merged many times during a
    traversal, and the same few keys come back every time (tuples of
    ints, bools and strings are immutable, so sharing them is safe).

    :raises ValueError: when ``text`` is not a ``tuple:`` key.
    """
    if not text.startswith(_TUPLE_PREFIX):
        raise ValueError(f"not a tuple key: {text!r}")
    value = ast.literal_eval(text[len(_TUPLE_PREFIX) :])
    if not isinstance(value, tuple):
        raise ValueError(f"not a tuple key: {text!r}")
    return value


def node_key(node: Node) -> str:
    """The sync point ``input_data`` key of ``node`` (3-element form)."""
    return encode_key(tuple(node))


@functools.lru_cache(maxsize=65536)
def node_from_key(text: str) -> Node:
    """Parse a sync point key, normalising 2-element keys of old engines."""
    value = decode_key(text)
    if len(value) == 2:
        return Node(value[0], bool(value[1]))
    return Node(value[0], bool(value[1]), str(value[2]))


def encode_tuple_keys(data: Any) -> Any:
    """Recursively turn tuple dict keys into ``tuple:`` strings."""
    if isinstance(data, Mapping):
        return {
            (encode_key(k) if isinstance(k, tuple) else k): encode_tuple_keys(
                v
            )
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [encode_tuple_keys(v) for v in data]
    return data


def decode_tuple_keys(data: Any) -> Any:
    """Recursively turn ``tuple:`` string dict keys back into tuples."""
    if isinstance(data, Mapping):
        out = {}
        for key, value in data.items():
            if isinstance(key, str) and key.startswith(_TUPLE_PREFIX):
                key = decode_key(key)
            out[key] = decode_tuple_keys(value)
        return out
    if isinstance(data, list):
        return [decode_tuple_keys(v) for v in data]
    return data


def _node_to_json(node: Node) -> list[Any]:
    if node.is_resource:
        return [node.entity_id, node.is_update]
    return [node.entity_id, node.is_update, node.node_type]


def _node_from_json(value: list[Any]) -> Node:
    if len(value) == 2:
        return Node(value[0], bool(value[1]))
    return Node(value[0], bool(value[1]), str(value[2]))


def graph_to_deps(graph: Graph[Node]) -> dict[str, list[list[Any]]]:
    """Serialise a traversal graph as ``stack.current_deps``."""
    edges: list[list[Any]] = []
    for node in graph.nodes():
        required = graph.requires(node)
        if not required:
            edges.append([_node_to_json(node), None])
        edges.extend([_node_to_json(node), _node_to_json(r)] for r in required)
    return {"edges": edges}


def graph_from_deps(deps: Mapping[str, Any] | None) -> Graph[Node]:
    """Rebuild a traversal graph from ``stack.current_deps``.

    Nodes that are only ever *required* still appear (Heat writes them as
    ``[node, null]`` too, but readers must not depend on that).
    """
    graph: Graph[Node] = Graph()
    for requirer, required in (deps or {}).get("edges", []):
        node = _node_from_json(requirer)
        graph.add_node(node)
        if required is not None:
            graph.add_edge(node, _node_from_json(required))
    return graph
