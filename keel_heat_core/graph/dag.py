"""A directed acyclic dependency graph that knows nothing of resources.

Edges go from a *requirer* to what it *requires*: the requirer runs after
the required. A node that requires nothing is a *leaf* (it may start
first); a node nothing requires is a *root* (it finishes last). This is
the vocabulary of Heat's convergence graph, so the traversal layer can
use it directly.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import Generic, TypeVar

N = TypeVar("N", bound=Hashable)


class CircularDependency(ValueError):
    """The graph has a cycle.

    :ivar nodes: the nodes of one cycle, in edge order.
    """

    def __init__(self, nodes: list[object]) -> None:
        self.nodes = nodes
        super().__init__(
            "Circular Dependency Found: {}".format(
                " -> ".join(repr(n) for n in [*nodes, nodes[0]])
            )
        )


class Graph(Generic[N]):
    """A mutable dependency graph.

    Nodes keep their insertion order, so every walk is deterministic for a
    given construction order.
    """

    def __init__(self) -> None:
        self._requires: dict[N, dict[N, None]] = {}
        self._required_by: dict[N, dict[N, None]] = {}
        #: :meth:`root_set`, until the graph changes
        self._root_set: frozenset[N] | None = None

    # -- construction -----------------------------------------------------

    def add_node(self, node: N) -> None:
        """Add ``node`` (no effect if present).

        :param node: any hashable value.
        """
        if node not in self._requires:
            self._requires[node] = {}
            self._required_by[node] = {}
            self._root_set = None

    def add_edge(self, requirer: N, required: N) -> None:
        """Record that ``requirer`` runs after ``required``.

        Both nodes are added if missing.
        """
        self.add_node(requirer)
        self.add_node(required)
        self._requires[requirer][required] = None
        self._required_by[required][requirer] = None
        self._root_set = None

    def remove_node(self, node: N) -> None:
        """Remove ``node`` and every edge touching it."""
        self._root_set = None
        for dep in self._requires.pop(node, {}):
            self._required_by[dep].pop(node, None)
        for user in self._required_by.pop(node, {}):
            self._requires[user].pop(node, None)

    # -- queries -----------------------------------------------------------

    def __contains__(self, node: object) -> bool:
        return node in self._requires

    def __iter__(self) -> Iterator[N]:
        return iter(self._requires)

    def __len__(self) -> int:
        return len(self._requires)

    def nodes(self) -> list[N]:
        """All nodes in insertion order."""
        return list(self._requires)

    def edges(self) -> list[tuple[N, N]]:
        """All ``(requirer, required)`` pairs."""
        return [(a, b) for a, deps in self._requires.items() for b in deps]

    def requires(self, node: N) -> list[N]:
        """What ``node`` directly requires (its predecessors)."""
        return list(self._requires[node])

    def required_by(self, node: N) -> list[N]:
        """What directly requires ``node`` (its successors)."""
        return list(self._required_by[node])

    def leaves(self) -> list[N]:
        """Nodes that require nothing: a traversal starts with them."""
        return [n for n, deps in self._requires.items() if not deps]

    def roots(self) -> list[N]:
        """Nodes nothing requires: a traversal ends with them."""
        return [n for n, users in self._required_by.items() if not users]

    def root_set(self) -> frozenset[N]:
        """:meth:`roots` as a set, computed once until the graph changes
        (every root of a traversal reports to the same set)."""
        if self._root_set is None:
            self._root_set = frozenset(self.roots())
        return self._root_set

    # -- whole-graph operations --------------------------------------------

    def reversed(self) -> Graph[N]:
        """A copy with every edge turned around."""
        out: Graph[N] = Graph()
        for node in self._requires:
            out.add_node(node)
        for requirer, required in self.edges():
            out.add_edge(required, requirer)
        return out

    def copy(self) -> Graph[N]:
        """A shallow copy."""
        out: Graph[N] = Graph()
        for node in self._requires:
            out.add_node(node)
        for requirer, required in self.edges():
            out.add_edge(requirer, required)
        return out

    def subgraph(self, keep: Iterable[N]) -> Graph[N]:
        """The graph induced by the nodes in ``keep``."""
        wanted = set(keep)
        out: Graph[N] = Graph()
        for node in self._requires:
            if node in wanted:
                out.add_node(node)
        for requirer, required in self.edges():
            if requirer in wanted and required in wanted:
                out.add_edge(requirer, required)
        return out

    def topological_order(self) -> list[N]:
        """Nodes with every node after all it requires (Kahn's algorithm).

        :raises CircularDependency: naming the nodes of one cycle.
        """
        pending = {n: len(deps) for n, deps in self._requires.items()}
        ready = [n for n, count in pending.items() if count == 0]
        order: list[N] = []
        while ready:
            node = ready.pop(0)
            order.append(node)
            for user in self._required_by[node]:
                pending[user] -= 1
                if pending[user] == 0:
                    ready.append(user)
        if len(order) != len(self._requires):
            raise CircularDependency(list(self.find_cycle() or []))
        return order

    def find_cycle(self) -> list[N] | None:
        """One cycle as a list of nodes, or None for an acyclic graph."""
        white, grey, black = 0, 1, 2
        colour = dict.fromkeys(self._requires, white)
        for start in self._requires:
            if colour[start] != white:
                continue
            path: list[N] = [start]
            stack = [iter(self._requires[start])]
            colour[start] = grey
            while stack:
                child = next(stack[-1], None)
                if child is None:
                    stack.pop()
                    colour[path.pop()] = black
                elif colour[child] == grey:
                    return path[path.index(child) :]
                elif colour[child] == white:
                    colour[child] = grey
                    path.append(child)
                    stack.append(iter(self._requires[child]))
        return None

    def validate(self) -> None:
        """Raise :class:`CircularDependency` if the graph has a cycle."""
        cycle = self.find_cycle()
        if cycle is not None:
            raise CircularDependency(list(cycle))

    def transitive_requirements(self, node: N) -> set[N]:
        """Every node ``node`` needs, directly or not."""
        seen: set[N] = set()
        todo = list(self._requires[node])
        while todo:
            dep = todo.pop()
            if dep not in seen:
                seen.add(dep)
                todo.extend(self._requires[dep])
        return seen
