"""A chain's releases share commits (``keel_heat_core.db.commit_runs``)
on MariaDB and PostgreSQL: a create and a delete of N chained resources
commit far fewer than N times, end as node by node, and a release that
fails inside a run undoes the run, whose nodes the same engine thread
runs again at once (no resume pass here: it runs once an hour).
"""

from __future__ import annotations

import collections
import contextlib
import pathlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core.db import event as event_repo
from keel_heat_core.db import resource as resource_repo
from tests.functional.db import databases
from tests.functional.engine.stacks import Cloud, scratch_database, settle
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


def engine_commits(
    cloud: Cloud,
) -> contextlib.AbstractContextManager[list[object]]:
    """The commits of the engines' threads in the block (not the test's:
    its requests and polls)."""
    test = threading.current_thread()

    def engines(conn: object) -> object | None:
        return conn if threading.current_thread() is not test else None

    return databases.collected(cloud.db, "commit", engines)


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
    api = cloud.endpoint(0)
    with engine_commits(cloud) as commits:
        ident = api.create_stack(
            cloud.ctxt, STACK, template("chain", N, "a"), {}, {}, {}
        )
        sid = ident["stack_id"]
        settle(cloud, sid, "CREATE_COMPLETE")
    # node by node, a chain commits at least once per resource
    assert len(commits) < N / 2, len(commits)
    rows = resource_repo.get_all_by_stack(cloud.db, sid)
    assert {f"{r.action}_{r.status}" for r in rows} == {"CREATE_COMPLETE"}
    assert {r.engine_id for r in rows} == {None}
    assert resource_events(cloud, sid) == expected_events("CREATE")
    with engine_commits(cloud) as commits:
        api.delete_stack(cloud.ctxt, ident)
        settle(cloud, sid, "DELETE_COMPLETE")
    assert len(commits) < N / 2, len(commits)
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
