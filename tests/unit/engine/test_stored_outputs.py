"""A stored template's outputs: parsed once, each thread reading its own
stack view."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest

from keel_heat_core.model.definitions import StoredTemplate
from keel_heat_core.template import function

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "parameters": {"p": {"type": "string", "default": "P"}},
    "resources": {"r": {"type": "OS::Heat::None"}},
    "outputs": {
        "ref": {
            "value": {
                "str_replace": {
                    "template": "ID-p",
                    "params": {
                        "ID": {"get_resource": "r"},
                        "p": {"get_param": "p"},
                    },
                }
            }
        },
        "attr": {"value": {"get_attr": ["r", "a"]}},
    },
}


class View:
    """A stack view whose resource ``r`` has reference ``ref``."""

    def __init__(self, ref: str) -> None:
        self.ref = ref

    def reference_id(self, name: str) -> str | None:
        return self.ref if name == "r" else None

    def attribute(self, name: str, attr: str, path: Sequence[Any] = ()) -> Any:
        return f"{self.ref}.{attr}"

    def all_attributes(self, name: str) -> dict[str, Any] | None:
        return None

    def attribute_names(self, name: str, resource_type: str) -> None:
        return None

    def resource_facade(self, kind: str) -> Any:
        raise ValueError(kind)

    def availability_zones(self) -> list[str]:
        return ["nova"]

    def resource_action(self, name: str) -> str | None:
        return "CREATE"


def values(stored: StoredTemplate, view: View) -> dict[str, Any]:
    with stored.outputs(view) as defined:
        return {name: out.get_value() for name, out in defined.items()}


def test_outputs_resolve_against_the_view_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stored = StoredTemplate(TEMPLATE, {}, {})
    parses = []
    real = function.parse_snippet

    def counting(*args: Any, **kw: Any) -> Any:
        parses.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(function, "parse_snippet", counting)
    assert values(stored, View("one")) == {"ref": "one-P", "attr": "one.a"}
    parsed = len(parses)
    assert parsed
    assert values(stored, View("two")) == {"ref": "two-P", "attr": "two.a"}
    assert len(parses) == parsed  # not parsed again


def test_no_view_outside_the_block() -> None:
    stored = StoredTemplate(TEMPLATE, {}, {})
    with stored.outputs(View("one")) as defined:
        kept = defined["ref"]
    with pytest.raises(RuntimeError, match="no stack view bound"):
        kept.get_value()


def test_threads_read_their_own_views() -> None:
    stored = StoredTemplate(TEMPLATE, {}, {})
    inside = threading.Barrier(2)
    seen: dict[str, Any] = {}

    def show(ref: str) -> None:
        with stored.outputs(View(ref)) as defined:
            inside.wait(timeout=10)  # both threads have bound a view
            seen[ref] = defined["ref"].get_value()

    threads = [threading.Thread(target=show, args=(r,)) for r in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert seen == {"a": "a-P", "b": "b-P"}
