"""Engines as separate processes on real RabbitMQ and a real database.

A :class:`FaultCloud` owns one scratch database (``keel_flt_<random>``),
one control exchange (``keel_flt_<random>``) and a configuration file;
it starts ``keel-heat-engine`` processes (one cotyledon worker each, in
their own session so that ``kill -9`` of the group takes the master and
its worker together), drives stacks through the engine RPC client and
reads the outcome straight from the database.

The test configuration (see :data:`CONFIG`): ``periodic_interval = 1``
(heartbeat every second), ``resume_interval = 0.5`` (two resume passes a
second), ``engine_life_check_timeout = 1`` (the listener probe waits one
second). The *liveness period* the
scenarios measure recovery against is :data:`LIVENESS_PERIOD`.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

import oslo_messaging
import sqlalchemy as sa
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core.context import RequestContext
from keel_heat_core.migrations import runner
from keel_heat_core.rpc.client import ALLOWED_EXMODS, EngineClient
from keel_heat_core.testing import cloud_http, cloud_setup
from keel_heat_core.testing.cloud_setup import (
    ADMIN_URLS,
    KEY,
    kill_mariadb_connections,
)

ENGINE_BIN = pathlib.Path(sys.executable).with_name("keel-heat-engine")

#: seconds between two heartbeats of an engine (``periodic_interval``,
#: an integer option)
PERIODIC_INTERVAL = 1
#: seconds between two resume passes (``resume_interval``)
RESUME_INTERVAL = 0.5
#: seconds the listener probe waits for a dead engine
LIFE_CHECK_TIMEOUT = 1
#: seconds after which an engine's heartbeat is stale (the engine's rule:
#: two beats missed, plus one second; an engine beats every
#: ``min(periodic_interval, resume_interval)`` seconds)
HEARTBEAT_AGE = 2 * min(PERIODIC_INTERVAL, RESUME_INTERVAL) + 1
#: the time the engines need to notice a lost node: a dead holder once
#: its heartbeat is stale, on the next pass (interval + probe); a lost
#: cast of an unlocked node needs two quiet passes once the traversal
#: stalls.
LIVENESS_PERIOD = HEARTBEAT_AGE + 3 * RESUME_INTERVAL + 2 * LIFE_CHECK_TIMEOUT

CONFIG = """\
[DEFAULT]
transport_url = {transport_url}
control_exchange = {exchange}
host = {exchange}
periodic_interval = {interval}
resume_interval = {resume}
engine_life_check_timeout = {life}
num_engine_workers = 1
auth_encryption_key = {key}
rpc_response_timeout = 30
executor_thread_pool_size = 64

[database]
connection = {url}
max_retries = -1
retry_interval = 1

[oslo_messaging_rabbit]
kombu_reconnect_delay = 0.5
rabbit_retry_interval = 1
rabbit_retry_backoff = 1
rabbit_interval_max = 2
heartbeat_timeout_threshold = 10
"""


def scratch_database(
    backend: str, admin_url: str | None = None
) -> contextlib.AbstractContextManager[str]:
    """An empty database named ``keel_flt_<random>``; dropped after.

    :param admin_url: the server (a superuser URL); by default the shared
        server of ``backend`` (:data:`ADMIN_URLS`).
    """
    return cloud_setup.scratch_database(
        backend, prefix="keel_flt_", admin_url=admin_url
    )


def _rabbitmqctl(*args: str) -> subprocess.CompletedProcess[str]:
    return cloud_setup.rabbitmqctl(*args)


def private_vhost() -> contextlib.AbstractContextManager[str]:
    """A RabbitMQ vhost of our own (``keel_flt_<random>``), deleted after
    (:func:`keel_heat_core.testing.cloud_setup.private_vhost`)."""
    return cloud_setup.private_vhost("keel_flt_")


def wait_for(
    predicate: Callable[[], Any], timeout: float, what: str = ""
) -> Any:
    """Poll ``predicate`` until it is true; fail after ``timeout`` s."""
    return cloud_http.wait_for(predicate, timeout, what, interval=0.1)


def _descendants(pid: int) -> list[int]:
    found = [pid]
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            path = f"/proc/{pid}/task/{task}/children"
            with open(path) as children:
                for child in children.read().split():
                    found.extend(_descendants(int(child)))
    return found


class EngineProcess:
    """One ``keel-heat-engine`` (master and one worker) in its session."""

    def __init__(self, config: pathlib.Path, log: pathlib.Path) -> None:
        self.log = log
        #: the engine id of the worker, once its heartbeat is seen
        self.engine_id = ""
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(
                [str(ENGINE_BIN), "--config-file", str(config)],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def logged_engine_id(self) -> str:
        """The engine id the worker logged when it started."""
        marker = "starting with engine_id "
        for line in self.log.read_text().splitlines():
            if marker in line:
                return line.split(marker, 1)[1].split()[0]
        raise AssertionError(f"no engine id in {self.log}")

    def pids(self) -> list[int]:
        """The master and its workers."""
        return _descendants(self.proc.pid)

    def kill(self) -> None:
        """``kill -9`` the whole engine (master and worker) at once."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it does not go."""
        if self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()


