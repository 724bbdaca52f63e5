"""Local actions (``worker/local.py``): one write, or the lock after all.

An action its plugin calls local runs before the lock is taken; its
outcome, both events and its data go in one compare-and-swap. When it
turns out not to be (its check answers "not yet", its handle fails) the
node takes the lock first and goes on as any other.
"""

from __future__ import annotations

from typing import Any

import pytest

from keel_heat_core import plugin_api as api
from keel_heat_core.model import rows as r
from keel_heat_core.plugin_api.runtime import MemoryResourceStore
from keel_heat_core.testing.fakes import FakeDefinition
from keel_heat_core.worker import local
from tests.unit.worker.fakes import Harness

Schema = api.properties.Schema


class Local(api.Resource):
    """Stores its value; local unless told otherwise."""

    properties_schema = {
        "value": Schema(Schema.STRING, "a value", update_allowed=True),
        "local": Schema(Schema.BOOLEAN, "local?", default=True),
        "polls": Schema(Schema.INTEGER, "'not yet' answers", default=0),
        "fail": Schema(Schema.BOOLEAN, "fail the handle", default=False),
    }
    #: ``(resource name, engine holding its lock)`` at every check
    checked: list[tuple[str, str | None]] = []
    stores: Any = None

    def action_is_local(self, action: str) -> bool:
        return bool(self.properties["local"])

    def handle_create(self) -> int:
        self.data_set("value", self.properties["value"])
        self.resource_id_set(f"phys-{self.name}")
        if self.properties["fail"]:
            raise ValueError("no")
        return 0

    def check_create_complete(self, cookie: Any) -> bool:
        row = self.stores.get_resource(self.id)
        Local.checked.append((self.name, row.engine_id))
        polls = self.data().get("polls", "0")
        if int(polls) < self.properties["polls"]:
            self.data_set("polls", str(int(polls) + 1))
            return False
        return True

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        self.data_set("value", prop_diff["value"])

    def handle_delete(self) -> None:
        self.data_delete("value")


def writes_of(
    h: Harness, name: str
) -> list[tuple[str | None, str, list[str]]]:
    """``(expected holder, status, data keys)`` of every lock write of
    the resource ``name``."""
    return [
        (w.expected_engine_id, w.values["status"], [d.key for d in w.data])
        for w in h.stores.lock_writes
        if w.name == name
    ]


def harness() -> tuple[Harness, dict[int, MemoryResourceStore]]:
    h = Harness(engines=1)
    stores: dict[int, MemoryResourceStore] = {}
    Local.checked = []
    Local.stores = h.stores

    def build(defn: Any, row: r.ResourceRow, props: dict, stack: Any) -> Any:
        plugin = Local(
            row.name, FakeDefinition(row.name, defn.resource_type, props), None
        )
        plugin.id = row.id
        plugin.resource_id = row.physical_id
        plugin.action, plugin.status = row.action, row.status
        plugin.attach_store(stores.setdefault(row.id, MemoryResourceStore()))
        return plugin

    for worker in h.workers:
        worker.deps.plugins = build
    return h, stores


def test_local_create_update_delete_are_one_write_each() -> None:
    h, stores = harness()
    sid = h.new_stack({"a": {"properties": {"value": "one"}}})
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE", h.stack(sid).status_reason
    row = h.rows(sid)["a"]
    assert (row.physical_id, row.engine_id) == ("phys-a", None)
    # the data waited for the write (the plugin's own store never saw it)
    assert stores[row.id].data() == {}
    # the row had no data when read: the key goes in without a lookup
    assert h.stores.data_writes == [
        (row.id, r.DataWrite("value", "one", fresh=True))
    ]
    h.update(sid, {"a": {"properties": {"value": "two"}}})
    h.run()
    assert h.state(sid) == "UPDATE_COMPLETE", h.stack(sid).status_reason
    h.delete(sid)
    h.run()
    assert h.state(sid) == "DELETE_COMPLETE"
    assert writes_of(h, "a") == [
        (None, "COMPLETE", ["value"]),
        (None, "COMPLETE", ["value"]),
        (None, "COMPLETE", ["value"]),
    ]
    # the row had data by then: looked up before it is overwritten
    assert [w for _, w in h.stores.data_writes][1:] == [
        r.DataWrite("value", "two"),
        r.DataWrite("value", None),
    ]
    assert h.resource_events("a") == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
        "UPDATE_IN_PROGRESS",
        "UPDATE_COMPLETE",
        "DELETE_IN_PROGRESS",
        "DELETE_COMPLETE",
    ]


def test_an_action_not_local_takes_the_lock_first() -> None:
    h, stores = harness()
    sid = h.new_stack({"a": {"properties": {"value": "v", "local": False}}})
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE"
    assert writes_of(h, "a") == [
        (None, "IN_PROGRESS", []),
        ("engine-0", "COMPLETE", []),
    ]
    assert Local.checked == [("a", "engine-0")]
    assert stores[h.rows(sid)["a"].id].data() == {"value": "v"}


