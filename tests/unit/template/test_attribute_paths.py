"""``get_attr`` paths reach the resource, as Heat's ``FnGetAtt(attr, *path)``:
a group answers ``attributes`` or ``resource.<n>`` per path, so the view
is asked with the path and the worker sends the value under the
``(attr, *path)`` key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from keel_heat_core.model.node_data import NodeData, NodeDataView
from keel_heat_core.template import format as template_format
from keel_heat_core.template import function, versions
from keel_heat_core.template.protocols import PendingStackView
from keel_heat_core.template.stack_definition import StackDefinition
from keel_heat_core.worker.resource import ConvergenceResource


class _RecordingView(PendingStackView):
    """Answers ``{"whole": ...}`` and records what it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, str, tuple[Any, ...]]] = []

    def reference_id(self, name: str) -> str | None:
        return f"ref-{name}"

    def attribute(self, name: str, attr: str, path: Sequence[Any] = ()) -> Any:
        self.asked.append((name, attr, tuple(path)))
        return {"whole": [attr, *path]}

    def resource_action(self, name: str) -> str | None:
        return "CREATE"


def _output(version: str, value: Any) -> tuple[Any, _RecordingView]:
    text = (
        f"heat_template_version: {version}\n"
        "resources:\n  g: {type: OS::Heat::ResourceGroup}\n"
    )
    tmpl = versions.load(template_format.parse(text))
    view = _RecordingView()
    defn = StackDefinition(tmpl, {}, view)
    parsed = tmpl.parse(defn, value, "outputs.o.value")
    return function.resolve(parsed), view


def test_path_is_given_to_the_view() -> None:
    value, view = _output("2021-04-16", {"get_attr": ["g", "attributes", "x"]})
    assert view.asked == [("g", "attributes", ("x",))]
    # the view's answer is the value: no second walk along the path
    assert value == {"whole": ["attributes", "x"]}


def test_hot_2013_selects_from_the_whole_value() -> None:
    value, view = _output("2013-05-23", {"get_attr": ["g", "a", "whole", 0]})
    assert view.asked == [("g", "a", ())]
    assert value == "a"


def _node(attrs: dict[Any, Any]) -> NodeDataView:
    data = NodeData(
        id=1,
        name="g",
        uuid="u",
        reference_id="r",
        attrs=attrs,
        action="CREATE",
        status="COMPLETE",
    )
    # through the stored form: tuple keys survive the JSON encoding
    return NodeDataView({"g": NodeData.from_dict(data.as_dict())})


def test_node_data_answers_the_value_sent_for_the_path() -> None:
    view = _node({("attributes", "x"): {"0": 1}, "plain": {"k": [5, 6]}})
    assert view.attribute("g", "attributes", ("x",)) == {"0": 1}
    # no value for that path: the path is followed into the whole value
    assert view.attribute("g", "plain", ("k", 1)) == 6
    assert view.attribute("g", "plain") == {"k": [5, 6]}
    assert view.attribute("g", "attributes") is None
    assert view.attribute("other", "plain") is None


class _Plugin:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        self.calls.append((key, *path))
        if key == "bad":
            raise ValueError("no")
        return f"{key}:{'.'.join(path)}"


def test_worker_sends_values_under_the_referenced_key() -> None:
    rsrc = ConvergenceResource.__new__(ConvergenceResource)
    plugin = _Plugin()
    rsrc.plugin = plugin
    out = rsrc.attributes_for({"plain", ("attributes", "x"), "bad"})
    assert out == {
        "plain": "plain:",
        ("attributes", "x"): "attributes:x",
        "bad": None,
    }
    assert sorted(plugin.calls) == [("attributes", "x"), ("bad",), ("plain",)]
