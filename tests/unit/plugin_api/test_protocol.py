"""The lifecycle protocol: which capabilities a plugin has."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api import protocol
from keel_heat_core.testing.fakes import FakeDefinition, FakeStack


class Bare:
    """A plugin object with only a create and a reference."""

    def handle_create(self) -> str:
        return "cookie"

    def FnGetRefId(self) -> str:  # noqa: N802 - Heat's name
        return "ref"


class Thing(api.Resource):
    def handle_create(self) -> None:
        pass

    def check_create_complete(self, cookie: Any) -> bool:
        return True

    def handle_create_cancel(self, cookie: Any) -> None:
        pass


def _thing() -> Thing:
    return Thing("t", FakeDefinition("t", "Test::Thing", {}), FakeStack())


GUARDS = [
    protocol.shows_state,
    protocol.has_physical_id,
    protocol.has_store,
    protocol.has_definition,
    protocol.has_validated_properties,
    protocol.decides_replace,
    protocol.updates_in_place,
    protocol.replaces_on_template_diff,
    protocol.replaces_when_failed,
    protocol.declares_update_allowed,
    protocol.has_attributes,
    protocol.has_reference,
    protocol.runs_locally,
    protocol.has_data,
    protocol.preemptible,
]


def test_a_resource_has_every_capability_of_the_protocol() -> None:
    res = _thing()
    assert [g.__name__ for g in GUARDS if not g(res)] == []
    assert not protocol.awaits_stack(res)  # only nested-stack types wait


def test_a_bare_object_has_only_what_it_defines() -> None:
    bare = Bare()
    assert [g.__name__ for g in GUARDS if g(bare)] == ["has_reference"]


def test_action_hooks_are_named_after_the_action() -> None:
    res = _thing()
    create = protocol.action_hooks(res, "CREATE")
    assert create.handle == res.handle_create
    assert create.check == res.check_create_complete
    assert create.cancel == res.handle_create_cancel
    assert not create.empty
    suspend = protocol.action_hooks(Bare(), "SUSPEND")
    assert (suspend.handle, suspend.check, suspend.cancel) == (None,) * 3
    assert suspend.empty
    bare = protocol.action_hooks(Bare(), "CREATE")
    assert bare.handle is not None and bare.check is None
