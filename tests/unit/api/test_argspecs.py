"""pecan's argspec lookups, memoized per function."""

from __future__ import annotations

from typing import Any

import pecan.core
import pytest

from keel_heat_api import argspecs


class Controller:
    def index(self, stack_name: str, stack_id: str = "") -> None:
        return None


def test_same_argspec_and_worked_out_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[Any] = []
    original = pecan.core.getargspec

    def counting(method: Any) -> Any:
        calls.append(method)
        return original(method)

    monkeypatch.setattr(pecan.core, "getargspec", counting)
    monkeypatch.setattr(argspecs, "_specs", {})
    argspecs.install()
    memo = pecan.core.getargspec
    assert memo is not counting
    first = memo(Controller().index)
    again = memo(Controller().index)  # another bound method object
    assert first == again == original(Controller().index)
    assert first.args == ["self", "stack_name", "stack_id"]
    assert len(calls) == 1
    argspecs.install()  # twice: not wrapped again
    assert pecan.core.getargspec is memo
