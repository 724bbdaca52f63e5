"""Taking over a stack Heat's legacy engine wrote: ``keel-heat-manage
migrate-convergence-1`` asks an engine over RabbitMQ to migrate it, and
the engine then updates and deletes it.

The rows are written with raw SQL as Heat 27's legacy engine leaves them
(``convergence = 0``; resources without ``current_template_id``,
``requires``, ``needed_by`` or ``atomic_key``; a previous template; a
``<name>*`` backup stack; a lock of an engine that is gone): a root with
two chained ``OS::Heat::TestResource``, an ``OS::Heat::None`` and a
template resource whose child stack holds one more ``TestResource``,
plus a row the template no longer has.
"""

from __future__ import annotations

import json
import pathlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from keel_heat_core import exception
from keel_heat_core.cmd import manage
from keel_heat_core.context import admin_context
from keel_heat_core.db import exceptions as db_exceptions
from keel_heat_core.db import raw_template as template_repo
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db import stack_lock
from keel_heat_core.plugin_api.physical_name import physical_resource_name
from keel_heat_core.rpc.client import EngineClient
from keel_heat_core.testing import cloud_setup
from tests.functional.engine.stacks import Cloud, scratch_database, wait_for

pytestmark = [pytest.mark.rabbit, pytest.mark.slow]

PROJECT = "project-1"
DEAD_ENGINE = "e0000000-0000-4000-8000-0000000000dd"
NOW = "2026-03-01 12:00:00"
CHILD = {
    "heat_template_version": "2021-04-16",
    "parameters": {"value": {"type": "string"}},
    "resources": {
        "inner": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "value"}},
        }
    },
    "outputs": {"out": {"value": {"get_attr": ["inner", "output"]}}},
}
ENV = {
    "parameters": {},
    "parameter_defaults": {},
    "resource_registry": {"resources": {}},
    "event_sinks": [],
    "encrypted_param_names": [],
}


def _root(value: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2021-04-16",
        "resources": {
            "first": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": value},
            },
            "second": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": {"get_attr": ["first", "output"]}},
            },
            "none": {"type": "OS::Heat::None", "depends_on": ["second"]},
            "child": {
                "type": "child.yaml",
                "properties": {"value": {"get_attr": ["first", "output"]}},
            },
        },
        "outputs": {
            "second": {"value": {"get_attr": ["second", "output"]}},
            "inner": {"value": {"get_attr": ["child", "out"]}},
        },
    }


class Legacy:
    """Inserts Heat-format rows of a legacy stack tree."""

    def __init__(self, conn: sa.Connection) -> None:
        self.conn = conn
        self.ids: dict[str, int] = {}

    def insert(self, table: str, **values: Any) -> None:
        quote = self.conn.dialect.identifier_preparer.quote
        columns = ", ".join(quote(c) for c in values)
        params = ", ".join(f":{c}" for c in values)
        self.conn.execute(
            sa.text(f"INSERT INTO {table} ({columns}) VALUES ({params})"),
            values,
        )

    def template(self, tid: int, template: Any, files: Any = None) -> None:
        self.insert(
            "raw_template",
            id=tid,
            template=json.dumps(template),
            environment=json.dumps(ENV),
            files=json.dumps(files),
            created_at=NOW,
        )

    def stack(self, sid: str, name: str, tid: int, **values: Any) -> None:
        row: dict[str, Any] = {
            "id": sid,
            "name": name,
            "raw_template_id": tid,
            "tenant": PROJECT,
            "username": "demo",
            "disable_rollback": True,
            "backup": False,
            "nested_depth": 0,
            "convergence": False,
            "action": "CREATE",
            "status": "COMPLETE",
            "status_reason": "Stack CREATE completed successfully",
            "created_at": NOW,
        }
        row.update(values)
        self.insert("stack", **row)

    def resource(
        self,
        rid: int,
        name: str,
        sid: str,
        root: str,
        physical: str,
        props: Any,
        **values: Any,
    ) -> str:
        """A legacy row; returns its uuid."""
        ruuid = str(uuid.uuid4())
        self.insert(
            "resource",
            id=rid,
            uuid=ruuid,
            name=name,
            stack_id=sid,
            root_stack_id=root,
            action="CREATE",
            status="COMPLETE",
            status_reason="state changed",
            nova_instance=physical,
            properties_data=json.dumps(props),
            properties_data_encrypted=False,
            created_at=NOW,
            **values,
        )
        self.ids[name] = rid
        return ruuid

    def data(self, rid: int, key: str, value: str) -> None:
        self.insert(
            "resource_data",
            resource_id=rid,
            key=key,
            value=value,
            redact=False,
            decrypt_method="",
            created_at=NOW,
        )


