"""Broker and database faults in the middle of a create (issue #6).

Connection-level faults only, so that other suites sharing the servers
are not disturbed: ``rabbitmqctl close_connection`` on the AMQP
connections of this test's engine processes, ``pg_terminate_backend`` /
``KILL`` on the connections to this test's scratch database.
"""

from __future__ import annotations

import time

import pytest

from tests.faults.harness import FaultCloud, wait_for
from tests.faults.templates import layered

pytestmark = [pytest.mark.slow, pytest.mark.rabbit]

COUNT = 100
LAYER = 25


def _create(cloud: FaultCloud, name: str, wait: float = 1) -> str:
    cloud.start_engines(2)
    ident = cloud.client.create_stack(
        cloud.ctxt,
        name,
        layered(COUNT, "one", {"create": wait}, LAYER),
        {},
        {},
        {"timeout_mins": 5},
    )
    sid: str = ident["stack_id"]
    wait_for(
        lambda: cloud.count_state(sid, "CREATE_COMPLETE") >= LAYER,
        120,
        "the first layer created",
    )
    return sid


def _complete(cloud: FaultCloud, sid: str) -> None:
    cloud.wait_state(sid, "CREATE_COMPLETE", 120)
    rows = cloud.resources(sid)
    assert sorted(r.name for r in rows) == [f"r{i:03d}" for i in range(COUNT)]
    assert {f"{r.action}_{r.status}" for r in rows} == {"CREATE_COMPLETE"}
    assert not [r.name for r in rows if r.engine_id]


@pytest.mark.postgresql
def test_amqp_connections_closed_mid_create(
    pg_cloud: FaultCloud, attempt: int
) -> None:
    cloud = pg_cloud
    sid = _create(cloud, f"amqp-{attempt}", wait=2)
    cloud.close_amqp_connections()
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    time.sleep(1)
    cloud.close_amqp_connections()  # again, while they reconnect
    _complete(cloud, sid)


def _final(cloud: FaultCloud, sid: str) -> None:
    """Complete, or failed with a reason; never left IN_PROGRESS."""
    try:
        cloud.wait_state(sid, "CREATE_COMPLETE", 120)
    except AssertionError as exc:
        state, reason = cloud.stack(sid)
        assert state == "CREATE_FAILED" and reason, exc
        return
    _complete(cloud, sid)


@pytest.mark.postgresql
def test_postgresql_connections_terminated_mid_create(
    pg_cloud: FaultCloud, attempt: int
) -> None:
    cloud = pg_cloud
    sid = _create(cloud, f"pg-{attempt}")
    assert cloud.kill_db_connections() > 0
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    time.sleep(1)
    cloud.kill_db_connections()
    _final(cloud, sid)


@pytest.mark.mariadb
def test_mariadb_connections_killed_mid_create(
    maria_cloud: FaultCloud, attempt: int
) -> None:
    cloud = maria_cloud
    sid = _create(cloud, f"maria-{attempt}")
    assert cloud.kill_db_connections() > 0
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    time.sleep(1)
    cloud.kill_db_connections()
    _final(cloud, sid)
