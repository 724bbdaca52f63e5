"""Two engine processes on RabbitMQ and MariaDB/PostgreSQL: the API side
calls topic ``engine`` over the broker, the traversal is shared by the
processes through check_resource casts and sync points; killing one
engine mid-create is survived (automatic resume and lock stealing)."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import oslo_messaging
import pytest

from keel_heat_core.context import RequestContext
from keel_heat_core.db import event as event_repo
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db.database import Database
from keel_heat_core.migrations import runner
from keel_heat_core.rpc import transport as shared
from keel_heat_core.rpc.worker_client import serializer
from tests.functional.engine.stacks import (
    KEY,
    make_conf,
    scratch_database,
    wait_for,
)

pytestmark = [pytest.mark.rabbit, pytest.mark.slow]

RABBIT = "rabbit://guest:guest@127.0.0.1:5672/"
ROOT = pathlib.Path(__file__).resolve().parents[3]


class Engines:
    """Engine processes plus an RPC client standing in for the API."""

    def __init__(self, url: str, count: int = 2) -> None:
        self.url = url
        self.exchange = f"keel_eng_{uuid.uuid4().hex[:8]}"
        self.db = Database(url, encryption_key=KEY)
        runner.upgrade(self.db.engine)
        self.procs: list[subprocess.Popen[str]] = []
        for _ in range(count):
            self.start_one()
        self.conf = make_conf(url, RABBIT, self.exchange)
        target = oslo_messaging.Target(
            topic=self.exchange + ".engine", version="1.36"
        )
        self.client = oslo_messaging.get_rpc_client(
            shared.get_transport(self.conf),
            target,
            serializer=serializer(),
            timeout=60,
        )
        self.ctxt = RequestContext(
            user_id="user-1", project_id="project-1", username="demo"
        )

    def start_one(self) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.functional.engine.engine_process",
                self.url,
                RABBIT,
                self.exchange,
                "1.0",
                self.exchange + ".",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("ENGINE "), line
        self.procs.append(proc)
        return proc

    def call(self, method: str, **kwargs: Any) -> Any:
        return self.client.call(self.ctxt, method, **kwargs)

    def state(self, stack_id: str) -> str:
        rec = stack_repo.get(self.db, stack_id, show_deleted=True)
        assert rec is not None
        return f"{rec.action}_{rec.status}"

    def wait_state(self, stack_id: str, wanted: str, timeout: float) -> None:
        try:
            wait_for(lambda: self.state(stack_id) == wanted, timeout, wanted)
        except AssertionError:
            rec = stack_repo.get(self.db, stack_id, show_deleted=True)
            assert rec is not None
            raise AssertionError(
                f"{rec.action}_{rec.status}: {rec.status_reason}"
            ) from None

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        shared.cleanup()
        self.db.dispose()


@pytest.fixture(
    params=[
        pytest.param("mariadb", marks=pytest.mark.mariadb),
        pytest.param("postgresql", marks=pytest.mark.postgresql),
    ]
)
def engines(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path
) -> Iterator[Engines]:
    with scratch_database(request.param, tmp_path) as url:
        engines = Engines(url)
        try:
            yield engines
        finally:
            engines.close()


def template(count: int, **props: Any) -> dict[str, Any]:
    resources: dict[str, Any] = {
        f"r{i}": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": f"v{i}", **props},
        }
        for i in range(count)
    }
    resources["top"] = {
        "type": "OS::Heat::None",
        "depends_on": [f"r{i}" for i in range(count)],
    }
    return {"heat_template_version": "2021-04-16", "resources": resources}


def test_create_update_delete(engines: Engines) -> None:
    ident = engines.call(
        "create_stack",
        stack_name="wide",
        template=template(10),
        params={},
        files={},
        args={},
    )
    sid = ident["stack_id"]
    engines.wait_state(sid, "CREATE_COMPLETE", 300)
    rows = resource_repo.get_all_by_stack(engines.db, sid)
    assert len(rows) == 11
    assert {(r.action, r.status) for r in rows} == {("CREATE", "COMPLETE")}
    assert all(r.engine_id is None for r in rows)

    engines.call(
        "update_stack",
        stack_identity=ident,
        template=template(6, wait_secs=0),
        params={},
        files={},
        args={},
    )
    engines.wait_state(sid, "UPDATE_COMPLETE", 300)
    rows = resource_repo.get_all_by_stack(engines.db, sid)
    assert sorted(r.name for r in rows) == sorted(
        [f"r{i}" for i in range(6)] + ["top"]
    )
    events = event_repo.list_by_stack(engines.db, sid, sort_dir="asc")
    stack_events = [
        f"{e.resource_action}_{e.resource_status}"
        for e in events
        if e.resource_type == "OS::Heat::Stack"
    ]
    assert stack_events == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
        "UPDATE_IN_PROGRESS",
        "UPDATE_COMPLETE",
    ]
    engines.call("delete_stack", stack_identity=ident)
    engines.wait_state(sid, "DELETE_COMPLETE", 300)
    assert resource_repo.get_all_by_stack(engines.db, sid) == []


def test_killed_engine_is_survived(engines: Engines) -> None:
    ident = engines.call(
        "create_stack",
        stack_name="slow",
        template=template(8, wait_secs=3),
        params={},
        files={},
        args={},
    )
    sid = ident["stack_id"]

    def locked() -> set[str]:
        return {
            r.engine_id
            for r in resource_repo.get_all_by_stack(engines.db, sid)
            if r.engine_id
        }

    holders = wait_for(locked, 60, "a locked resource")
    # kill -9 the first engine process: it dies mid-traversal, holding
    # locks or messages
    victim = engines.procs[0]
    victim.kill()
    victim.wait()
    engines.start_one()  # a fresh engine joins, as an operator would
    engines.wait_state(sid, "CREATE_COMPLETE", 300)
    rows = resource_repo.get_all_by_stack(engines.db, sid)
    live = [r for r in rows if r.replaced_by is None]
    dump = [
        (r.id, r.name, r.action, r.status, r.status_reason, r.replaces,
         r.replaced_by, r.engine_id)
        for r in rows
    ]  # fmt: skip
    assert sorted(r.name for r in live) == sorted(
        [f"r{i}" for i in range(8)] + ["top"]
    ), "\n".join(map(str, dump))
    assert {(r.action, r.status) for r in live} == {("CREATE", "COMPLETE")}
    assert holders  # something was running when the engine died
