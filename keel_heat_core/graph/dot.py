"""Graphviz DOT output for a :class:`~keel_heat_core.graph.dag.Graph`."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from keel_heat_core.graph.dag import Graph


def _quote(text: str) -> str:
    return '"{}"'.format(text.replace("\\", "\\\\").replace('"', '\\"'))


def to_dot(
    graph: Graph[Hashable],
    name: str = "dependencies",
    label: Callable[[Hashable], str] = str,
) -> str:
    """Render ``graph`` as a DOT digraph, edges pointing requirer → required.

    :param graph: the graph.
    :param name: the digraph name.
    :param label: how to turn a node into its label.
    :returns: the DOT text, one statement per line, in a stable order.
    """
    lines = [f"digraph {_quote(name)} {{"]
    lines.extend(f"  {_quote(label(n))};" for n in graph.nodes())
    lines.extend(
        f"  {_quote(label(a))} -> {_quote(label(b))};"
        for a, b in graph.edges()
    )
    lines.append("}")
    return "\n".join(lines) + "\n"