class FaultCloud:
    """Engine processes on one scratch database and one exchange.

    :param url: the scratch database.
    :param tmp: a directory for the configuration file and logs.
    :param vhost: the RabbitMQ vhost (see :func:`private_vhost`).
    """

    def __init__(
        self,
        url: str,
        tmp: pathlib.Path,
        vhost: str,
        transport_url: str | None = None,
        admin_url: str | None = None,
        extra_config: str = "",
    ) -> None:
        self.url = url
        self.vhost = vhost
        self.admin_url = admin_url
        self.tmp = tmp
        self.exchange = f"keel_flt_{uuid.uuid4().hex[:10]}"
        self.db = sa.create_engine(url, pool_pre_ping=True)
        runner.upgrade(self.db)
        self.config = tmp / "keel-heat.conf"
        self.config.write_text(
            CONFIG.format(
                transport_url=transport_url or cloud_setup.rabbit_url(vhost),
                exchange=self.exchange,
                interval=PERIODIC_INTERVAL,
                resume=RESUME_INTERVAL,
                life=LIFE_CHECK_TIMEOUT,
                key=KEY,
                url=url,
            )
            + extra_config
        )
        self.engines: list[EngineProcess] = []
        self.conf = cfg.ConfigOpts()
        keel_conf.register_opts(self.conf)
        self.conf(["--config-file", str(self.config)], project="keel-heat")
        self.transport = oslo_messaging.get_rpc_transport(
            self.conf, allowed_remote_exmods=ALLOWED_EXMODS
        )
        self.client = EngineClient(self.conf, self.transport)
        self.ctxt = RequestContext(
            user_id="user-1",
            project_id="project-1",
            username="demo",
            roles=["member"],
            auth_token="SECRET-TOKEN",
        )

    # -- engines ----------------------------------------------------------

    def start_engines(self, count: int = 1) -> list[EngineProcess]:
        """Start ``count`` engines at once; return when each has written
        its heartbeat row (the engine id is learnt from it)."""
        before = self.live_services()
        started = []
        for _ in range(count):
            log = self.tmp / f"engine-{len(self.engines)}.log"
            engine = EngineProcess(self.config, log)
            self.engines.append(engine)
            started.append(engine)
        new = wait_for(
            lambda: (
                found
                if len(found := self.live_services() - before) >= count
                else None
            ),
            90,
            f"{count} engine heartbeats (logs in {self.tmp})",
        )
        # the heartbeat rows do not say which process wrote them; each
        # worker logs its engine id when it starts
        for engine in started:
            engine.engine_id = engine.logged_engine_id()
        assert {e.engine_id for e in started} == new
        return started

    def busiest(self, stack_id: str) -> EngineProcess:
        """The running engine holding most resource locks of a stack."""
        held: dict[str, int] = {}
        for row in self.resources(stack_id):
            if row.engine_id:
                held[row.engine_id] = held.get(row.engine_id, 0) + 1
        running = [e for e in self.engines if e.proc.poll() is None]
        return max(running, key=lambda e: held.get(e.engine_id, 0))

    def live_services(self) -> set[str]:
        """Engine ids of service rows not soft-deleted."""
        with self.db.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT engine_id FROM service WHERE deleted_at IS NULL"
                )
            ).scalars()
            return set(rows)

    # -- reads --------------------------------------------------------------

    def stack(self, stack_id: str) -> tuple[str, str]:
        """``(ACTION_STATUS, reason)`` of a stack, deleted or not."""
        with self.db.connect() as conn:
            row = conn.execute(
                sa.text(
                    "SELECT action, status, status_reason FROM stack "
                    "WHERE id = :i"
                ),
                {"i": stack_id},
            ).one()
        return f"{row.action}_{row.status}", row.status_reason

    def resources(self, stack_id: str) -> list[Any]:
        """Every resource row of a stack (name, state, lock, template)."""
        with self.db.connect() as conn:
            return list(
                conn.execute(
                    sa.text(
                        "SELECT r.id, r.name, r.action, r.status, "
                        "r.engine_id, r.current_template_id, "
                        "r.replaced_by, r.replaces, r.status_reason, "
                        "p.data AS props FROM resource r "
                        "LEFT JOIN resource_properties_data p "
                        "ON p.id = r.rsrc_prop_data_id "
                        "WHERE r.stack_id = :i ORDER BY r.id"
                    ),
                    {"i": stack_id},
                )
            )

    def duplicates(self, stack_id: str) -> list[tuple[Any, ...]]:
        """Rows sharing a name with another row (for failure messages)."""
        rows = self.resources(stack_id)
        names = [row.name for row in rows]
        return [
            (
                row.id,
                row.name,
                f"{row.action}_{row.status}",
                row.engine_id,
                row.replaces,
                row.replaced_by,
                row.status_reason,
            )
            for row in rows
            if names.count(row.name) > 1
        ]

    def stolen(self, stack_id: str) -> list[str]:
        """Resources whose lock was taken from an engine judged dead
        (their ``Worker went down`` events)."""
        with self.db.connect() as conn:
            return list(
                conn.execute(
                    sa.text(
                        "SELECT resource_name FROM event WHERE stack_id = :i "
                        "AND resource_status_reason LIKE 'Worker went down%'"
                    ),
                    {"i": stack_id},
                ).scalars()
            )

    def count_state(self, stack_id: str, state: str) -> int:
        """How many resource rows of a stack are in ``state``."""
        return sum(
            1
            for row in self.resources(stack_id)
            if f"{row.action}_{row.status}" == state
        )

    def wait_state(self, stack_id: str, wanted: str, timeout: float) -> float:
        """Wait until the stack leaves IN_PROGRESS; assert it is
        ``wanted`` and return when it got there (monotonic)."""
        try:
            state, reason = wait_for(
                lambda: self._final(stack_id), timeout, wanted
            )
        except AssertionError:
            state, reason = self.stack(stack_id)
            raise AssertionError(
                f"stack still {state} ({reason}) after {timeout}s; "
                f"{self.summary(stack_id)}; logs in {self.tmp}"
            ) from None
        assert state == wanted, f"{state}: {reason}"
        return time.monotonic()

    def _final(self, stack_id: str) -> tuple[str, str] | None:
        state, reason = self.stack(stack_id)
        return None if state.endswith("IN_PROGRESS") else (state, reason)

    def summary(self, stack_id: str) -> dict[str, int]:
        """Resource rows counted by state (and locked ones)."""
        found: dict[str, int] = {}
        for row in self.resources(stack_id):
            key = f"{row.action}_{row.status}"
            found[key] = found.get(key, 0) + 1
            if row.engine_id:
                found["locked"] = found.get("locked", 0) + 1
        return found

    # -- faults -------------------------------------------------------------

    def close_amqp_connections(self) -> None:
        """Close every AMQP connection of this cloud's processes (its
        engines and the test's client) and nobody else's: all of the
        private vhost's."""
        done = _rabbitmqctl(
            "close_all_connections", "--vhost", self.vhost, "fault test"
        )
        assert done.returncode == 0, done.stderr

    def kill_db_connections(self) -> int:
        """Terminate every server connection to the scratch database."""
        name = sa.engine.make_url(self.url).database
        backend = self.db.dialect.name
        admin_url = (
            self.admin_url
            or ADMIN_URLS["mariadb" if backend == "mysql" else "postgresql"]
        )
        admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                if backend == "mysql":
                    return kill_mariadb_connections(conn, str(name))
                return len(
                    conn.execute(
                        sa.text(
                            "SELECT pg_terminate_backend(pid) FROM "
                            "pg_stat_activity WHERE datname = :n "
                            "AND pid <> pg_backend_pid()"
                        ),
                        {"n": name},
                    ).all()
                )
        finally:
            admin.dispose()

    # -- teardown -------------------------------------------------------

    def close(self) -> None:
        """Stop every engine and the client (the exchanges go with the
        private vhost)."""
        for engine in self.engines:
            engine.kill()
        self.transport.cleanup()
        self.db.dispose()
