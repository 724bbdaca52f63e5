"""A dependency graph that knows nothing of resources."""

from keel_heat_core.graph.dag import CircularDependency, Graph
from keel_heat_core.graph.dot import to_dot

__all__ = ["CircularDependency", "Graph", "to_dot"]
