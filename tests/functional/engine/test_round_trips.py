"""A stack of N resources costs O(N) database statements, not O(N^2).

Every SQL statement the engines run (counted with a SQLAlchemy
``before_cursor_execute`` listener; the test's own status polls are left
out) is divided by N for a create, an update (a new ``value`` for every
resource) and a delete of a *wide* stack (N independent resources, all
reporting into the stack's one sync point) and a *chain* (each resource
depends on the previous one). The figure per resource is bounded by a
constant and does not grow from N = 20 to N = 80.
"""

import pathlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from keel_heat_core.db import stack as stack_repo
from tests.functional.engine.stacks import Cloud, scratch_database

SMALL, LARGE = 20, 80
#: statements per resource (BEGINs included, SQLite, two engines),
#: measured at N = 80 (2026-12-07): chain 7.6 / 9.7 / 4.7 for create /
#: update / delete: a release reads the rows of the line after its
#: successor with it, and the next releases take them from there
#: (``DbStackStore.read_ahead_in``). 2026-12-06, fifth session: chain
#: update 10.5:
#: an update's cleanups with nothing to clean go in runs, one
#: transaction and one swap each (``worker/cleanup_run.py``); the rest
#: as before. Fourth session: wide 10.3 / 12.0 /
#: 6.5, chain 8.4 / 13.4 / 5.5 for create / update (an update node and a
#: cleanup node per resource) / delete; a create's data goes in without
#: a lookup when the node read its row without data. Third session: wide
#: 11.7 / 12.7 / 7.2, chain 9.6 / 13.4 / 5.5. OS::Heat::TestResource's
#: actions are local (``worker/local.py``): each is one compare-and-swap
#: that takes and gives back the lock and carries the outcome, both
#: events, the resource data and the handoff to the successors; and a
#: node that fires the next one with a read and swap (a cleanup with
#: nothing to clean) reads it in that transaction. Earlier that session:
#: wide 13.2 / 13.2 / 7.5, chain 10.5 / 15.3 / 6.5; before local
#: actions: wide 19.8 / 17.0 / 10.1, chain 16.5 / 19.4 / 8.5;
#: 2026-12-02: chain 19.6 / 24.4 / 12.5; before that 21.6 / 30.4 / 18.5.
#: A wide stack's count also depends on how many roots the combiner
#: batches into one write of the stack's sync point.
BOUND = {
    "wide": {"create": 12.0, "update": 15.0, "delete": 9.0},
    "chain": {"create": 8.0, "update": 10.2, "delete": 5.1},
}


def template(shape: str, count: int, value: str) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for i in range(count):
        body: dict[str, Any] = {
            "type": "OS::Heat::TestResource",
            "properties": {"value": value},
        }
        if shape == "chain" and i:
            body["depends_on"] = [f"r{i - 1}"]
        resources[f"r{i}"] = body
    return {"heat_template_version": "2021-04-16", "resources": resources}


class Counter:
    """Statements run by any thread but the polling test thread."""

    def __init__(self, engine: sa.engine.Engine) -> None:
        self.engine = engine
        self.count = 0
        self._polling = threading.local()
        self._lock = threading.Lock()

    def __call__(self, *_: object) -> None:
        if not getattr(self._polling, "on", False):
            with self._lock:
                self.count += 1

    def __enter__(self) -> "Counter":
        sa.event.listen(self.engine, "before_cursor_execute", self)
        return self

    def __exit__(self, *_: object) -> None:
        sa.event.remove(self.engine, "before_cursor_execute", self)

    def poll(self, cloud: Cloud, stack_id: str, wanted: str) -> None:
        end = time.monotonic() + 300
        while time.monotonic() < end:
            self._polling.on = True
            try:
                rec = stack_repo.get(cloud.db, stack_id, show_deleted=True)
            finally:
                self._polling.on = False
            assert rec is not None
            if rec.status != "IN_PROGRESS":
                state = f"{rec.action}_{rec.status}"
                assert state == wanted, rec.status_reason
                return
            time.sleep(0.1)
        raise AssertionError(f"still IN_PROGRESS, wanted {wanted}")


def lifecycle(tmp: pathlib.Path, shape: str, count: int) -> dict[str, int]:
    """Statements of create, update and delete of one stack."""
    counts = {}
    with scratch_database("sqlite", tmp) as url:
        cloud = Cloud(url, resume_interval=3600)
        try:
            api = cloud.endpoint(0)
            with Counter(cloud.db.engine) as seen:
                ident = api.create_stack(
                    cloud.ctxt, "rt", template(shape, count, "a"), {}, {}, {}
                )
                seen.poll(cloud, ident["stack_id"], "CREATE_COMPLETE")
                counts["create"] = seen.count
                seen.count = 0
                api.update_stack(
                    cloud.ctxt, ident, template(shape, count, "b"), {}, {}, {}
                )
                seen.poll(cloud, ident["stack_id"], "UPDATE_COMPLETE")
                counts["update"] = seen.count
                seen.count = 0
                api.delete_stack(cloud.ctxt, ident)
                seen.poll(cloud, ident["stack_id"], "DELETE_COMPLETE")
                counts["delete"] = seen.count
        finally:
            cloud.close()
    return counts


@pytest.fixture(scope="module")
def measured(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[tuple[str, int], dict[str, int]]]:
    out = {}
    for shape in ("wide", "chain"):
        for count in (SMALL, LARGE):
            tmp = tmp_path_factory.mktemp(f"{shape}{count}")
            out[(shape, count)] = lifecycle(tmp, shape, count)
    yield out


@pytest.mark.parametrize("action", ["create", "update", "delete"])
@pytest.mark.parametrize("shape", ["wide", "chain"])
def test_statements_per_resource_do_not_grow(
    measured: dict[tuple[str, int], dict[str, int]], shape: str, action: str
) -> None:
    small = measured[(shape, SMALL)][action] / SMALL
    large = measured[(shape, LARGE)][action] / LARGE
    print(f"{shape} {action}: {small:.1f} (N={SMALL}) {large:.1f} (N={LARGE})")
    assert large <= BOUND[shape][action], measured
    # constant per resource: the larger stack costs no more per resource
    # (plus a margin for the fixed statements spread over fewer rows and
    # the odd CAS retry between the two engines)
    assert large <= small * 1.15 + 1, measured
