"""Taking over a Heat 27 database: everything Heat wrote reads back."""

from __future__ import annotations

import json
import pathlib
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from keel_heat_core.db import (
    event,
    raw_template,
    resource,
    resource_data,
    service,
    snapshot,
    software_config,
    software_deployment,
    stack,
    stack_lock,
    sync_point,
    user_creds,
)
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import Scope
from keel_heat_core.migrations import runner
from tests.functional.db import databases
from tests.functional.db import heat_fixture as hf

S = hf.STACKS
SCOPE = Scope(project_id=hf.PROJECT)


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("mariadb", marks=pytest.mark.mariadb),
        pytest.param("postgresql", marks=pytest.mark.postgresql),
    ]
)
def heat_db(
    request: pytest.FixtureRequest, tmp_path: pathlib.Path
) -> Iterator[Database]:
    with databases.scratch_url(request.param, tmp_path) as url:
        db = Database(url, encryption_key=hf.KEY)
        runner.upgrade(db.engine)
        hf.populate(db.engine)
        try:
            yield db
        finally:
            db.dispose()


def test_db_sync_on_heat_database_is_a_no_op(heat_db: Database) -> None:
    runner.upgrade(heat_db.engine)
    assert runner.current(heat_db.engine) == runner.HEAT_HEAD
    assert runner.differences(heat_db.engine) == []


def test_stacks(heat_db: Database) -> None:
    db = heat_db
    root = stack.get(db, S["A"], SCOPE)
    assert root is not None
    assert (root.action, root.status) == ("UPDATE", "IN_PROGRESS")
    assert root.tags == ("web", "prod")
    assert root.current_traversal == hf.T2
    assert root.current_deps == {
        "edges": [[[1001, True], None], [[1002, True], [1001, True]]]
    }
    assert root.convergence is True and root.backup is False
    assert root.updated_at is not None and root.timeout == 60
    # A user of the stack-domain project sees it too.
    assert stack.get(db, S["A"], Scope(project_id="sup-a")) is not None
    assert stack.get(db, S["A"], Scope(project_id="other")) is None

    names = {s.name for s in stack.list_stacks(db, SCOPE)}
    assert names == {"a", "d", "f"}
    nested = {s.name for s in stack.list_stacks(db, SCOPE, show_nested=True)}
    assert nested == {"a", "a-group-x7q2", "c", "d", "f"}
    with_deleted = stack.list_stacks(db, SCOPE, show_deleted=True)
    assert {s.name for s in with_deleted} == {"a", "d", "e", "f"}
    assert stack.count(db, SCOPE, filters={"status": "FAILED"}) == 1
    assert [s.id for s in stack.get_all_by_owner_id(db, S["A"])] == [S["B"]]
    assert stack.get_root_id(db, S["C"]) == S["A"]
    assert {s.id for s in stack.get_all_by_root(db, S["A"])} == {
        S["B"],
        S["C"],
    }
    failed = stack.get(db, S["D"])
    assert failed is not None and failed.status_reason is not None
    assert failed.status_reason.startswith("Resource CREATE failed: ")
    assert stack.get(db, S["E"]) is None
    deleted = stack.get(db, S["E"], show_deleted=True)
    assert deleted is not None and deleted.deleted_at is not None
    legacy = stack.get(db, S["F"])
    assert legacy is not None and legacy.convergence is False
    assert stack_lock.get_engine_id(db, S["F"]) == hf.ENGINE
    assert stack.get_by_name(db, "a", SCOPE) == root


def test_templates_and_credentials(heat_db: Database) -> None:
    db = heat_db
    tmpl = raw_template.get(db, 601)
    assert tmpl.files == {"file:///init.sh": "#!/bin/sh\necho hi\n"}
    assert tmpl.environment["parameters"] == {
        "flavor": "m1.small",
        "db_password": "pw!",
    }
    assert tmpl.template["resources"]["group"]["type"] == (
        "OS::Heat::ResourceGroup"
    )
    assert raw_template.get(db, 602).files == {}
    creds = user_creds.get(db, 701)
    assert creds is not None
    assert creds.trust_id == "trust-4f1e"
    assert creds.trustor_user_id == "u-trustor"
    assert creds.password is None and creds.username is None
    assert (creds.tenant, creds.tenant_id) == ("demo-project", hf.PROJECT)