def test_a_check_that_says_not_yet_takes_the_lock_before_it_waits() -> None:
    h, stores = harness()
    sid = h.new_stack({"a": {"properties": {"value": "v", "polls": 2}}})
    h.run()
    assert h.state(sid) == "CREATE_COMPLETE", h.stack(sid).status_reason
    # the first check ran before the lock, every later one under it
    assert Local.checked == [
        ("a", None),
        ("a", "engine-0"),
        ("a", "engine-0"),
    ]
    assert writes_of(h, "a") == [
        (None, "IN_PROGRESS", []),
        ("engine-0", "COMPLETE", []),
    ]
    # what the handle and the first check wrote went through at the lock
    data = stores[h.rows(sid)["a"].id].data()
    assert data == {"value": "v", "polls": "2"}
    assert h.rows(sid)["a"].physical_id == "phys-a"


def test_a_failed_local_action_is_recorded_under_the_lock() -> None:
    h, stores = harness()
    sid = h.new_stack({"a": {"properties": {"value": "v", "fail": True}}})
    h.run()
    assert h.state(sid) == "CREATE_FAILED"
    assert writes_of(h, "a") == [
        (None, "IN_PROGRESS", []),
        ("engine-0", "FAILED", []),
    ]
    assert h.resource_events("a") == ["CREATE_IN_PROGRESS", "CREATE_FAILED"]
    row = h.rows(sid)["a"]
    assert row.status_reason == "ValueError: resources.a: no"
    assert stores[row.id].data() == {"value": "v"}


def test_a_write_that_misses_re_runs_the_node() -> None:
    h, _stores = harness()
    original = Local.handle_create
    bumped: list[int] = []

    def handle_create(self: Local) -> int:
        if not bumped:  # a metadata write (a signal) moves the key
            bumped.append(self.id)
            row = h.stores.resources[self.id]
            row.atomic_key = (row.atomic_key or 0) + 1
        return original(self)

    Local.handle_create = handle_create  # type: ignore[method-assign]
    try:
        sid = h.new_stack({"a": {"properties": {"value": "v"}}})
        h.run()
    finally:
        Local.handle_create = original  # type: ignore[method-assign]
    assert h.state(sid) == "CREATE_COMPLETE", h.stack(sid).status_reason
    assert [w[1] for w in writes_of(h, "a")] == ["COMPLETE", "COMPLETE"]
    # the missed write left nothing behind
    assert [w for _, w in h.stores.data_writes] == [
        r.DataWrite("value", "v", fresh=True)
    ]
    assert h.resource_events("a") == ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]


class Store(MemoryResourceStore):
    def __init__(self) -> None:
        super().__init__()
        self.metadata_writes = 0

    def metadata_set(self, metadata: Any, merge_metadata: Any = None) -> None:
        self.metadata_writes += 1
        super().metadata_set(metadata, merge_metadata)


def test_local_store_keeps_writes_and_settles_for_metadata() -> None:
    inner = Store()
    inner.data_set("old", "1")
    settled: list[bool] = []
    store = local.LocalStore(inner, lambda: settled.append(True))
    store.data_set("new", "2", redact=True)
    assert store.data_delete("old")
    assert not store.data_delete("never")
    store.set_resource_id("phys")
    assert store.data() == {"new": "2"}
    assert inner.data() == {"old": "1"} and inner.resource_id is None
    assert not settled
    store.metadata_set({"m": 1})
    assert settled == [True] and inner.metadata_writes == 1
    store.write_through()
    assert inner.data() == {"new": "2"} and inner.redacted == {"new"}
    assert inner.resource_id == "phys"


@pytest.mark.parametrize(
    ("plugin", "expected"),
    [
        (object(), True),  # nothing to run (a retained resource)
        (type("Bare", (), {"handle_create": lambda self: None})(), False),
        (
            type(
                "Broken",
                (),
                {
                    "handle_create": lambda self: None,
                    "action_is_local": lambda self, a: 1 / 0,
                },
            )(),
            False,
        ),
    ],
)
def test_is_local(plugin: Any, expected: bool) -> None:
    assert local.is_local(plugin, "CREATE") is expected


def test_a_lock_taken_meanwhile_makes_the_node_yield_not_fail() -> None:
    h, _stores = harness()
    original = Local.check_create_complete

    def check(self: Local, cookie: Any) -> bool:
        # another traversal's node took the row while this one computed
        h.stores.resources[self.id].engine_id = "engine-other"
        return original(self, cookie)

    Local.check_create_complete = check  # type: ignore[method-assign]
    try:
        sid = h.new_stack({"a": {"properties": {"value": "v", "polls": 1}}})
        h.run()
    finally:
        Local.check_create_complete = original  # type: ignore[method-assign]
    # the node left the row to its holder (alive): nothing failed
    assert h.state(sid) == "CREATE_IN_PROGRESS"
    assert h.resource_events("a") == []
    assert writes_of(h, "a") == [(None, "IN_PROGRESS", [])]
