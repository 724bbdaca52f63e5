"""Software configs and deployments through OSC and HTTP, end to end."""

from __future__ import annotations

import json
import pathlib

from tests.functional.software.harness import PROJECTS, Cloud

OTHER = PROJECTS[1]


def _json(cloud: Cloud, *args: str) -> dict:
    return json.loads(cloud.openstack(*args, "-f", "json"))


def test_osc_software_config_create(cloud: Cloud, tmp_path: pathlib.Path):
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\necho hello\n")
    io = tmp_path / "io.yaml"
    io.write_text(
        "inputs:\n- name: foo\n  default: bar\noutputs:\n- name: result\n"
        "options:\n  opt: 1\n"
    )
    created = _json(
        cloud,
        "software",
        "config",
        "create",
        "osc-config",
        "--group",
        "script",
        # (heatclient's help swaps the two: the definition has the I/O)
        "--definition-file",
        str(io),
        "--config-file",
        str(script),
    )
    assert created["name"] == "osc-config"
    assert created["group"] == "script"
    assert created["config"] == "#!/bin/sh\necho hello\n"
    assert created["inputs"] == [
        {"name": "foo", "type": "String", "default": "bar"}
    ]
    assert created["outputs"] == [
        {"name": "result", "type": "String", "error_output": False}
    ]
    assert created["options"] == {"opt": 1}
    cloud.openstack("software", "config", "delete", created["id"])


def test_osc_software_config_lifecycle(cloud: Cloud):
    created = _config(
        cloud,
        name="osc-config",
        inputs=[{"name": "foo", "default": "bar"}],
        options={"opt": 1},
    )
    assert created["inputs"] == [
        {"name": "foo", "type": "String", "default": "bar"}
    ]
    assert created["outputs"] == [
        {"name": "result", "type": "String", "error_output": False}
    ]
    shown = _json(cloud, "software", "config", "show", created["id"])
    assert shown["id"] == created["id"]
    assert shown["config"] == created["config"]
    listed = json.loads(
        cloud.openstack("software", "config", "list", "-f", "json")
    )
    assert created["id"] in [c["id"] for c in listed]
    # another project neither sees nor deletes it
    status, body = cloud.request(
        "GET", f"/software_configs/{created['id']}", project=OTHER
    )
    assert status == 404
    assert body["error"]["type"] == "NotFound"
    assert body["error"]["message"] == (
        f"Software config with id {created['id']} not found"
    )
    cloud.openstack("software", "config", "delete", created["id"])
    status, _ = cloud.request("GET", f"/software_configs/{created['id']}")
    assert status == 404


def _config(cloud: Cloud, project: str = PROJECTS[0], **kw: object) -> dict:
    body = {
        "name": "cfg",
        "group": "script",
        "config": "echo hi",
        "inputs": [{"name": "foo"}],
        "outputs": [{"name": "result"}],
    }
    body.update(kw)
    status, out = cloud.request(
        "POST", "/software_configs", body, project=project
    )
    assert status == 200, out
    return out["software_config"]


def test_osc_deployment_lifecycle(cloud: Cloud):
    source = _config(cloud, name="source")
    created = _json(
        cloud,
        "software",
        "deployment",
        "create",
        "osc-deploy",
        "--config",
        source["id"],
        "--server",
        "server-osc",
        "--signal-transport",
        "NO_SIGNAL",
        "--input-value",
        "foo=bar",
    )
    dep_id = created["id"]
    assert created["server_id"] == "server-osc"
    # heatclient always creates the deployment IN_PROGRESS
    assert created["status"] == "IN_PROGRESS"
    shown = _json(cloud, "software", "deployment", "show", dep_id)
    assert shown["id"] == dep_id
    assert shown["config_id"] == created["config_id"]
    listed = json.loads(
        cloud.openstack(
            "software",
            "deployment",
            "list",
            "--server",
            "server-osc",
            "-f",
            "json",
        )
    )
    assert [d["id"] for d in listed] == [dep_id]
    metadata = json.loads(
        cloud.openstack(
            "software", "deployment", "metadata", "show", "server-osc"
        )
    )
    assert [c["name"] for c in metadata] == ["osc-deploy"]
    derived_inputs = {i["name"]: i.get("value") for i in metadata[0]["inputs"]}
    assert derived_inputs["foo"] == "bar"
    assert derived_inputs["deploy_server_id"] == "server-osc"
    # the server signals its outputs (as the deployment resource relays)
    outcome = cloud.endpoint().signal_software_deployment(
        None,
        deployment_id=dep_id,
        details={"result": "42", "deploy_stdout": "done"},
        updated_at=None,
    )
    assert outcome == f"deployment {dep_id} succeeded"
    output = cloud.openstack(
        "software", "deployment", "output", "show", dep_id, "result"
    )
    assert "42" in output, output
    outputs = cloud.openstack(
        "software", "deployment", "output", "show", dep_id, "--all"
    )
    assert "done" in outputs and "42" in outputs, outputs
    cloud.openstack("software", "deployment", "delete", dep_id)
    status, _ = cloud.request("GET", f"/software_deployments/{dep_id}")
    assert status == 404


def test_deployment_of_another_projects_config_is_404(cloud: Cloud):
    theirs = _config(cloud, OTHER, name="theirs")
    status, body = cloud.request(
        "POST",
        "/software_deployments",
        {"config_id": theirs["id"], "server_id": "s1", "action": "CREATE"},
    )
    assert status == 404, body
    assert body["error"]["message"] == (
        f"Software config with id {theirs['id']} not found"
    )
    status, body = cloud.request("GET", "/software_deployments")
    assert "s1" not in [d["server_id"] for d in body["software_deployments"]]


def test_delete_config_in_use_is_409(cloud: Cloud):
    config = _config(cloud, name="in-use")
    status, body = cloud.request(
        "POST",
        "/software_deployments",
        {
            "config_id": config["id"],
            "server_id": "s2",
            "action": "CREATE",
            "status": "COMPLETE",
            "status_reason": "ok",
        },
    )
    assert status == 200, body
    deployment = body["software_deployment"]
    assert list(deployment) == [
        "id",
        "server_id",
        "input_values",
        "output_values",
        "action",
        "status",
        "status_reason",
        "config_id",
        "creation_time",
    ]
    status, body = cloud.request("DELETE", f"/software_configs/{config['id']}")
    assert status == 409
    assert body["error"]["type"] == "InvalidRestrictedAction"
    assert body["error"]["message"] == (
        f"Software config with id {config['id']} can not be deleted as it "
        "is referenced."
    )
    status, body = cloud.request(
        "PUT",
        f"/software_deployments/{deployment['id']}",
        {"status": "FAILED", "status_reason": None},
    )
    assert status == 200
    assert body["software_deployment"]["status"] == "FAILED"
    assert body["software_deployment"]["status_reason"] == "ok"
    assert "updated_time" in body["software_deployment"]
    status, body = cloud.request("GET", "/software_deployments/metadata/s2")
    assert status == 200
    assert [c["id"] for c in body["metadata"]] == [config["id"]]
