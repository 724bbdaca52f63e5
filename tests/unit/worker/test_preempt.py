"""A node that finds its resource locked by an older traversal asks the
resource to pre-empt that action (``handle_preempt``); a failed resource
whose plugin can repair it is updated, not replaced."""

import datetime
from typing import Any

import pytest

from keel_heat_core.model import rows as r
from tests.unit.worker import fakes
from tests.unit.worker.fakes import NOW, Harness


@pytest.fixture
def preempted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def handle_preempt(self: fakes.TestResource) -> None:
        calls.append(self.name)

    monkeypatch.setattr(
        fakes.TestResource, "handle_preempt", handle_preempt, raising=False
    )
    return calls


def _held(h: Harness, sid: str, since: datetime.datetime) -> int:
    """Row ``a`` locked by a live engine since ``since`` (an update of a
    traversal that is still running)."""
    row = h.rows(sid)["a"]
    h.stores.update_resource(
        row.id,
        {
            "engine_id": "engine-0",
            "action": r.UPDATE,
            "status": r.IN_PROGRESS,
            "updated_at": since,
        },
    )
    return row.id


def test_older_holder_is_preempted(preempted: list[str]) -> None:
    h = Harness(engines=1)
    sid = h.new_stack({"a": {"properties": {"value": "1"}}})
    h.run()
    _held(h, sid, NOW - datetime.timedelta(seconds=5))
    h.update(sid, {"a": {"properties": {"value": "2"}}})
    h.run()
    assert preempted == ["a"]
    # the node waits for the holder to re-trigger it
    assert h.state(sid) == "UPDATE_IN_PROGRESS"
    assert h.rows(sid)["a"].status == r.IN_PROGRESS


def test_holder_of_this_traversal_is_left_alone(
    preempted: list[str],
) -> None:
    """A duplicate delivery of a node whose action started in the
    current traversal must not cancel that action."""
    h = Harness(engines=1)
    sid = h.new_stack({"a": {"properties": {"value": "1"}}})
    h.run()
    h.update(sid, {"a": {"properties": {"value": "2"}}})
    _held(h, sid, NOW + datetime.timedelta(seconds=5))
    h.run()
    assert preempted == []


def test_failed_resource_repaired_in_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def needs_replace_failed(self: Any) -> bool:
        return False

    monkeypatch.setattr(
        fakes.TestResource,
        "needs_replace_failed",
        needs_replace_failed,
        raising=False,
    )
    h = Harness(engines=1)
    sid = h.new_stack({"a": {"properties": {"value": "1"}}})
    h.run()
    row = h.rows(sid)["a"]
    h.stores.update_resource(row.id, {"action": r.UPDATE, "status": r.FAILED})
    h.update(sid, {"a": {"properties": {"value": "2"}}})
    h.run()
    assert h.state(sid) == "UPDATE_COMPLETE"
    after = h.rows(sid)["a"]
    assert (after.id, after.physical_id) == (row.id, row.physical_id)
    assert (after.action, after.status) == (r.UPDATE, r.COMPLETE)
    assert ("update", "a") in h.cloud.calls
