"""Events, templates, sync points, credentials, services, legacy locks,
software configs and snapshots."""

from __future__ import annotations

import datetime
import uuid

import pytest
import sqlalchemy as sa

from keel_heat_core import crypt
from keel_heat_core.db import (
    event,
    exceptions,
    raw_template,
    service,
    snapshot,
    software_config,
    software_deployment,
    stack_lock,
    sync_point,
    user_creds,
)
from keel_heat_core.db import resource_properties_data as rpd
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import Scope
from tests.functional.db import builders


def _event(stack_id: str, n: int, **extra: object) -> dict[str, object]:
    values: dict[str, object] = {
        "stack_id": stack_id,
        "resource_action": "CREATE",
        "resource_status": "IN_PROGRESS",
        "resource_name": f"r{n}",
        "physical_resource_id": f"p{n}",
        "resource_type": "OS::Heat::None",
        "resource_status_reason": "state changed",
    }
    values.update(extra)
    return values


def test_events_batch_paging_and_truncation(db: Database) -> None:
    st = builders.new_stack(db)
    props = rpd.create(db, {"a": 1})
    uuids = event.create_many(
        db, [_event(st.id, n, rsrc_prop_data_id=props.id) for n in range(5)]
    )
    one = event.create(db, _event(st.id, 9, resource_status_reason="x" * 300))
    assert one.resource_status_reason == "x" * 255
    none_reason = event.create(
        db, _event(st.id, 10, resource_status_reason=None)
    )
    assert none_reason.resource_status_reason == ""
    assert event.count_by_stack(db, st.id) == 7
    newest_first = event.list_by_stack(db, st.id)
    assert newest_first[0].uuid == none_reason.uuid
    asc = event.list_by_stack(db, st.id, sort_dir="asc", limit=3)
    rest = event.list_by_stack(db, st.id, sort_dir="asc", marker=asc[-1].uuid)
    assert [e.uuid for e in asc] == uuids[:3]
    assert [e.uuid for e in rest][:2] == uuids[3:]
    assert asc[0].resource_properties == {"a": 1}
    by_name = event.list_by_stack(db, st.id, filters={"resource_name": "r2"})
    assert [e.uuid for e in by_name] == [uuids[2]]
    mine = event.list_by_project(
        db, Scope("proj"), filters={"stack_id": st.id}
    )
    assert len(mine) == 7


def test_events_of_one_write_are_one_statement_in_order(db: Database) -> None:
    st = builders.new_stack(db)
    statements: list[str] = []

    def seen(_conn: object, _cur: object, statement: str, *_: object) -> None:
        statements.append(statement)

    sa.event.listen(db.engine, "before_cursor_execute", seen)
    try:
        with db.connection() as conn:
            uuids = event.insert_in_connection(
                conn, [_event(st.id, n) for n in range(3)]
            )
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", seen)
    inserts = [
        s for s in statements if s.lstrip().upper().startswith("INSERT")
    ]
    if db.dialect != "sqlite":  # (sqlite3 loops in C, no round trips)
        assert len(inserts) == 1, statements
    stored = event.list_by_stack(db, st.id, sort_dir="asc")
    assert [e.uuid for e in stored] == uuids
    assert [e.resource_name for e in stored] == ["r0", "r1", "r2"]


