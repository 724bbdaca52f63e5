"""The database unreachable for seconds in the middle of a create (issue 37).

A failover of a few seconds (Galera, a PostgreSQL primary switch) is
routine in production. Every engine write rides out an outage shorter
than ``[database] db_retry_timeout`` (60 s by default), retrying with
growing pauses; a longer one fails the stack once the database is back,
never leaving it IN_PROGRESS.

The short outage lands while a wide create's actions are starting: a
start is several writes (the lock with the properties, resource data,
the physical id, events) a few milliseconds apart, and a resource whose
later writes met the outage used to fail with ``DBConnectionError``
after oslo.db's three retries. Whether one does in a given run depends
on where the outage lands; ``tests/unit/db/test_outage_retry.py``
checks the retry window itself.

The private MariaDB server of the test session (``servers.py``) is
really stopped and started again on the same port; the shared server is
never touched.
"""

from __future__ import annotations

import time

import pytest

from tests.faults import servers
from tests.faults.harness import FaultCloud, wait_for
from tests.faults.templates import RESOURCES, layered
from tests.faults.test_broker_db import create_stack

pytestmark = [pytest.mark.slow, pytest.mark.rabbit, pytest.mark.mariadb]

#: seconds the server stays down in the short outage (on top of its stop
#: and start times), well inside the default window
SHORT = 10
#: how long it stays down in the long outage, past the 3 s window of
#: the ``maria_restart_window`` engines
LONG = 15
#: resources of the short-outage stack, all independent, and how long
#: each create takes
COUNT = RESOURCES
WAIT = 5.0
#: resources whose create spans the outage: they finish, and write, while
#: the database is down
SLOW = {f"s{i}": 4.0 for i in range(4)}


def _rows_clean(cloud: FaultCloud, sid: str, wanted: list[str]) -> None:
    rows = cloud.resources(sid)
    assert sorted(r.name for r in rows) == wanted, cloud.duplicates(sid)
    assert not [r.name for r in rows if r.engine_id], "locks left behind"


def _create_wide(cloud: FaultCloud, name: str) -> str:
    """A wide create (:data:`COUNT` independent resources): the outage
    begins while their actions are starting, many of them half-way
    through the writes a start makes (the lock with the properties,
    resource data, the physical id, events)."""
    cloud.start_engines(2)
    ident = cloud.client.create_stack(
        cloud.ctxt,
        name,
        layered(COUNT, "one", {"create": WAIT}, COUNT),
        {},
        {},
        {"timeout_mins": 5},
    )
    sid: str = ident["stack_id"]
    wait_for(
        lambda: cloud.count_state(sid, "CREATE_IN_PROGRESS") >= 2,
        120,
        "resources being created",
    )
    return sid


@pytest.mark.xfail(
    strict=False,
    reason=(
        "not yet ridden out every time: a statement run inside a caller's "
        "transaction is not retried, so a node hit there gives up and its "
        "resource fails once the database is back (3 of 6 CI runs); the "
        "fix retries the whole transaction or re-drives such a node"
    ),
)
def test_database_down_inside_window(
    maria_restart_cloud: FaultCloud,
    private_mariadb: servers.PrivateMariaDB,
    attempt: int,
) -> None:
    cloud = maria_restart_cloud
    sid = _create_wide(cloud, f"db-short-{attempt}")
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    private_mariadb.restart(SHORT)
    cloud.wait_state(sid, "CREATE_COMPLETE", 180)
    wanted = [f"r{i:03d}" for i in range(COUNT)]
    _rows_clean(cloud, sid, wanted)
    rows = cloud.resources(sid)
    assert {f"{r.action}_{r.status}" for r in rows} == {"CREATE_COMPLETE"}


def test_database_down_past_window(
    maria_restart_window: FaultCloud,
    private_mariadb: servers.PrivateMariaDB,
    attempt: int,
) -> None:
    cloud = maria_restart_window
    sid = create_stack(cloud, f"db-long-{attempt}", wait=1, slow=SLOW)
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    private_mariadb.restart(LONG)
    back = time.monotonic()
    cloud.wait_state(sid, "CREATE_FAILED", 120)
    assert time.monotonic() - back < 60
    state, reason = cloud.stack(sid)
    assert reason, state
    # nodes of other resources may still be finishing their action
    wait_for(
        lambda: not [r.name for r in cloud.resources(sid) if r.engine_id],
        60,
        "every lock released",
    )
