"""Snapshots, restore, abandon and adopt through the real path: the
``openstack`` CLI → the native API → RPC → the engine → SQLite."""

from __future__ import annotations

import json
import pathlib
import subprocess

from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import snapshot as snapshot_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db.scope import ADMIN
from tests.functional.snapshots.harness import SnapshotCloud
from tests.functional.software.harness import BIN, wait_for


def _snapshot_done(cloud: SnapshotCloud, stack: str, sid: str) -> dict:
    def done() -> dict | None:
        shown = json.loads(
            cloud.openstack(
                "stack", "snapshot", "show", stack, sid, "-f", "json"
            )
        )
        shown = shown["snapshot"]  # OSC prints the whole API answer
        return shown if shown["status"] == "COMPLETE" else None

    return wait_for(done, what=f"snapshot {sid}")


def test_snapshot_create_list_show_restore_delete(cloud: SnapshotCloud):
    cloud.create("snap1")
    before = cloud.outputs("snap1")
    assert before["val"] == "one"
    created = json.loads(
        cloud.openstack(
            "stack",
            "snapshot",
            "create",
            "snap1",
            "--name",
            "s1",
            "-f",
            "json",
        )
    )
    sid = created["ID"]
    assert created["name"] == "s1"
    shown = _snapshot_done(cloud, "snap1", sid)
    assert shown["data"]["template"]["resources"]["rand"]
    resources = shown["data"]["resources"]
    assert set(resources) == {"test", "rand"}
    assert resources["rand"]["type"] == "OS::Heat::RandomString"
    assert resources["rand"]["resource_data"]["value"] == before["rand"]
    assert cloud.wait_state("snap1", "SNAPSHOT_COMPLETE")

    listed = json.loads(
        cloud.openstack("stack", "snapshot", "list", "snap1", "-f", "json")
    )
    assert [s["id"] for s in listed] == [sid]
    assert listed[0]["status"] == "COMPLETE"

    # an in-place update of the TestResource, then restore
    cloud.openstack(
        "stack",
        "update",
        "snap1",
        "--existing",
        "--parameter",
        "val=two",
        "--wait",
    )
    cloud.wait_state("snap1", "UPDATE_COMPLETE")
    assert cloud.outputs("snap1")["val"] == "two"
    cloud.openstack("stack", "snapshot", "restore", "snap1", sid)
    cloud.wait_state("snap1", "RESTORE_COMPLETE")
    after = cloud.outputs("snap1")
    assert after["val"] == "one"
    assert after["rand"] == before["rand"]

    cloud.openstack("stack", "snapshot", "delete", "snap1", sid, "-y")
    listed = json.loads(
        cloud.openstack("stack", "snapshot", "list", "snap1", "-f", "json")
    )
    assert listed == []
    status, body = cloud.request("GET", f"/stacks/snap1/snapshots/{sid}")
    assert status == 404, body


def test_deleting_a_stack_deletes_its_snapshots(cloud: SnapshotCloud):
    stack = cloud.create("snap2")
    status, snap = cloud.request(
        "POST", "/stacks/snap2/" + stack["id"] + "/snapshots", {"name": "x"}
    )
    assert status == 200, snap
    _snapshot_done(cloud, "snap2", snap["id"])
    assert snapshot_repo.list_by_stack(cloud.db, stack["id"], ADMIN)
    cloud.openstack("stack", "delete", "snap2", "-y", "--wait")
    assert snapshot_repo.list_by_stack(cloud.db, stack["id"], ADMIN) == []


