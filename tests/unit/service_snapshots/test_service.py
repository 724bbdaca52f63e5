"""The snapshot and abandon services with fake collaborators."""

from __future__ import annotations

import datetime
import types
from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.db import records
from keel_heat_core.model import rows as r
from keel_heat_core.service import snapshots


def _stack(**kw: Any) -> r.StackRow:
    values: dict[str, Any] = {
        "id": "sid",
        "name": "st",
        "action": r.CREATE,
        "status": r.COMPLETE,
        "status_reason": "",
        "raw_template_id": 1,
        "current_traversal": "t1",
    }
    values.update(kw)
    return r.StackRow(**values)


def _snap(**kw: Any) -> records.SnapshotRecord:
    values: dict[str, Any] = {
        "id": "snap-1",
        "stack_id": "sid",
        "name": "s1",
        "action": "CREATE",
        "status": r.COMPLETE,
        "status_reason": "",
        "data": {"resources": {}},
        "tenant": "p",
        "created_at": datetime.datetime(2026, 1, 2, 3, 4, 5),
        "updated_at": None,
    }
    values.update(kw)
    return records.SnapshotRecord(**values)


class FakeAPI:
    def __init__(self, stack: r.StackRow, limit: int = 32) -> None:
        self.stack = stack
        self.db = object()
        self.conf = types.SimpleNamespace(
            max_snapshots_per_stack=limit,
            enable_stack_abandon=False,
            enable_stack_adopt=False,
        )

    def load(self, ctxt: Any, identity: Any) -> r.StackRow:
        return self.stack

    def stored(self, stack: r.StackRow) -> dict[str, Any]:
        return {}


def test_format_snapshot_keys_and_time():
    shown = snapshots.format_snapshot(_snap())
    assert list(shown) == [
        "id",
        "name",
        "action",
        "status",
        "status_reason",
        "data",
        "creation_time",
    ]
    assert shown["creation_time"] == "2026-01-02T03:04:05Z"


def test_snapshot_of_a_busy_stack_is_refused():
    api = FakeAPI(_stack(action=r.UPDATE, status=r.IN_PROGRESS))
    with pytest.raises(exception.ActionInProgress) as err:
        snapshots.StackSnapshots(api).stack_snapshot(None, "sid", "n")
    assert str(err.value) == (
        "Stack st already has an action (UPDATE) in progress."
    )


def test_snapshot_limit(monkeypatch: pytest.MonkeyPatch):
    api = FakeAPI(_stack(), limit=2)
    monkeypatch.setattr(
        snapshots.snapshot_repo, "count_by_stack", lambda *a: 2
    )
    ctxt = types.SimpleNamespace(is_admin=False, project_id="p")
    with pytest.raises(exception.RequestLimitExceeded) as err:
        snapshots.StackSnapshots(api).stack_snapshot(ctxt, "sid", "n")
    assert str(err.value) == (
        "Request limit exceeded: You have reached the maximum snapshots "
        "per stack, 2. Please delete some snapshots."
    )


def test_snapshot_of_another_stack_is_not_found(
    monkeypatch: pytest.MonkeyPatch,
):
    api = FakeAPI(_stack())
    monkeypatch.setattr(
        snapshots.snapshot_repo,
        "get",
        lambda *a: _snap(stack_id="other"),
    )
    with pytest.raises(exception.SnapshotNotFound):
        snapshots.StackSnapshots(api).show_snapshot(None, "sid", "snap-1")


@pytest.mark.parametrize(
    ("call", "status", "text"),
    [
        ("stack_restore", r.IN_PROGRESS, "Restoring incomplete snapshot"),
        ("stack_restore", r.FAILED, "Restoring incomplete snapshot"),
        ("delete_snapshot", r.IN_PROGRESS, "Deleting in-progress snapshot"),
    ],
)
def test_incomplete_snapshots(
    monkeypatch: pytest.MonkeyPatch, call: str, status: str, text: str
):
    api = FakeAPI(_stack())
    monkeypatch.setattr(
        snapshots.snapshot_repo, "get", lambda *a: _snap(status=status)
    )
    with pytest.raises(exception.NotSupported) as err:
        getattr(snapshots.StackSnapshots(api), call)(None, "sid", "snap-1")
    assert str(err.value) == f"{text} is not supported."


class RepoCalls:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[Any, ...]] = []
        repo = snapshots.snapshot_repo
        monkeypatch.setattr(repo, "get", lambda db, sid, scope: _snap())
        monkeypatch.setattr(
            repo,
            "add_resource_snapshot",
            lambda db, sid, name, data: self.calls.append(("part", name)),
        )
        monkeypatch.setattr(
            repo,
            "update",
            lambda db, sid, values, scope: self.calls.append(
                ("update", sid, values)
            ),
        )
        monkeypatch.setattr(
            repo,
            "list_by_stack",
            lambda db, stack_id, scope: [_snap(), _snap(id="snap-2")],
        )
        monkeypatch.setattr(
            repo,
            "delete",
            lambda db, sid, scope: self.calls.append(("delete", sid)),
        )


