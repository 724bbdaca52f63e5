"""An update's cleanups with nothing to clean go in runs, one transaction
each (``keel_heat_core/worker/cleanup_run.py``), on SQLite, MariaDB and
PostgreSQL: the traversal ends as it did node by node, a cleanup with
something to do is left to its node, and a run whose transaction fails
leaves nothing half-written for the resume pass."""

from __future__ import annotations

import pathlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db import sync_point as sync_repo
from keel_heat_core.service import db_stores
from keel_heat_core.worker import cleanup_run
from tests.functional.engine.stacks import Cloud, scratch_database, settle

N = 60

BACKENDS = [
    "sqlite",
    pytest.param("mariadb", marks=pytest.mark.mariadb),
    pytest.param("postgresql", marks=pytest.mark.postgresql),
]


def chain(value: str, **more: dict[str, Any]) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for i in range(N):
        props = {"value": value, **more.get(f"r{i}", {})}
        body: dict[str, Any] = {
            "type": "OS::Heat::TestResource",
            "properties": props,
        }
        if i:
            body["depends_on"] = [f"r{i - 1}"]
        resources[f"r{i}"] = body
    return {"heat_template_version": "2021-04-16", "resources": resources}


@pytest.fixture(params=BACKENDS)
def cloud(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path
) -> Iterator[Cloud]:
    with scratch_database(request.param, tmp_path) as url:
        cloud = Cloud(url, engines=1, resume_interval=1.0)
        try:
            yield cloud
        finally:
            cloud.close()


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The nodes every run covered, as ``repr`` of the node."""
    covered: list[list[str]] = []
    lock = threading.Lock()
    original = cleanup_run.CleanupRun.__call__

    def recording(self: Any, ahead: Any, txn: Any) -> None:
        original(self, ahead, txn)
        if self.done:
            with lock:
                covered.append([repr(n) for n in self.done])

    monkeypatch.setattr(cleanup_run.CleanupRun, "__call__", recording)
    return covered


def created(cloud: Cloud) -> tuple[dict[str, str], str]:
    api = cloud.endpoint(0)
    ident = api.create_stack(cloud.ctxt, "runs", chain("a"), {}, {}, {})
    settle(cloud, ident["stack_id"], "CREATE_COMPLETE")
    return ident, ident["stack_id"]


def by_name(cloud: Cloud, stack_id: str) -> dict[str, Any]:
    return {
        rec.name: rec
        for rec in resource_repo.get_all_by_stack(cloud.db, stack_id)
    }


def test_an_update_of_a_chain_runs_its_cleanups_in_runs(
    cloud: Cloud, runs: list[list[str]]
) -> None:
    ident, sid = created(cloud)
    before = by_name(cloud, sid)
    cloud.endpoint(0).update_stack(cloud.ctxt, ident, chain("b"), {}, {}, {})
    settle(cloud, sid, "UPDATE_COMPLETE")
    # the first cleanup (fired by the last update node's release) runs
    # as a node and starts a run; a run that reaches LIMIT leaves its
    # next node to run as usual, which starts the next run; the last
    # cleanup (it reports to the stack) runs as a node
    covered = [node for run in runs for node in run]
    assert len(runs) == -(-(N - 2) // (cleanup_run.LIMIT + 1)), runs
    assert len(covered) == N - 1 - len(runs), runs
    assert len(set(covered)) == len(covered)
    assert all(len(run) <= cleanup_run.LIMIT for run in runs)
    after = by_name(cloud, sid)
    assert {r.id for r in after.values()} == {r.id for r in before.values()}
    assert {f"{r.action}_{r.status}" for r in after.values()} == {
        "UPDATE_COMPLETE"
    }
    rec = stack_repo.get(cloud.db, sid)
    assert rec is not None
    # the traversal's sync points went with it, as node by node
    assert (
        sync_repo.list_by_traversal(cloud.db, sid, rec.current_traversal) == []
    )


def test_a_replaced_resource_is_cleaned_up_by_its_own_node(
    cloud: Cloud, runs: list[list[str]]
) -> None:
    ident, sid = created(cloud)
    old = by_name(cloud, sid)["r30"]
    template = chain("a", r30={"update_replace": True, "value": "b"})
    cloud.endpoint(0).update_stack(cloud.ctxt, ident, template, {}, {}, {})
    settle(cloud, sid, "UPDATE_COMPLETE")
    after = by_name(cloud, sid)
    assert len(after) == N
    assert after["r30"].id != old.id
    assert resource_repo.get(cloud.db, old.id) is None  # the old row went
    covered = {node for run in runs for node in run}
    # the old r30's cleanup deleted it: no run covered that node
    assert not any(f"entity_id={old.id}," in node for node in covered), runs
    assert covered  # the others still went in runs


def test_a_run_whose_transaction_fails_is_undone_and_resumed(
    cloud: Cloud, runs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    ident, sid = created(cloud)
    swaps = {"count": 0, "failed": 0}
    original = db_stores._InTransaction.swap

    def failing(self: Any, row: Any, *args: Any) -> bool:
        swaps["count"] += 1
        if swaps["count"] == 10:
            swaps["failed"] += 1
            raise RuntimeError("injected: the run's transaction fails")
        return original(self, row, *args)

    monkeypatch.setattr(db_stores._InTransaction, "swap", failing)
    cloud.endpoint(0).update_stack(cloud.ctxt, ident, chain("b"), {}, {}, {})
    # the failed run's nodes, the one that started it included, are
    # pending again: the resume pass drives them to the end
    settle(cloud, sid, "UPDATE_COMPLETE")
    assert swaps["failed"] == 1
    covered = [node for run in runs for node in run]
    # the run that failed recorded nothing; every other node once
    assert len(covered) == len(set(covered))
    assert {
        f"{r.action}_{r.status}" for r in by_name(cloud, sid).values()
    } == {"UPDATE_COMPLETE"}