def test_abandon_then_adopt(cloud: SnapshotCloud, tmp_path: pathlib.Path):
    stack = cloud.create("snap3")
    rows = resource_repo.get_all_by_stack(cloud.db, stack["id"])
    ids = {row.name: row.nova_instance for row in rows}
    assert all(ids.values()), ids
    out = tmp_path / "abandon.json"
    cloud.openstack("stack", "abandon", "snap3", "--output-file", str(out))
    data = json.loads(out.read_text())
    assert data["id"] == stack["id"]
    assert data["name"] == "snap3"
    assert {
        name: part["resource_id"] for name, part in data["resources"].items()
    } == ids
    assert set(data) >= {
        "name",
        "id",
        "action",
        "environment",
        "files",
        "status",
        "template",
        "resources",
        "project_id",
        "stack_user_project_id",
        "tags",
    }
    # abandoned: deleted without deleting its resources, shown by id
    # as Heat shows a deleted stack
    status, body = cloud.request("GET", f"/stacks/snap3/{stack['id']}")
    assert status == 200, body
    assert body["stack"]["stack_status"] == "DELETE_COMPLETE"
    assert stack_repo.get(cloud.db, stack["id"], ADMIN) is None
    assert resource_repo.get_all_by_stack(cloud.db, stack["id"]) == []

    printed = cloud.openstack(
        "stack",
        "adopt",
        "snap3a",
        "--adopt-file",
        str(out),
        "--wait",
        "-f",
        "json",
    )
    # --wait prints the stack's events before the stack itself
    shown = json.loads(printed[printed.index("\n{") :])
    assert shown["stack_status"] == "ADOPT_COMPLETE", shown
    rows = resource_repo.get_all_by_stack(cloud.db, shown["id"])
    assert {row.name: row.nova_instance for row in rows} == ids
    assert {row.action for row in rows} == {"ADOPT"}
    # the adopted RandomString kept its value
    rand = data["resources"]["rand"]["resource_data"]["value"]
    assert cloud.outputs("snap3a")["rand"] == rand


def test_export_keeps_the_stack(cloud: SnapshotCloud):
    stack = cloud.create("snap4")
    status, data = cloud.request("GET", f"/stacks/snap4/{stack['id']}/export")
    assert status == 200, data
    assert set(data["resources"]) == {"test", "rand"}
    cloud.wait_state("snap4", "CREATE_COMPLETE")


def _osc_fails(cloud: SnapshotCloud, *args: str) -> str:
    result = subprocess.run(
        [
            str(BIN / "openstack"),
            "--os-auth-type",
            "none",
            "--os-endpoint",
            cloud.url(),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert result.returncode != 0, result.stdout
    return result.stderr


def test_preconditions(cloud: SnapshotCloud):
    stack = cloud.create("snap5")
    path = f"/stacks/snap5/{stack['id']}"
    # make the stack busy: an update whose TestResource waits
    status, body = cloud.request(
        "PUT",
        path,
        {
            "template": {
                "heat_template_version": "2016-10-14",
                "resources": {
                    "test": {
                        "type": "OS::Heat::TestResource",
                        "properties": {"value": "x", "wait_secs": 3},
                    }
                },
            }
        },
    )
    assert status == 202, body
    cloud.wait_state("snap5", "UPDATE_IN_PROGRESS")
    status, body = cloud.request("POST", path + "/snapshots", {"name": "b"})
    assert status == 409, body
    assert body["error"]["type"] == "ActionInProgress"
    assert (
        "already has an action (UPDATE) in progress"
        in (body["error"]["message"])
    )
    cloud.wait_state("snap5", "UPDATE_COMPLETE")

    # an incomplete snapshot cannot be restored or deleted
    rec = snapshot_repo.create(
        cloud.db,
        {
            "tenant": "project-a",
            "name": "half",
            "stack_id": stack["id"],
            "action": "CREATE",
            "status": "IN_PROGRESS",
            "status_reason": "",
            "data": None,
        },
    )
    status, body = cloud.request(
        "POST", f"{path}/snapshots/{rec.id}/restore", None
    )
    assert status == 400, body
    assert body["error"]["message"] == (
        "Restoring incomplete snapshot is not supported."
    )
    status, body = cloud.request("DELETE", f"{path}/snapshots/{rec.id}")
    assert status == 400, body
    assert body["error"]["message"] == (
        "Deleting in-progress snapshot is not supported."
    )
    snapshot_repo.update(cloud.db, rec.id, {"status": "FAILED"}, ADMIN)

    # max_snapshots_per_stack is 3 here: one exists already
    for name in ("m1", "m2"):
        status, snap = cloud.request(
            "POST", path + "/snapshots", {"name": name}
        )
        assert status == 200, snap
        _snapshot_done(cloud, "snap5", snap["id"])
    err = _osc_fails(cloud, "stack", "snapshot", "create", "snap5")
    assert "You have reached the maximum snapshots per stack, 3." in err