def _write_legacy(cloud: Cloud) -> dict[str, str]:
    root, child, backup = (str(uuid.uuid4()) for _ in range(3))
    with cloud.db.engine.begin() as conn:
        rows = Legacy(conn)
        rows.template(9001, _root("one"), {"child.yaml": json.dumps(CHILD)})
        rows.template(9002, {"heat_template_version": "2021-04-16"})
        rows.template(9003, CHILD)
        rows.template(9004, {"heat_template_version": "2021-04-16"})
        rows.stack(root, "legacy", 9001, prev_raw_template_id=9002)
        rows.stack(
            backup,
            "legacy*",
            9004,
            owner_id=root,
            backup=True,
            status="FAILED",
        )
        rows.insert("stack_lock", stack_id=root, engine_id=DEAD_ENGINE)
        rows.resource(
            9101, "first", root, root, "legacy-first-x", {"value": "one"}
        )
        rows.data(9101, "value", "one")
        rows.resource(
            9102, "second", root, root, "legacy-second-x", {"value": "one"}
        )
        rows.data(9102, "value", "one")
        rows.resource(9103, "none", root, root, "legacy-none-x", {})
        rows.resource(9104, "gone", root, root, "legacy-gone-x", {})
        child_uuid = rows.resource(
            9105, "child", root, root, child, {"value": "one"}
        )
        rows.stack(
            child,
            physical_resource_name("legacy", "child", child_uuid, 255),
            9003,
            owner_id=root,
            nested_depth=1,
            parent_resource_name="child",
        )
        # the environment of a child holds its parameter values
        conn.execute(
            sa.text(
                "UPDATE raw_template SET environment = :e WHERE id = 9003"
            ),
            {"e": json.dumps(dict(ENV, parameters={"value": "one"}))},
        )
        rows.resource(
            9106, "inner", child, root, "legacy-inner-x", {"value": "one"}
        )
        rows.data(9106, "value", "one")
    return {"root": root, "child": child, "backup": backup}


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("mariadb", marks=pytest.mark.mariadb),
        pytest.param("postgresql", marks=pytest.mark.postgresql),
    ]
)
def cloud(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path, rabbit_vhost: str
) -> Iterator[Cloud]:
    with scratch_database(request.param, tmp_path) as url:
        running = Cloud(
            url, transport_url=cloud_setup.rabbit_url(rabbit_vhost), engines=2
        )
        try:
            yield running
        finally:
            running.close()


def _manage(cloud: Cloud, tmp: pathlib.Path, *argv: str) -> int:
    conf_file = tmp / "manage.conf"
    conf_file.write_text(
        "[DEFAULT]\n"
        f"transport_url = {cloud.conf.transport_url}\n"
        f"control_exchange = {cloud.conf.control_exchange}\n"
        "[database]\n"
        f"connection = {cloud.conf.database.connection}\n"
    )
    from oslo_config import cfg

    return manage.main(
        ["--config-file", str(conf_file), *argv], conf=cfg.ConfigOpts()
    )


def _state(cloud: Cloud, stack_id: str) -> str:
    rec = stack_repo.get(cloud.db, stack_id, show_deleted=True)
    assert rec is not None
    return f"{rec.action}_{rec.status}"


def _wait(cloud: Cloud, stack_id: str, wanted: str) -> None:
    wait_for(lambda: _state(cloud, stack_id) == wanted, 90, wanted)


def _rows(cloud: Cloud, stack_id: str) -> dict[str, Any]:
    return {
        rec.name: rec
        for rec in resource_repo.get_all_by_stack(cloud.db, stack_id)
    }


