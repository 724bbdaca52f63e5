"""Every engine killed mid-create, then as many started again (issue 37).

Two engines share a create; both are killed (``kill -9``) while
resources are being created, stay down :data:`DOWN` seconds (their
heartbeats go stale, so the restarted engines take them for dead at
once) and two fresh engines are started. Both resume the same nodes at
the same moment, which is the race the scenario is about: a dead
engine's lock must be taken over once, the row it was creating failed
and replaced once, and the failed original (with its physical
resource) deleted before the stack completes.

What is checked is read from the database, rows that ``resource list``
hides included: one row per resource, no lock left, each resource's
lock stolen at most once, and a delete of each stolen row's physical
resource.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
import sqlalchemy as sa

from tests.faults.harness import FaultCloud, wait_for
from tests.faults.templates import RESOURCES, layered

pytestmark = [pytest.mark.slow, pytest.mark.rabbit, pytest.mark.postgresql]

COUNT = RESOURCES
#: seconds the engines stay down (more than a heartbeat's age)
DOWN = 5

#: ``(resources per layer, seconds per create, rows created before the
#: kill)``: a chain (ten-deep layers of one-second creates) and a wide
#: stack (two layers, the kill while the first is in progress)
SHAPES = {
    "chain": (max(COUNT // 10, 1), 1.0, COUNT // 4),
    "wide": (COUNT // 2, 3.0, 1),
}


def _events(cloud: FaultCloud, stack_id: str) -> list[Any]:
    with cloud.db.connect() as conn:
        return list(
            conn.execute(
                sa.text(
                    "SELECT resource_name, physical_resource_id, "
                    "resource_action, resource_status, "
                    "resource_status_reason FROM event "
                    "WHERE stack_id = :i ORDER BY id"
                ),
                {"i": stack_id},
            )
        )


def _assert_clean(cloud: FaultCloud, sid: str, dead: set[str]) -> None:
    rows = cloud.resources(sid)
    names = Counter(row.name for row in rows)
    twice = sorted(name for name, n in names.items() if n > 1)
    assert not twice, (len(rows), cloud.duplicates(sid))
    assert sorted(names) == [f"r{i:03d}" for i in range(COUNT)]
    assert {f"{r.action}_{r.status}" for r in rows} == {"CREATE_COMPLETE"}
    assert not [r.name for r in rows if r.engine_id in dead]
    assert not [r.name for r in rows if r.engine_id], "locks left behind"
    events = _events(cloud, sid)
    stolen = [
        e
        for e in events
        if (e.resource_status_reason or "").startswith("Worker went down")
    ]
    counts = Counter(e.resource_name for e in stolen)
    assert not [n for n, c in counts.items() if c > 1], (
        "locks stolen twice",
        sorted(n for n, c in counts.items() if c > 1),
    )
    current = {row.name: row for row in rows}
    deleted = {
        e.physical_resource_id
        for e in events
        if (e.resource_action, e.resource_status) == ("DELETE", "COMPLETE")
    }
    orphans = [
        (e.resource_name, e.physical_resource_id)
        for e in stolen
        if e.physical_resource_id
        and e.physical_resource_id not in deleted
        and e.physical_resource_id != _physical(cloud, current, e)
    ]
    assert not orphans, ("physical resources never deleted", orphans)


def _physical(cloud: FaultCloud, current: dict[str, Any], event: Any) -> str:
    row = current.get(event.resource_name)
    if row is None:
        return ""
    with cloud.db.connect() as conn:
        return str(
            conn.execute(
                sa.text("SELECT nova_instance FROM resource WHERE id = :i"),
                {"i": row.id},
            ).scalar()
            or ""
        )


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_kill_all_engines_restart_all(
    pg_cloud: FaultCloud, shape: str, attempt: int
) -> None:
    cloud = pg_cloud
    layer, wait, before_kill = SHAPES[shape]
    first = cloud.start_engines(2)
    ident = cloud.client.create_stack(
        cloud.ctxt,
        f"restart-all-{shape}-{attempt}",
        layered(COUNT, "one", {"create": wait}, layer),
        {},
        {},
        {},
    )
    sid = ident["stack_id"]
    wait_for(
        lambda: (
            cloud.count_state(sid, "CREATE_COMPLETE") >= before_kill
            and cloud.count_state(sid, "CREATE_IN_PROGRESS") > 0
        ),
        120,
        "resources being created",
    )
    for engine in first:
        engine.kill()
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    dead = {engine.engine_id for engine in first}
    assert any(r.engine_id in dead for r in cloud.resources(sid))
    time.sleep(DOWN)
    cloud.start_engines(2)
    cloud.wait_state(sid, "CREATE_COMPLETE", 180)
    _assert_clean(cloud, sid, dead)
