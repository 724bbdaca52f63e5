"""A chain's releases share commits (``keel_heat_core.db.commit_runs``)
on MariaDB and PostgreSQL: a create and a delete of N chained resources
commit far fewer than N times, end as node by node, and a release that
fails inside a run undoes the run, whose nodes the same engine thread
runs again at once (no resume pass here: it runs once an hour).
"""

from __future__ import annotations

import collections
import pathlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from keel_heat_core.db import event as event_repo
from keel_heat_core.db import records
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import stack as stack_repo
from tests.functional.engine.stacks import Cloud, scratch_database, wait_for
from tests.functional.engine.test_round_trips import template

N = 40
STACK = "line"


@pytest.fixture(
    params=[
        pytest.param("mariadb", marks=pytest.mark.mariadb),
        pytest.param("postgresql", marks=pytest.mark.postgresql),
    ]
)
def cloud(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path
) -> Iterator[Cloud]:
    with scratch_database(request.param, tmp_path) as url:
        cloud = Cloud(url, engines=1, resume_interval=3600)
        try:
            yield cloud
        finally:
            cloud.close()


class Commits:
    """Commits of the engines' threads (not the test's: its requests and
    polls)."""

    def __init__(self, cloud: Cloud) -> None:
        self.count = 0
        self._lock = threading.Lock()
        self._test = threading.current_thread()
        sa.event.listen(cloud.db.engine, "commit", self._seen)

    def _seen(self, _conn: object) -> None:
        if threading.current_thread() is not self._test:
            with self._lock:
                self.count += 1


def settle(cloud: Cloud, stack_id: str, wanted: str) -> None:
    def done() -> records.StackRecord | None:
        rec = stack_repo.get(cloud.db, stack_id, show_deleted=True)
        assert rec is not None
        return None if rec.status == "IN_PROGRESS" else rec

    rec = wait_for(done, timeout=120, what=wanted)
    assert f"{rec.action}_{rec.status}" == wanted, rec.status_reason


def resource_events(cloud: Cloud, stack_id: str) -> collections.Counter[str]:
    """How many events each resource state has."""
    return collections.Counter(
        f"{e.resource_name} {e.resource_action}_{e.resource_status}"
        for e in event_repo.list_by_stack(cloud.db, stack_id)
        if e.resource_name != STACK  # the stack's own events
    )


def expected_events(action: str) -> collections.Counter[str]:
    return collections.Counter(
        f"r{i} {action}_{status}"
        for i in range(N)
        for status in ("IN_PROGRESS", "COMPLETE")
    )


def test_a_chain_commits_in_runs(cloud: Cloud) -> None:
    commits = Commits(cloud)
    api = cloud.endpoint(0)
    ident = api.create_stack(
        cloud.ctxt, STACK, template("chain", N, "a"), {}, {}, {}
    )
    sid = ident["stack_id"]
    settle(cloud, sid, "CREATE_COMPLETE")
    # node by node, a chain commits at least once per resource
    assert commits.count < N / 2, commits.count
    rows = resource_repo.get_all_by_stack(cloud.db, sid)
    assert {f"{r.action}_{r.status}" for r in rows} == {"CREATE_COMPLETE"}
    assert {r.engine_id for r in rows} == {None}
    assert resource_events(cloud, sid) == expected_events("CREATE")
    commits.count = 0
    api.delete_stack(cloud.ctxt, ident)
    settle(cloud, sid, "DELETE_COMPLETE")
    assert commits.count < N / 2, commits.count
    assert resource_repo.get_all_by_stack(cloud.db, sid) == []


def test_a_release_failing_in_a_run_runs_the_run_again(
    cloud: Cloud, monkeypatch: pytest.MonkeyPatch
) -> None:
    inserts = {"in_run": 0, "failed": 0}
    original = event_repo.insert_in_connection
    runs = cloud.db.runs

    def failing(conn: Any, events: Any) -> list[str]:
        if runs.serial() is not None:  # a release joining an open run
            inserts["in_run"] += 1
            if inserts["in_run"] == 12:
                inserts["failed"] += 1
                raise RuntimeError("injected: a statement of the run fails")
        return original(conn, events)

    monkeypatch.setattr(event_repo, "insert_in_connection", failing)
    api = cloud.endpoint(0)
    ident = api.create_stack(
        cloud.ctxt, STACK, template("chain", N, "a"), {}, {}, {}
    )
    sid = ident["stack_id"]
    settle(cloud, sid, "CREATE_COMPLETE")
    assert inserts["failed"] == 1
    # the undone releases' events went with them: each state once
    assert resource_events(cloud, sid) == expected_events("CREATE")
    rows = resource_repo.get_all_by_stack(cloud.db, sid)
    assert {f"{r.action}_{r.status}" for r in rows} == {"CREATE_COMPLETE"}
