"""The update contract the worker gives a plugin_api Resource.

As in Heat, ``handle_update`` and ``check_update_complete`` run while
``self.properties`` still holds the values the resource has now; the new
values come in ``prop_diff`` (and the definition).  Once the update is
done the plugin reads the new values (its attributes do).
"""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.testing.fakes import FakeDefinition
from tests.unit.worker.fakes import Harness

Schema = api.properties.Schema


class Recording(api.Resource):
    """Records what ``self.properties`` held during each update hook."""

    properties_schema = {
        "value": Schema(Schema.STRING, "a value", update_allowed=True),
        "fixed": Schema(Schema.STRING, "replaced on change"),
    }
    attributes_schema = {"value": api.attributes.Schema("the value")}
    seen: list[tuple[str, Any, Any]] = []

    def handle_create(self) -> None:
        self.resource_id_set(f"rec-{self.name}")

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> str:
        self.seen.append(("handle", self.properties["value"], dict(prop_diff)))
        return "cookie"

    def check_update_complete(self, cookie: Any) -> bool:
        self.seen.append(("check", self.properties["value"], cookie))
        return True

    def _resolve_attribute(self, name: str) -> Any:
        return self.properties[name]


def _harness() -> Harness:
    h = Harness(engines=1)
    for worker in h.workers:
        deps = worker.deps

        def build(defn: Any, row: Any, props: dict, stack: Any) -> Any:
            plugin = Recording(
                row.name,
                FakeDefinition(row.name, defn.resource_type, props),
                None,
            )
            plugin.resource_id = row.physical_id
            return plugin

        deps.plugins = build
    return h


def test_handle_update_sees_the_old_properties() -> None:
    Recording.seen = []
    h = _harness()
    sid = h.new_stack({"a": {"properties": {"value": "old", "fixed": "x"}}})
    h.run()
    assert h.stack(sid).status == "COMPLETE"
    h.update(sid, {"a": {"properties": {"value": "new", "fixed": "x"}}})
    h.run()
    assert h.stack(sid).status == "COMPLETE", h.stack(sid).status_reason
    assert Recording.seen == [
        ("handle", "old", {"value": "new"}),
        ("check", "old", "cookie"),
    ]
    row = h.rows(sid)["a"]
    assert row.properties["value"] == "new"
    assert row.action == "UPDATE"
