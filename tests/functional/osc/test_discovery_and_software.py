"""``openstack orchestration ...`` and ``openstack software ...``
commands (those python-openstackclient's Heat plugin offers) against a
running keel-heat-all, through the real OSC + heatclient."""

from __future__ import annotations

import yaml

from tests.functional.osc import templates
from tests.functional.osc.conftest import Cloud


def test_resource_type_list_and_show(cloud: Cloud):
    listed = cloud.json("orchestration", "resource", "type", "list")
    names = {row["Resource Type"] for row in listed}
    assert {"OS::Heat::TestResource", "OS::Heat::RandomString"} <= names
    filtered = cloud.json(
        "orchestration",
        "resource",
        "type",
        "list",
        "--filter",
        "name=OS::Heat::Random.*",
    )
    assert [row["Resource Type"] for row in filtered] == [
        "OS::Heat::RandomString"
    ]
    # the name filter is a regular expression matched from the start
    assert (
        cloud.json(
            "orchestration",
            "resource",
            "type",
            "list",
            "--filter",
            "name=RandomString",
        )
        == []
    )
    shown = cloud.json(
        "orchestration", "resource", "type", "show", "OS::Heat::RandomString"
    )
    assert shown["resource_type"] == "OS::Heat::RandomString"
    assert shown["properties"]["length"]["default"] == 32
    assert "value" in shown["attributes"]
    generated = yaml.safe_load(
        cloud.osc(
            "orchestration",
            "resource",
            "type",
            "show",
            "OS::Heat::RandomString",
            "--template-type",
            "hot",
        )
    )
    assert generated["resources"]["RandomString"]["type"] == (
        "OS::Heat::RandomString"
    )


def test_template_version_and_function_list(cloud: Cloud):
    versions = cloud.json("orchestration", "template", "version", "list")
    by_name = {row["Version"]: row for row in versions}
    assert by_name["heat_template_version.2016-04-08"]["Type"] == "hot"
    assert by_name["AWSTemplateFormatVersion.2010-09-09"]["Type"] == "cfn"
    functions = cloud.json(
        "orchestration",
        "template",
        "function",
        "list",
        "heat_template_version.2016-04-08",
    )
    described = {row["Functions"]: row["Description"] for row in functions}
    # heat-tempest-plugin's templates.yaml checks this text
    assert described["get_file"] == "A function for including a file inline."
    assert all(described.values()), described
    with_conditions = cloud.json(
        "orchestration",
        "template",
        "function",
        "list",
        "--with_conditions",
        "heat_template_version.2016-10-14",
    )
    assert "equals" in {row["Functions"] for row in with_conditions}
    unknown = cloud.run(
        "orchestration",
        "template",
        "function",
        "list",
        "no-such-version",
        check=False,
    )
    assert unknown.returncode != 0
    assert "not found" in unknown.stderr


NO_DEFAULT = """\
heat_template_version: 2016-04-08
parameters:
  test_val: {type: string}
resources:
  test:
    type: OS::Heat::TestResource
    properties: {value: {get_param: test_val}}
outputs:
  output_value: {value: {get_attr: [test, output]}}
"""


def test_template_validate(cloud: Cloud, tmp_path):
    template = tmp_path / "t.yaml"
    template.write_text(templates.SIMPLE)
    result = cloud.json(
        "orchestration", "template", "validate", "-t", str(template)
    )
    assert result["Description"] == "one test resource"
    assert result["Parameters"]["v"]["Default"] == "one"
    # a parameter without a default needs no value to validate (Heat)
    template.write_text(NO_DEFAULT)
    result = cloud.json(
        "orchestration", "template", "validate", "-t", str(template)
    )
    assert result["Parameters"]["test_val"]["Type"] == "String"
    assert "Default" not in result["Parameters"]["test_val"]
    # --show-nested: the parameters of a template resource's template
    (tmp_path / "child.yaml").write_text(
        "heat_template_version: 2016-04-08\n"
        "description: the child\n"
        "parameters:\n  size: {type: number, default: 10}\n"
    )
    template.write_text(
        "heat_template_version: 2016-04-08\n"
        "resources:\n  kid: {type: child.yaml}\n"
    )
    result = cloud.json(
        "orchestration",
        "template",
        "validate",
        "--show-nested",
        "-t",
        str(template),
    )
    kid = result["NestedParameters"]["kid"]
    assert kid["Type"] == f"file://{tmp_path}/child.yaml"
    assert kid["Description"] == "the child"
    assert kid["Parameters"]["size"]["Default"] == 10
    template.write_text(
        "heat_template_version: 2016-04-08\n"
        "resources:\n  bad: {type: OS::No::Such}\n"
    )
    refused = cloud.run(
        "orchestration",
        "template",
        "validate",
        "-t",
        str(template),
        check=False,
    )
    assert refused.returncode != 0
    assert "OS::No::Such" in refused.stderr


