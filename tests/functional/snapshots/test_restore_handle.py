"""Restore passes each definition through its plugin's
``handle_restore(defn, data)``, as Heat's ``Stack.restore_data`` does.

A probe type keeps a "backup" at snapshot (``data_set``) and, at restore,
returns the snapshot's definition frozen with a property that names the
backup and the value the snapshot's template had; the stack is updated
between snapshot and restore, so the result tells which definition and
which data the plugin got. Through HTTP → API → RPC → engine → SQLite.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core.plugin_api import attributes
from keel_heat_core.plugin_api import properties as props
from keel_heat_core.plugin_api.resource import Resource
from keel_heat_core.testing import cloud_setup
from tests.functional.snapshots.harness import SnapshotCloud
from tests.functional.software.harness import wait_for

PROBE = "KeelTest::Restorable"


class Restorable(Resource):
    """Snapshots a "backup" of its value and restores from it."""

    properties_schema = {
        "value": props.Schema(
            props.Schema.STRING, "Changed to update.", update_allowed=True
        )
    }
    attributes_schema = {"value": attributes.Schema("The value.")}

    def handle_create(self) -> None:
        self.resource_id_set(self.physical_resource_name())

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        return None

    def handle_snapshot(self) -> None:
        self.data_set("backup", f"backup of {self.properties['value']}")

    def handle_restore(self, defn: Any, data: Any) -> Any:
        backup = data["resource_data"]["backup"]
        value = f"{backup} / {self.properties['value']}"
        return defn.freeze(properties={"value": value})

    def _resolve_attribute(self, name: str) -> Any:
        return self.properties["value"]


def _template(value: str) -> dict[str, Any]:
    return {
        "heat_template_version": "2016-10-14",
        "parameters": {"v": {"type": "string", "default": value}},
        "resources": {
            "probe": {
                "type": PROBE,
                "properties": {"value": {"get_param": "v"}},
            },
            "plain": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": {"get_param": "v"}},
            },
        },
        "outputs": {
            "probe": {"value": {"get_attr": ["probe", "value"]}},
            "plain": {"value": {"get_attr": ["plain", "output"]}},
        },
    }


@pytest.fixture
def probe_type(cloud: SnapshotCloud) -> Iterator[None]:
    """The probe type in the engine's global environment, for one test."""
    with cloud_setup.registered_types({PROBE: Restorable}):
        yield


def _resource(cloud: SnapshotCloud, path: str, name: str) -> dict[str, Any]:
    status, body = cloud.request("GET", f"{path}/resources/{name}")
    assert status == 200, body
    return dict(body["resource"])


def test_restore_runs_the_plugins_handle_restore(
    cloud: SnapshotCloud, probe_type: None
) -> None:
    status, body = cloud.request(
        "POST", "/stacks", {"stack_name": "rst", "template": _template("one")}
    )
    assert status == 201, body
    path = f"/stacks/rst/{body['stack']['id']}"
    cloud.wait_state("rst", "CREATE_COMPLETE")
    physical = _resource(cloud, path, "probe")["physical_resource_id"]

    status, body = cloud.request("POST", f"{path}/snapshots", {"name": "s"})
    assert status == 200, body
    snapshot_id = body["id"]

    def snapshot_done() -> Any:
        status, body = cloud.request("GET", f"{path}/snapshots/{snapshot_id}")
        assert status == 200, body
        found = body["snapshot"]
        assert found["status"] != "FAILED", found
        return found if found["status"] == "COMPLETE" else None

    snap = wait_for(snapshot_done, what="the snapshot")
    parts = snap["data"]["resources"]
    assert parts["probe"]["resource_data"] == {"backup": "backup of one"}

    status, body = cloud.request(
        "PUT", path, {"template": _template("two"), "parameters": {}}
    )
    assert status == 202, body
    cloud.wait_state("rst", "UPDATE_COMPLETE")
    assert cloud.outputs("rst") == {"probe": "two", "plain": "two"}

    status, body = cloud.request(
        "POST", f"{path}/snapshots/{snapshot_id}/restore", None
    )
    assert status == 202, body
    cloud.wait_state("rst", "RESTORE_COMPLETE")
    # the probe restored from its backup, with the snapshot's definition;
    # the TestResource (no handle_restore) as the snapshot's template says
    assert cloud.outputs("rst") == {
        "probe": "backup of one / one",
        "plain": "one",
    }
    probe = _resource(cloud, path, "probe")
    assert probe["physical_resource_id"] == physical
    assert probe["resource_status"] == "UPDATE_COMPLETE"
    status, body = cloud.request("GET", f"{path}/template")
    assert status == 200, body
    assert body["resources"]["probe"]["properties"] == {
        "value": "backup of one / one"
    }
    assert body["resources"]["plain"]["properties"] == {
        "value": {"get_param": "v"}
    }
