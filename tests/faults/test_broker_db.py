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
from tests.faults.templates import RESOURCES, layered

pytestmark = [pytest.mark.slow, pytest.mark.rabbit]

COUNT = RESOURCES // 2
LAYER = COUNT // 4


def names(slow: dict[str, float] | None = None) -> list[str]:
    """The resource names of :func:`create_stack`'s template, sorted."""
    return sorted([f"r{i:03d}" for i in range(COUNT)] + list(slow or {}))


def create_stack(
    cloud: FaultCloud,
    name: str,
    wait: float = 1,
    slow: dict[str, float] | None = None,
) -> str:
    """Start 2 engines and a create; return once its first layer is done.

    :param slow: independent resources and their create times.
    """
    cloud.start_engines(2)
    ident = cloud.client.create_stack(
        cloud.ctxt,
        name,
        layered(COUNT, "one", {"create": wait}, LAYER, slow),
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


def _complete(
    cloud: FaultCloud, sid: str, slow: dict[str, float] | None = None
) -> None:
    cloud.wait_state(sid, "CREATE_COMPLETE", 120)
    rows = cloud.resources(sid)
    assert sorted(r.name for r in rows) == names(slow), cloud.duplicates(sid)
    assert {f"{r.action}_{r.status}" for r in rows} == {"CREATE_COMPLETE"}
    assert not [r.name for r in rows if r.engine_id]


@pytest.mark.postgresql
def test_amqp_connections_closed_mid_create(
    pg_cloud: FaultCloud, attempt: int
) -> None:
    cloud = pg_cloud
    # rabbitmqctl (an Erlang VM per call) can take several seconds on a
    # loaded machine: each layer waits long enough for the faults to land
    # while the create runs (a soak run at load 40 saw it land late)
    sid = create_stack(cloud, f"amqp-{attempt}", wait=5)
    cloud.close_amqp_connections()
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    time.sleep(1)
    cloud.close_amqp_connections()  # again, while they reconnect
    _complete(cloud, sid)


def final_state(
    cloud: FaultCloud,
    sid: str,
    allow_failed: bool = True,
    slow: dict[str, float] | None = None,
) -> None:
    """Complete, or (``allow_failed``) failed with a reason; never left
    IN_PROGRESS."""
    try:
        cloud.wait_state(sid, "CREATE_COMPLETE", 120)
    except AssertionError as exc:
        state, reason = cloud.stack(sid)
        assert allow_failed and state == "CREATE_FAILED" and reason, exc
        return
    _complete(cloud, sid, slow)


@pytest.mark.postgresql
def test_postgresql_connections_terminated_mid_create(
    pg_cloud: FaultCloud, attempt: int
) -> None:
    cloud = pg_cloud
    sid = create_stack(cloud, f"pg-{attempt}")
    assert cloud.kill_db_connections() > 0
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    time.sleep(1)
    cloud.kill_db_connections()
    final_state(cloud, sid)


@pytest.mark.mariadb
def test_mariadb_connections_killed_mid_create(
    maria_cloud: FaultCloud, attempt: int
) -> None:
    cloud = maria_cloud
    sid = create_stack(cloud, f"maria-{attempt}")
    assert cloud.kill_db_connections() > 0
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    time.sleep(1)
    cloud.kill_db_connections()
    final_state(cloud, sid)