def test_software_config_commands(cloud: Cloud, tmp_path):
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\necho hello\n")
    definition = tmp_path / "definition.yaml"
    definition.write_text(
        "inputs:\n- name: foo\noutputs:\n- name: result\n"
        "options: {debug: true}\n"
    )
    created = cloud.json(
        "software",
        "config",
        "create",
        "--config-file",
        str(script),
        "--definition-file",
        str(definition),
        "--group",
        "script",
        "hello",
    )
    config_id = created["id"]
    assert created["name"] == "hello"
    assert created["group"] == "script"
    assert created["config"] == "#!/bin/sh\necho hello\n"
    assert [i["name"] for i in created["inputs"]] == ["foo"]
    assert created["options"] == {"debug": True}
    listed = cloud.json("software", "config", "list")
    assert config_id in {row["id"] for row in listed}
    shown = yaml.safe_load(cloud.osc("software", "config", "show", config_id))
    assert shown["id"] == config_id
    assert shown["outputs"][0]["name"] == "result"
    only = cloud.osc("software", "config", "show", "--config-only", config_id)
    assert only.strip() == "#!/bin/sh\necho hello"
    cloud.osc("software", "config", "delete", config_id)
    gone = cloud.run("software", "config", "show", config_id, check=False)
    assert gone.returncode != 0


def test_software_deployment_commands(cloud: Cloud):
    status, body = cloud.http(
        "POST",
        "/software_configs",
        {
            "name": "source",
            "group": "script",
            "config": "echo hi",
            "inputs": [{"name": "foo"}],
            "outputs": [{"name": "result"}],
        },
    )
    assert status == 200, body
    source = body["software_config"]["id"]
    created = cloud.json(
        "software",
        "deployment",
        "create",
        "deploy-osc",
        "--config",
        source,
        "--server",
        "server-osc",
        "--signal-transport",
        "NO_SIGNAL",
        "--input-value",
        "foo=bar",
    )
    dep_id = created["id"]
    assert created["server_id"] == "server-osc"
    assert created["status"] == "IN_PROGRESS"
    shown = cloud.json("software", "deployment", "show", dep_id)
    assert shown["config_id"] == created["config_id"]
    # heatclient's default --action
    assert shown["action"] == "UPDATE"
    listed = cloud.json(
        "software", "deployment", "list", "--server", "server-osc"
    )
    assert [row["id"] for row in listed] == [dep_id]
    metadata = yaml.safe_load(
        cloud.osc("software", "deployment", "metadata", "show", "server-osc")
    )
    assert [c["name"] for c in metadata] == ["deploy-osc"]
    inputs = {i["name"]: i.get("value") for i in metadata[0]["inputs"]}
    assert inputs["foo"] == "bar"
    assert inputs["deploy_server_id"] == "server-osc"
    # the server reports its outputs as os-collect-config would (PUT)
    status, body = cloud.http(
        "PUT",
        f"/software_deployments/{dep_id}",
        {
            "status": "COMPLETE",
            "status_reason": "Outputs received",
            "output_values": {"result": "42", "deploy_stdout": "done"},
        },
    )
    assert status == 200, body
    result = cloud.osc(
        "software", "deployment", "output", "show", dep_id, "result"
    )
    assert "42" in result, result
    everything = cloud.osc(
        "software", "deployment", "output", "show", dep_id, "--all"
    )
    assert "42" in everything and "done" in everything, everything
    assert (
        cloud.json("software", "deployment", "show", dep_id)["status"]
        == "COMPLETE"
    )
    cloud.osc("software", "deployment", "delete", dep_id)
    assert (
        cloud.json("software", "deployment", "list", "--server", "server-osc")
        == []
    )