def test_finisher_stores_resources_and_completes(
    monkeypatch: pytest.MonkeyPatch,
):
    repo = RepoCalls(monkeypatch)
    data = {
        "name": "st",
        "status": r.IN_PROGRESS,
        "resources": {"a": {"name": "a"}, "b": {"name": "b"}},
    }
    monkeypatch.setattr(
        snapshots, "stack_data", lambda db, stack, defs: dict(data)
    )
    templates = types.SimpleNamespace(definitions=lambda tid, stack: {})
    finish = snapshots.SnapshotFinisher(object(), templates)  # type: ignore
    stack = _stack(action=r.SNAPSHOT, current_traversal="snap-1")
    finish(None, stack, r.COMPLETE, "done")
    assert repo.calls[:2] == [("part", "a"), ("part", "b")]
    assert repo.calls[2] == (
        "update",
        "snap-1",
        {
            "status": r.COMPLETE,
            "status_reason": "done",
            "data": {"name": "st", "status": r.COMPLETE, "resources": {}},
        },
    )


def test_finisher_failed_snapshot(monkeypatch: pytest.MonkeyPatch):
    repo = RepoCalls(monkeypatch)
    finish = snapshots.SnapshotFinisher(object(), None)  # type: ignore
    stack = _stack(action=r.SNAPSHOT, current_traversal="snap-1")
    finish(None, stack, r.FAILED, "Resource SNAPSHOT failed: x")
    assert repo.calls == [
        (
            "update",
            "snap-1",
            {
                "status": r.FAILED,
                "status_reason": "Resource SNAPSHOT failed: x",
            },
        )
    ]


def test_finisher_deletes_snapshots_with_the_stack(
    monkeypatch: pytest.MonkeyPatch,
):
    repo = RepoCalls(monkeypatch)
    finish = snapshots.SnapshotFinisher(object(), None)  # type: ignore
    finish(None, _stack(action=r.DELETE), r.FAILED, "x")
    assert repo.calls == []
    finish(None, _stack(action=r.DELETE), r.COMPLETE, "x")
    assert repo.calls == [("delete", "snap-1"), ("delete", "snap-2")]


class Backup:
    """A plugin whose snapshots are backups somewhere."""

    def __init__(self, name: str, calls: list[Any], fail: bool) -> None:
        self.name = name
        self.calls = calls
        self.fail = fail

    def handle_delete_snapshot(self, part: dict[str, Any]) -> str:
        if self.fail:
            raise ValueError("backup busy")
        self.calls.append((self.name, part["resource_data"]["backup"]))
        return "cookie"

    def check_delete_snapshot_complete(self, cookie: str) -> bool:
        return cookie == "cookie"


def _api_with_plugins(fail: bool = False) -> tuple[FakeAPI, list[Any]]:
    api = FakeAPI(_stack())
    calls: list[Any] = []
    rows = [
        r.ResourceRow(id=1, name="vol", stack_id="sid"),
        r.ResourceRow(id=2, name="old", stack_id="sid", replaced_by=3),
    ]
    api.deps = types.SimpleNamespace(  # type: ignore[attr-defined]
        poll_interval=0.0,
        resources=types.SimpleNamespace(get_resources=lambda sid: rows),
        plugins=lambda defn, row, props, stack: Backup(row.name, calls, fail),
    )
    api.stored = lambda stack: {"vol": object(), "old": object()}  # type: ignore[method-assign]
    return api, calls


def test_delete_snapshot_deletes_the_backups(monkeypatch: pytest.MonkeyPatch):
    repo = RepoCalls(monkeypatch)
    data = {
        "resources": {
            "vol": {"resource_data": {"backup": "b-1"}},
            "old": {"resource_data": {"backup": "b-0"}},
            "gone": {"resource_data": {"backup": "b-2"}},
        }
    }
    monkeypatch.setattr(
        snapshots.snapshot_repo, "get", lambda *a: _snap(data=data)
    )
    api, calls = _api_with_plugins()
    snapshots.StackSnapshots(api).delete_snapshot(None, "sid", "snap-1")
    assert calls == [("vol", "b-1")]
    assert repo.calls == [("delete", "snap-1")]


def test_a_failed_backup_deletion_keeps_the_snapshot(
    monkeypatch: pytest.MonkeyPatch,
):
    repo = RepoCalls(monkeypatch)
    data = {"resources": {"vol": {"resource_data": {"backup": "b-1"}}}}
    monkeypatch.setattr(
        snapshots.snapshot_repo, "get", lambda *a: _snap(data=data)
    )
    api, _ = _api_with_plugins(fail=True)
    snapshots.StackSnapshots(api).delete_snapshot(None, "sid", "snap-1")
    assert repo.calls == [
        (
            "update",
            "snap-1",
            {
                "action": "DELETE",
                "status": r.FAILED,
                "status_reason": "backup busy",
            },
        )
    ]
