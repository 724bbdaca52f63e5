"""The order validation checks resources in (service/stack_validation.py):
level by level, each level in the template's order, Heat's text for a
cycle."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keel_heat_core import exception
from keel_heat_core.service.stack_validation import dependency_order


def _by_rounds(deps: dict[str, set[str]]) -> list[str] | None:
    """The plain definition: each round takes every resource whose needs
    are all taken already (None when a round takes nothing)."""
    order: list[str] = []
    remaining = dict(deps)
    while remaining:
        ready = [n for n, d in remaining.items() if d <= set(order)]
        if not ready:
            return None
        order.extend(ready)
        for name in ready:
            del remaining[name]
    return order


@st.composite
def graphs(draw: st.DrawFn) -> dict[str, set[str]]:
    names = [f"r{i}" for i in range(draw(st.integers(0, 12)))]
    draw(st.randoms()).shuffle(names)
    return {
        name: set(draw(st.lists(st.sampled_from(names), max_size=3)))
        if names
        else set()
        for name in names
    }


@given(graphs())
def test_same_order_as_the_definition(deps: dict[str, set[str]]) -> None:
    expected = _by_rounds(deps)
    if expected is None:
        with pytest.raises(exception.CircularDependencyException):
            dependency_order(deps, {})
    else:
        assert dependency_order(deps, {}) == expected


def test_levels_keep_the_template_order() -> None:
    deps = {"c": {"a"}, "b": set(), "a": set(), "d": {"b", "c"}}
    assert dependency_order(deps, {}) == ["b", "a", "c", "d"]


def test_a_long_chain() -> None:
    n = 5000
    deps = {f"r{i}": ({f"r{i - 1}"} if i else set()) for i in range(n)}
    assert dependency_order(deps, {}) == [f"r{i}" for i in range(n)]


def test_a_need_that_is_not_a_resource_is_a_cycle() -> None:
    with pytest.raises(exception.CircularDependencyException):
        dependency_order({"a": {"ghost"}}, {})