def test_legacy_stack_migrated_then_updated_and_deleted(
    cloud: Cloud, tmp_path: pathlib.Path
) -> None:
    ids = _write_legacy(cloud)
    root, child = ids["root"], ids["child"]
    client = EngineClient(cloud.conf, transport=cloud.transport)
    ctxt = admin_context()

    # a nested stack migrates with its root only
    with pytest.raises(exception.NotSupported) as err:
        client.migrate_convergence_1(ctxt, child)
    assert err.value.message == (
        f"Migration of nested stack {child} is not supported."
    )
    assert _manage(cloud, tmp_path, "migrate-convergence-1", "nope") == 1

    assert _manage(cloud, tmp_path, "migrate-convergence-1", root) == 0

    migrated = stack_repo.get(cloud.db, root)
    assert migrated is not None and migrated.convergence is True
    assert migrated.current_traversal
    assert migrated.prev_raw_template_id is None
    with pytest.raises(db_exceptions.NotFound):
        template_repo.get(cloud.db, 9002)
    assert stack_lock.get_engine_id(cloud.db, root) is None
    nested = stack_repo.get(cloud.db, child)
    assert nested is not None and nested.convergence is True
    # Heat leaves the legacy backup stack alone
    backup = stack_repo.get(cloud.db, ids["backup"])
    assert backup is not None and backup.convergence is False
    rows = _rows(cloud, root)
    assert set(rows) == {"first", "second", "none", "child"}
    assert rows["second"].requires == [9101]
    assert rows["none"].requires == [9102]
    assert rows["child"].requires == [9101]
    assert rows["first"].requires == []
    assert {r.current_template_id for r in rows.values()} == {9001}
    (inner,) = _rows(cloud, child).values()
    assert inner.current_template_id == 9003 and inner.requires == []
    # twice is a no-op, as in Heat
    client.migrate_convergence_1(ctxt, root)

    # the engine updates the migrated tree in place...
    ident = {
        "stack_name": "legacy",
        "stack_id": root,
        "tenant": PROJECT,
        "path": "",
    }
    cloud.endpoint().update_stack(
        cloud.ctxt,
        ident,
        _root("two"),
        {},
        {"child.yaml": json.dumps(CHILD)},
        {},
    )
    _wait(cloud, root, "UPDATE_COMPLETE")
    rows = _rows(cloud, root)
    assert {name: row.id for name, row in rows.items()} == {
        "first": 9101,
        "second": 9102,
        "none": 9103,
        "child": 9105,
    }
    assert all(
        (row.action, row.status) == ("UPDATE", "COMPLETE")
        for name, row in rows.items()
        if name != "none"
    )
    assert rows["child"].nova_instance == child
    assert _state(cloud, child) == "UPDATE_COMPLETE"
    (inner,) = _rows(cloud, child).values()
    assert inner.id == 9106 and (inner.action, inner.status) == (
        "UPDATE",
        "COMPLETE",
    )
    shown = cloud.endpoint().show_stack(cloud.ctxt, ident)[0]
    outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
    assert outputs == {"second": "two", "inner": "two"}

    # ...and deletes it
    cloud.endpoint().delete_stack(cloud.ctxt, ident)
    _wait(cloud, root, "DELETE_COMPLETE")
    assert stack_repo.get(cloud.db, root) is None
    assert stack_repo.get(cloud.db, child) is None
    assert resource_repo.get_all_by_stack(cloud.db, root) == []


@pytest.fixture
def local_cloud(tmp_path: pathlib.Path) -> Iterator[Cloud]:
    with scratch_database("sqlite", tmp_path) as url:
        running = Cloud(url, engines=2)
        try:
            yield running
        finally:
            running.close()


def test_migration_refusals_are_heats(local_cloud: Cloud) -> None:
    cloud = local_cloud
    endpoint = cloud.endpoint()
    ctxt = admin_context()
    root, child, busy = (str(uuid.uuid4()) for _ in range(3))
    with cloud.db.engine.begin() as conn:
        rows = Legacy(conn)
        rows.template(9201, {"heat_template_version": "2021-04-16"})
        rows.stack(root, "tree", 9201)
        rows.stack(child, "tree-child", 9201, owner_id=root, status="FAILED")
        rows.stack(busy, "busy", 9201)
        rows.insert(
            "stack_lock", stack_id=busy, engine_id=cloud.engines[1].engine_id
        )

    with pytest.raises(exception.EntityNotFound) as found:
        endpoint.migrate_convergence_1(ctxt, "nope")
    assert str(found.value) == "The Stack (nope) could not be found."
    with pytest.raises(exception.ActionNotComplete) as failed:
        endpoint.migrate_convergence_1(ctxt, root)
    assert str(failed.value) == (
        "Stack tree-child has an action (CREATE) in progress or failed state."
    )
    # the lock of a live engine is respected
    with pytest.raises(exception.ActionInProgress) as locked:
        endpoint.migrate_convergence_1(ctxt, busy)
    assert str(locked.value) == (
        "Stack busy already has an action (CREATE) in progress."
    )
    for sid in (root, busy):
        rec = stack_repo.get(cloud.db, sid)
        assert rec is not None and rec.convergence is False
    assert stack_lock.get_engine_id(cloud.db, root) is None
    assert (
        stack_lock.get_engine_id(cloud.db, busy) == cloud.engines[1].engine_id
    )
