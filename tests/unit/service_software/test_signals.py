"""ResourceSignals with in-memory stacks, rows and plugins."""

from __future__ import annotations

import types
from collections.abc import Collection
from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.model import rows as r
from keel_heat_core.plugin_api.resource import Resource
from keel_heat_core.service.signals import ResourceSignals

STACK = r.StackRow(
    id="stack-1",
    name="s",
    action="CREATE",
    status="COMPLETE",
    status_reason="",
    raw_template_id=1,
    current_traversal="t",
    tenant="p",
)


class Store:
    def __init__(self, rows: list[r.ResourceRow]) -> None:
        self.rows = rows
        self.events: list[r.EventRecord] = []

    def get_resources(
        self, stack_id: str, names: Collection[str] | None = None
    ) -> list[r.ResourceRow]:
        return [x for x in self.rows if names is None or x.name in names]

    def add_event(self, event: r.EventRecord) -> None:
        self.events.append(event)


class Plugin:
    """A signallable plugin; ``script`` says what each call does."""

    no_signal_actions = Resource.no_signal_actions
    signal_needs_metadata_updates = False

    def __init__(self, row: r.ResourceRow, script: list[Any]) -> None:
        self.row = row
        self.name, self.action = row.name, row.action
        self.stack = types.SimpleNamespace(
            t=types.SimpleNamespace(get_section_name=lambda s: "resources")
        )
        self.script = script
        self.calls: list[Any] = []
        self.metadata = {"seen": True}

    def handle_signal(self, details: Any) -> Any:
        self.calls.append(details)
        step = self.script.pop(0) if self.script else "done"
        if isinstance(step, BaseException):
            raise step
        return step

    def metadata_get(self, refresh: bool = False) -> Any:
        return self.metadata


class Refreshing(Plugin):
    updated: list[str] = []

    def metadata_update(self, new_metadata: Any = None) -> None:
        Refreshing.updated.append(self.row.name)


class Api:
    def __init__(self, plugins: dict[str, Any]) -> None:
        rows = [
            r.ResourceRow(id=i, name=n, stack_id=STACK.id, action="CREATE")
            for i, n in enumerate(plugins, 1)
        ]
        self.store = Store(rows)
        self.built: dict[str, Any] = {}

        def build(
            defn: Any, row: r.ResourceRow, props: Any, stack: Any
        ) -> Any:
            plugin = plugins[row.name](row)
            self.built[row.name] = plugin
            return plugin

        self.deps = types.SimpleNamespace(
            resources=self.store,
            plugins=build,
            engine_id="engine-1",
            sleep=lambda seconds: None,
        )
        registry = types.SimpleNamespace(matches_hook=lambda n, h: False)
        self.stored = {
            name: types.SimpleNamespace(resource_type="My::Type")
            for name in plugins
        }
        self.env = types.SimpleNamespace(registry=registry)

    def load(self, ctxt: Any, identity: Any) -> r.StackRow:
        return STACK

    def stored_template(self) -> Any:
        api = self

        class Stored(dict[str, Any]):
            env = api.env

        return Stored(self.stored)


def _signals(api: Api, spawned: list[Any] | None = None) -> ResourceSignals:
    api.stored_obj = api.stored_template()  # type: ignore[attr-defined]
    api.stored = lambda stack: api.stored_obj  # type: ignore[assignment,attr-defined]

    def spawn(work: Any) -> None:
        if spawned is None:
            work()
        else:
            spawned.append(work)

    return ResourceSignals(api, spawn)  # type: ignore[arg-type]


def test_sync_signal_returns_metadata_and_writes_event() -> None:
    api = Api({"h": lambda row: Plugin(row, ["got it"])})
    out = _signals(api).resource_signal(None, {}, "h", {"a": 1}, True)
    assert out == {"seen": True}
    [event] = api.store.events
    assert (event.resource_action, event.resource_status) == (
        "SIGNAL",
        "COMPLETE",
    )
    assert event.resource_status_reason == "Signal: got it"
    assert event.resource_type == "My::Type"


def test_async_signal_runs_later_and_failures_are_only_logged() -> None:
    spawned: list[Any] = []
    api = Api({"h": lambda row: Plugin(row, [RuntimeError("boom")])})
    assert _signals(api, spawned).resource_signal(None, {}, "h", None) is None
    assert api.store.events == []
    [work] = spawned
    work()  # does not raise
    assert api.built["h"].calls == [None]
    assert api.store.events == []


def test_lost_metadata_race_reruns_the_handler() -> None:
    race = exception.ConcurrentTransaction(action="metadata_set")
    api = Api({"h": lambda row: Plugin(row, [race, race, ""])})
    _signals(api).resource_signal(None, {}, "h", None, True)
    assert len(api.built["h"].calls) == 3
    [event] = api.store.events
    assert event.resource_status_reason == "No signal details provided"


def test_no_action_required_writes_no_event() -> None:
    api = Api({"h": lambda row: Plugin(row, [exception.NoActionRequired()])})
    _signals(api).resource_signal(None, {}, "h", "x", True)
    assert api.store.events == []


def test_failure_of_a_synchronous_signal_is_a_resource_failure() -> None:
    api = Api({"h": lambda row: Plugin(row, [ValueError("bad data")])})
    api.built = {}
    signals = _signals(api)
    with pytest.raises(exception.ResourceFailure) as err:
        signals.resource_signal(None, {}, "h", {}, True)
    assert str(err.value) == "ValueError: resources.h: bad data"


def test_metadata_refresh_only_for_types_that_implement_it() -> None:
    class Needs(Plugin):
        signal_needs_metadata_updates = True

    Refreshing.updated = []
    api = Api(
        {
            "h": lambda row: Needs(row, []),
            "server": lambda row: Refreshing(row, []),
            "plain": lambda row: Plugin(row, []),
        }
    )
    _signals(api).resource_signal(None, {}, "h", None, True)
    assert Refreshing.updated == ["server"]


def test_not_stored_resource_is_not_available() -> None:
    api = Api({"h": lambda row: Plugin(row, [])})
    api.store.rows = []
    with pytest.raises(exception.ResourceNotAvailable):
        _signals(api).resource_signal(None, {}, "h", None)


def test_no_signal_during_delete() -> None:
    api = Api({"h": lambda row: Plugin(row, [])})
    api.store.rows[0].action = "DELETE"
    with pytest.raises(exception.NotSupported) as err:
        _signals(api).resource_signal(None, {}, "h", None)
    assert str(err.value) == "Signal resource during DELETE is not supported."
    [event] = api.store.events
    assert event.resource_status_reason == (
        "Cannot signal resource during DELETE"
    )