def test_resources(heat_db: Database) -> None:
    db = heat_db
    rows = {r.name: r for r in resource.get_all_by_stack(db, S["A"])}
    server, group = rows["server"], rows["group"]
    assert (server.engine_id, server.atomic_key) == (hf.ENGINE, 3)
    assert server.properties_data == {
        "flavor": "m1.small",
        "user_data": "#!/bin/sh",
    }
    assert server.attr_data == {
        "first_address": "10.0.0.4",
        ("networks", "private", 0): "10.0.0.4",
    }
    assert server.nova_instance == hf.SERVER_PHYSICAL
    assert group.nova_instance == S["B"] and group.requires == [1001]
    assert group.properties_data == {"count": 2}
    assert [r.name for r in resource.get_all_by_stack(db, S["B"])] == [
        "0",
        "1",
    ]
    assert len(resource.get_all_by_root_stack(db, S["A"])) == 4
    assert resource_data.get_all(db, 1001) == {
        "password": "s3cr3t",
        "pre-update": "True",
    }
    legacy = resource.get(db, 1006)
    assert legacy is not None
    assert legacy.properties_data == {"size": 1}
    assert legacy.current_template_id is None and legacy.atomic_key is None
    assert resource.get_locking_engines(db, S["A"]) == {hf.ENGINE}
    failed = resource.get(db, 1005)
    assert failed is not None and failed.status == "FAILED"
    # The lock Heat holds is respected, and released by its holder only.
    assert not resource.update(db, 1001, {"status": "COMPLETE"}, 3)
    assert resource.update(db, 1001, {"engine_id": None}, 3, hf.ENGINE)


def test_sync_points_both_key_forms(heat_db: Database) -> None:
    db = heat_db
    half = sync_point.get(db, 1002, hf.T2, True)
    assert half is not None and half.atomic_key == 1
    assert list(half.input_data) == [(1001, True, "resource")]
    data = half.input_data[(1001, True, "resource")]
    assert data["attrs"] == {("networks", "private", 0): "10.0.0.4"}
    cleanup = sync_point.get(db, 1001, hf.T2, False)
    assert cleanup is not None
    assert cleanup.input_data == {(1002, False, "resource"): None}
    assert cleanup.extra_data == {
        "resource_failures": {"x": "y"},
        "skip_propagate": True,
    }
    stack_sp = sync_point.get(db, S["A"], hf.T2, True)
    assert stack_sp is not None and stack_sp.input_data == {}

    # Completing the half-filled sync point writes the 3-element form.
    new = dict(half.input_data)
    new[(1003, True)] = None
    assert sync_point.update_input_data(db, 1002, hf.T2, True, 1, new)
    with db.engine.connect() as conn:
        stored = conn.execute(
            sa.text(
                "SELECT input_data FROM sync_point WHERE entity_id = '1002'"
            )
        ).scalar_one()
    keys = set(json.loads(stored)["input_data"])
    assert keys == {
        "tuple:(1001, True, 'resource')",
        "tuple:(1003, True, 'resource')",
    }
    assert sync_point.delete_all_by_stack_and_traversal(db, S["A"], hf.T2) == 3


def test_software_snapshots_events_services(heat_db: Database) -> None:
    db = heat_db
    cfg = software_config.get(db, "sc-1", SCOPE)
    assert cfg.group == "script" and cfg.config["outputs"] == [
        {"name": "result"}
    ]
    dep = software_deployment.get(db, "sd-1", Scope(project_id="sup-a"))
    assert dep.config is not None and dep.config.id == "sc-1"
    assert dep.input_values == {"foo": "bar"}
    deps = software_deployment.list_deployments(
        db, SCOPE, server_id=hf.SERVER_PHYSICAL
    )
    assert [d.id for d in deps] == ["sd-1"]
    snap = snapshot.get(db, "snap-1", SCOPE)
    assert snap.action == "CREATE"
    assert snap.data["resources"]["server"]["name"] == "server"
    events = event.list_by_stack(db, S["A"])
    assert [e.uuid for e in events] == ["ev-1"]
    assert events[0].resource_properties == {
        "flavor": "m1.small",
        "user_data": "#!/bin/sh",
    }
    legacy = event.get_by_uuid(db, "ev-2")
    assert legacy is not None
    assert legacy.resource_properties == {"size": 1}
    assert legacy.resource_status_reason == ""
    assert [s.id for s in service.list_services(db)] == ["svc-1"]