def test_event_purge(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    st = builders.new_stack(db)
    shared = rpd.create(db, {"keep": True})
    lonely = rpd.create(db, {"drop": True})
    event.create_many(db, [_event(st.id, 0, rsrc_prop_data_id=lonely.id)])
    event.create_many(
        db, [_event(st.id, n, rsrc_prop_data_id=shared.id) for n in range(9)]
    )
    monkeypatch.setattr(event.random, "uniform", lambda a, b: 0.0)
    event.create(
        db, _event(st.id, 99), max_events_per_stack=10, purge_batch_size=4
    )
    assert event.count_by_stack(db, st.id) == 7
    with pytest.raises(exceptions.NotFound):
        rpd.get(db, lonely.id)
    assert rpd.get(db, shared.id).data == {"keep": True}


def test_raw_template_files_and_hidden_parameters(db: Database) -> None:
    env = dict(builders.ENV, parameters={"pw": "secret", "n": 3})
    stored_env = raw_template.encrypt_hidden_parameters(db, env, ["pw", "x"])
    assert stored_env["encrypted_param_names"] == ["pw"]
    method, token = stored_env["parameters"]["pw"]
    assert crypt.decrypt(method, token, db.encryption_key) == "secret"
    first = raw_template.create(db, {"a": 1}, stored_env, files={"f": "c"})
    assert first.environment["parameters"] == {"pw": "secret", "n": 3}
    assert first.files == {"f": "c"} and first.files_id is not None
    copy = raw_template.create(db, {"a": 2}, {}, files_id=first.files_id)
    assert copy.files == {"f": "c"}
    raw_template.delete(db, first.id)
    assert raw_template.get_files(db, first.files_id) == {"f": "c"}
    raw_template.delete(db, copy.id)
    with pytest.raises(exceptions.NotFound):
        raw_template.get_files(db, first.files_id)
    updated = raw_template.update(
        db, raw_template.create(db, {}, {}).id, {"template": {"b": 1}}
    )
    assert updated.template == {"b": 1}


def test_sync_point_lifecycle(db: Database) -> None:
    st = builders.new_stack(db)
    trav = str(uuid.uuid4())
    assert sync_point.create(db, 5, trav, True, st.id)
    assert not sync_point.create(db, 5, trav, True, st.id)
    assert sync_point.create(db, 5, trav, False, st.id)
    assert sync_point.get(db, 5, "other", True) is None
    assert sync_point.update_input_data(
        db,
        5,
        trav,
        True,
        0,
        {(3, True): None},
        extra_data={"resource_failures": {"a": "b"}},
    )
    got = sync_point.get(db, "5", trav, True)
    assert got is not None and got.atomic_key == 1
    assert got.input_data == {(3, True, "resource"): None}
    assert got.extra_data == {"resource_failures": {"a": "b"}}
    assert not sync_point.update_input_data(db, 5, trav, True, 0, {})
    assert sync_point.delete_all_by_stack_and_traversal(db, st.id, trav) == 2


def test_user_creds(db: Database) -> None:
    trust = user_creds.create(
        db, trust_id="t-1", trustor_user_id="u", tenant_id="p"
    )
    assert trust.trust_id == "t-1" and trust.password is None
    pw = user_creds.create(db, username="demo", password="pw", tenant="p")
    assert (pw.username, pw.password) == ("demo", "pw")
    with pytest.raises(user_creds.PasswordTooLong):
        user_creds.create(db, username="demo", password="x" * 200)
    user_creds.delete(db, pw.id)
    assert user_creds.get(db, pw.id) is None
    with pytest.raises(exceptions.NotFound):
        user_creds.delete(db, pw.id)
    other_key = Database.__new__(Database)
    other_key.__dict__.update(db.__dict__)
    other_key.encryption_key = "another key of thirty-two chars!"
    with pytest.raises(crypt.InvalidEncryptionKey):
        user_creds.get(other_key, trust.id)


def test_service_heartbeat_and_clean(db: Database) -> None:
    sid = str(uuid.uuid4())
    first = service.heartbeat(
        db, sid, engine_id="e", host="h", hostname="h", report_interval=1
    )
    assert first.deleted_at is None
    assert sid in {s.id for s in service.list_services(db)}
    old = datetime.datetime(2000, 1, 1)
    with db.transaction() as session:
        from keel_heat_core.db import models

        session.get(models.Service, sid).updated_at = old  # type: ignore[union-attr]
    assert sid in service.clean_stale(db)
    assert sid not in {s.id for s in service.list_services(db)}
    again = service.heartbeat(
        db, sid, engine_id="e", host="h", hostname="h", report_interval=1
    )
    assert again.deleted_at is None and again.updated_at != old
    service.soft_delete(db, sid)
    assert service.purge_deleted(db, datetime.datetime(2999, 1, 1)) >= 1
    with pytest.raises(exceptions.EntityNotFound):
        service.get(db, sid)


def test_stack_lock(db: Database) -> None:
    st = builders.new_stack(db, convergence=False)
    assert stack_lock.create(db, st.id, "e1") is None
    assert stack_lock.create(db, st.id, "e2") == "e1"
    assert stack_lock.steal(db, st.id, "dead", "e2") == "e1"
    assert stack_lock.steal(db, st.id, "e1", "e2") is None
    assert stack_lock.release(db, st.id, "e1") is True
    assert (
        stack_lock.persist_state_and_release(
            db, st.id, "e2", {"status": "COMPLETE"}
        )
        is None
    )
    assert stack_lock.get_engine_id(db, st.id) is None
    assert stack_lock.steal(db, st.id, "e1", "e2") is True


def test_software_config_and_deployment(db: Database) -> None:
    project = uuid.uuid4().hex
    scope = Scope(project)
    cfg = software_config.create(
        db,
        {
            "id": str(uuid.uuid4()),
            "name": "c",
            "group": "script",
            "config": {"config": "x", "inputs": [], "outputs": []},
            "tenant": project,
        },
    )
    with pytest.raises(exceptions.NotFound):
        software_config.get(db, cfg.id, Scope("other"))
    with pytest.raises(exceptions.Invalid):
        software_deployment.create(
            db,
            {
                "id": "x",
                "server_id": "s",
                "config_id": "no",
                "tenant": project,
            },
        )
    dep = software_deployment.create(
        db,
        {
            "id": str(uuid.uuid4()),
            "server_id": "srv",
            "config_id": cfg.id,
            "tenant": project,
            "action": "CREATE",
            "status": "IN_PROGRESS",
        },
    )
    assert dep.config == cfg
    with pytest.raises(exceptions.InvalidRestrictedAction):
        software_config.delete(db, cfg.id, scope)
    done = software_deployment.update(
        db, dep.id, {"status": "COMPLETE", "output_values": {"r": 1}}, scope
    )
    assert done.status == "COMPLETE" and done.output_values == {"r": 1}
    assert software_deployment.count(db, scope) == 1
    assert software_config.count(db, scope) == 1
    assert [c.id for c in software_config.list_configs(db, scope)] == [cfg.id]
    software_deployment.delete(db, dep.id, scope)
    software_config.delete(db, cfg.id, scope)
    assert software_config.count(db, scope) == 0


def test_snapshot(db: Database) -> None:
    st = builders.new_stack(db)
    scope = Scope("proj")
    snap = snapshot.create(
        db,
        {
            "stack_id": st.id,
            "name": "s",
            "action": "CREATE",
            "status": "IN_PROGRESS",
            "tenant": "proj",
            "data": {"resources": {}},
        },
    )
    snapshot.add_resource_snapshot(db, snap.id, "server", {"name": "server"})
    got = snapshot.get(db, snap.id, scope)
    assert got.data["resources"] == {"server": {"name": "server"}}
    snapshot.update(db, snap.id, {"status": "COMPLETE"}, scope)
    assert [s.status for s in snapshot.list_by_stack(db, st.id, scope)] == [
        "COMPLETE"
    ]
    assert snapshot.count_by_stack(db, st.id, scope) == 1
    snapshot.delete(db, snap.id, scope)
    with pytest.raises(exceptions.NotFound):
        snapshot.get(db, snap.id, scope)
