"""Real restarts of the broker and of the database mid-create (issue #6).

The shared servers are never touched: each scenario runs on a private
RabbitMQ node, PostgreSQL cluster or MariaDB server of its test session
(``tests/faults/servers.py``), stops it while a create is running, keeps
it down a few seconds and starts it again on the same port.

* Broker: every AMQP connection drops, the queues (not durable, as
  oslo.messaging declares them) and the casts in them are lost. The
  engines reconnect and the resume passes re-drive the lost nodes: the
  stack must end CREATE_COMPLETE with one row per resource.
* Database: every connection drops and nothing can be read or written
  while it is down. The stack must end CREATE_COMPLETE, or
  CREATE_FAILED with a reason; never stay IN_PROGRESS.
"""

from __future__ import annotations

import pytest

from tests.faults import servers
from tests.faults.harness import FaultCloud
from tests.faults.test_broker_db import create_stack, final_state

pytestmark = [pytest.mark.slow, pytest.mark.rabbit]

#: seconds a server stays down (on top of its stop and start times)
DOWN = 3
#: resources whose create spans the outage: their rows stay locked by
#: live engines while the server is down (a resume pass must not take
#: an engine it cannot reach for a dead one). A RabbitMQ node needs
#: 10-15 s to stop and boot, a database 1-3 s.
SLOW = {f"s{i}": 12.0 for i in range(4)}
SLOW_RABBIT = {f"s{i}": 25.0 for i in range(4)}


def _restart_mid_create(
    cloud: FaultCloud,
    server: servers.PrivateServer,
    name: str,
    slow: dict[str, float],
) -> str:
    sid = create_stack(cloud, name, slow=slow)
    assert cloud.stack(sid)[0] == "CREATE_IN_PROGRESS", "fault came late"
    server.restart(DOWN)
    return sid


@pytest.mark.postgresql
def test_rabbitmq_restarted_mid_create(
    rabbit_restart_cloud: FaultCloud,
    private_rabbit: servers.PrivateRabbit,
    attempt: int,
) -> None:
    cloud = rabbit_restart_cloud
    sid = _restart_mid_create(
        cloud, private_rabbit, f"rabbit-restart-{attempt}", SLOW_RABBIT
    )
    final_state(cloud, sid, allow_failed=False, slow=SLOW_RABBIT)
    assert cloud.stolen(sid) == [], "locks taken from live engines"


@pytest.mark.postgresql
def test_postgresql_restarted_mid_create(
    pg_restart_cloud: FaultCloud,
    private_postgres: servers.PrivatePostgres,
    attempt: int,
) -> None:
    cloud = pg_restart_cloud
    sid = _restart_mid_create(
        cloud, private_postgres, f"pg-restart-{attempt}", SLOW
    )
    final_state(cloud, sid, slow=SLOW)


@pytest.mark.mariadb
def test_mariadb_restarted_mid_create(
    maria_restart_cloud: FaultCloud,
    private_mariadb: servers.PrivateMariaDB,
    attempt: int,
) -> None:
    cloud = maria_restart_cloud
    sid = _restart_mid_create(
        cloud, private_mariadb, f"maria-restart-{attempt}", SLOW
    )
    final_state(cloud, sid, slow=SLOW)
