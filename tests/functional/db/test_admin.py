"""Maintenance operations and the keel-heat-manage database commands."""

from __future__ import annotations

import io
import pathlib
import uuid

import pytest
import sqlalchemy as sa

from keel_heat_core.cmd import manage_db
from keel_heat_core.db import (
    admin,
    event,
    raw_template,
    resource,
    resource_data,
    service,
    stack,
    stack_lock,
    user_creds,
)
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import Scope
from tests.functional.db import builders


def test_db_commands(db: Database) -> None:
    assert manage_db.db_version(db) == "97b2a986f922"
    assert manage_db.db_sync(db) == "97b2a986f922"
    assert manage_db.db_check(db) == []


def test_purge_deleted(db: Database) -> None:
    project = uuid.uuid4().hex
    creds = user_creds.create(db, trust_id="t", tenant_id=project)
    gone = builders.new_stack(db, project, user_creds_id=creds.id)
    kept = builders.new_stack(db, project)
    res = builders.new_resource(db, gone)
    resource_data.set_value(db, res.id, "k", "v")
    event.create(db, {"stack_id": gone.id, "resource_name": "x"})
    stack.soft_delete(db, gone.id)
    # Too recent for a one-day cut-off.
    assert admin.purge_deleted(db, 1, "days", project) == 0
    with db.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE stack SET deleted_at = :t WHERE id = :i"),
            {"t": "2020-01-01 00:00:00", "i": gone.id},
        )
    assert admin.purge_deleted(db, 1, "days", project) == 1
    assert stack.get(db, gone.id, show_deleted=True) is None
    assert stack.get(db, kept.id) is not None
    assert user_creds.get(db, creds.id) is None
    assert event.count_by_stack(db, gone.id) == 0
    with pytest.raises(Exception, match="not found"):
        raw_template.get(db, gone.raw_template_id)
    with pytest.raises(ValueError):
        admin.purge_deleted(db, -1)
    with pytest.raises(ValueError):
        admin.purge_deleted(db, 1, "weeks")


def test_reset_stack_status(db: Database) -> None:
    root = builders.new_stack(db, status="IN_PROGRESS")
    child = builders.new_stack(db, owner_id=root.id, status="IN_PROGRESS")
    res = builders.new_resource(
        db, child, status="IN_PROGRESS", engine_id="dead", atomic_key=3
    )
    resource_data.set_value(db, res.id, "pre-create", "True")
    resource_data.set_value(db, res.id, "other", "x")
    stack_lock.create(db, child.id, "dead")
    admin.reset_stack_status(db, root.id)
    for sid in (root.id, child.id):
        got = stack.get(db, sid)
        assert got is not None
        assert (got.status, got.status_reason) == (
            "FAILED",
            "Stack status manually reset",
        )
    row = resource.get(db, res.id)
    assert row is not None
    assert (row.status, row.engine_id, row.atomic_key) == ("FAILED", None, 3)
    assert resource_data.get_all(db, res.id) == {"other": "x"}
    assert stack_lock.get_engine_id(db, child.id) is None


def test_migrate_convergence(db: Database) -> None:
    tmpl = raw_template.create(
        db,
        {
            "heat_template_version": "2021-04-16",
            "resources": {
                "net": {"type": "OS::Neutron::Net"},
                "port": {
                    "type": "OS::Neutron::Port",
                    "properties": {"network": {"get_resource": "net"}},
                },
                "vm": {"type": "OS::Nova::Server", "depends_on": ["port"]},
            },
        },
        {},
    )
    prev = raw_template.create(db, {"old": True}, {})
    legacy = builders.new_stack(
        db,
        raw_template_id=tmpl.id,
        prev_raw_template_id=prev.id,
        convergence=False,
        status="COMPLETE",
        current_traversal=None,
    )
    made = {
        name: builders.new_resource(
            db, legacy, name=name, current_template_id=None, requires=None
        )
        for name in ("net", "port", "vm", "stale")
    }
    assert admin.migrate_convergence(
        db, legacy.id, manage_db.scanned_dependencies
    )
    got = stack.get(db, legacy.id)
    assert got is not None and got.convergence is True
    assert got.current_traversal and got.prev_raw_template_id is None
    rows = {r.name: r for r in resource.get_all_by_stack(db, legacy.id)}
    assert set(rows) == {"net", "port", "vm"}
    assert rows["port"].requires == [made["net"].id]
    assert rows["vm"].requires == [made["port"].id]
    assert all(r.current_template_id == tmpl.id for r in rows.values())
    assert stack_lock.get_engine_id(db, legacy.id) is None
    assert not admin.migrate_convergence(
        db, legacy.id, manage_db.scanned_dependencies
    )


def test_template_dependencies_cfn() -> None:
    deps = manage_db.template_dependencies(
        {
            "Resources": {
                "a": {"Type": "X"},
                "b": {"Properties": {"p": {"Fn::GetAtt": ["a", "x"]}}},
                "c": {"DependsOn": "b", "Properties": {"q": {"Ref": "p1"}}},
            }
        }
    )
    assert deps == {"a": set(), "b": {"a"}, "c": {"b"}}


def test_service_list_and_clean(db: Database) -> None:
    sid = str(uuid.uuid4())
    service.heartbeat(db, sid, engine_id="eng", host="h", hostname="hn")
    out = io.StringIO()
    manage_db.service_list(db, out)
    line = next(x for x in out.getvalue().splitlines() if "eng" in x)
    assert line.split(" | ")[:6] == [
        "hn",
        "heat-engine",
        "eng",
        "h",
        "engine",
        "up",
    ]
    with db.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE service SET updated_at = :t WHERE id = :i"),
            {"t": "2001-01-01 00:00:00", "i": sid},
        )
    assert sid in service.clean_stale(db)


def test_manage_cli_runs_db_version(
    sqlite_db: Database,
    capsys: pytest.CaptureFixture[str],
    tmp_path: pathlib.Path,
) -> None:
    from oslo_config import cfg

    from keel_heat_core.cmd import manage

    conf = cfg.ConfigOpts()
    url = sqlite_db.engine.url.render_as_string(hide_password=False)
    conf_file = tmp_path / "keel-heat.conf"
    conf_file.write_text(
        f"[DEFAULT]\nauth_encryption_key = {'k' * 32}\n"
        f"[database]\nconnection = {url}\n"
    )
    code = manage.main(
        ["--config-file", str(conf_file), "db", "version"], conf=conf
    )
    assert code == 0
    assert capsys.readouterr().out.splitlines()[-1] == "97b2a986f922"
    assert stack.count(sqlite_db, Scope("nobody")) == 0
