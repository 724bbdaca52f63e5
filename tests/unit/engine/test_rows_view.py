"""RowsView reads the rows its outputs name, and every row when a
function asks for a name they did not declare."""

from __future__ import annotations

from collections.abc import Collection
from types import SimpleNamespace
from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.service.stack_reads import RowsView

STACK = SimpleNamespace(id="sid")


class Resources:
    def __init__(self, rows: list[r.ResourceRow]) -> None:
        self.rows = rows
        self.asked: list[list[str] | None] = []

    def get_resources(
        self, stack_id: str, names: Collection[str] | None = None
    ) -> list[r.ResourceRow]:
        self.asked.append(None if names is None else sorted(names))
        return [x for x in self.rows if names is None or x.name in names]


def view(names: Collection[str] | None) -> tuple[RowsView, Resources]:
    resources = Resources(
        [
            # INIT rows: their reference is the physical id, no plugin
            r.ResourceRow(id=i, name=n, stack_id="sid", physical_id=f"p-{n}")
            for i, n in enumerate(["a", "b", "c"])
        ]
    )
    api: Any = SimpleNamespace(deps=SimpleNamespace(resources=resources))
    stored = {"a": None, "b": None, "c": None}
    stack: Any = STACK
    return RowsView(api, stack, stored, names=names), resources


def test_the_declared_names_are_read_in_one_query() -> None:
    rows, resources = view({"a", "b"})
    assert rows.reference_id("a") == "p-a"
    assert rows.reference_id("b") == "p-b"
    assert resources.asked == [["a", "b"]]


def test_an_undeclared_name_reads_every_row_once() -> None:
    rows, resources = view({"a"})
    assert rows.reference_id("a") == "p-a"
    assert rows.reference_id("c") == "p-c"
    assert rows.reference_id("b") == "p-b"
    assert resources.asked == [["a"], None]


def test_without_names_every_row_is_read() -> None:
    rows, resources = view(None)
    assert rows.reference_id("c") == "p-c"
    assert rows.reference_id("zz") is None
    assert resources.asked == [None]


def test_nothing_is_read_before_a_function_asks() -> None:
    _rows, resources = view(set())
    assert resources.asked == []
