"""``openstack stack ...`` commands (python-openstackclient's Heat plugin)
against a running keel-heat-all: each runs as a subprocess of the real OSC +
heatclient and its ``-f json``/``-f value`` answer is checked."""

from __future__ import annotations

import json
import pathlib

import pytest
import yaml

from tests.functional.osc import templates
from tests.functional.osc.conftest import Cloud, wait_for


def _write(directory: pathlib.Path, name: str, text: str) -> str:
    path = directory / name
    path.write_text(text)
    return str(path)


@pytest.fixture(scope="module")
def nested(cloud: Cloud, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A stack with template resources two levels deep."""
    here = tmp_path_factory.mktemp("nested")
    _write(here, "leaf.yaml", templates.LEAF)
    _write(here, "middle.yaml", templates.MIDDLE)
    top = _write(here, "top.yaml", templates.TOP)
    cloud.osc("stack", "create", "--wait", "-t", top, "nest")
    return "nest"


def test_create_wait_output_list_and_show(cloud: Cloud, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    created = cloud.json(
        "stack",
        "create",
        "--wait",
        "-t",
        template,
        "--tags",
        "red,blue",
        "--parameter",
        "v=hello",
        "first",
    )
    # --wait polled the events until the stack was complete
    assert created["stack_status"] == "CREATE_COMPLETE"
    assert created["stack_name"] == "first"
    outputs = cloud.json("stack", "output", "list", "first")
    assert outputs == [
        {"output_key": "said", "description": "what the resource said"}
    ]
    shown = cloud.json("stack", "output", "show", "first", "said")
    assert shown["output_value"] == "hello"
    assert shown["description"] == "what the resource said"
    everything = cloud.json("stack", "output", "show", "first", "--all")
    assert everything["said"]["output_value"] == "hello"
    # the native API lists keys and descriptions only, as Heat
    status, body = cloud.http(
        "GET", "/stacks/first/" + created["id"] + "/outputs"
    )
    assert status == 200
    assert body == {
        "outputs": [
            {"output_key": "said", "description": "what the resource said"}
        ]
    }


def test_stack_list_long_nested_and_tags(cloud: Cloud, nested: str, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    cloud.osc(
        "stack",
        "create",
        "--wait",
        "-t",
        template,
        "--tags",
        "green",
        "tagged",
    )
    names = {s["Stack Name"] for s in cloud.json("stack", "list")}
    assert {"tagged", nested} <= names
    assert not any(n.startswith(f"{nested}-mid-") for n in names)
    tagged = cloud.json("stack", "list", "--tags", "green")
    assert [s["Stack Name"] for s in tagged] == ["tagged"]
    assert cloud.json("stack", "list", "--tags", "no-such-tag") == []
    with_nested = cloud.json("stack", "list", "--nested")
    parent_id = cloud.stack(nested)["id"]
    children = [s for s in with_nested if s["Parent"] == parent_id]
    assert len(children) == 1
    assert children[0]["Stack Name"].startswith(f"{nested}-mid-")
    # the grandchild is listed too, under the child
    grandchildren = [
        s for s in with_nested if s["Parent"] == children[0]["ID"]
    ]
    assert len(grandchildren) == 1
    assert grandchildren[0]["Stack Name"].startswith(
        children[0]["Stack Name"] + "-inner-"
    )
    long = cloud.json("stack", "list", "--long")
    row = next(s for s in long if s["Stack Name"] == "tagged")
    # --long lists all projects (global_tenant) with owner and project
    assert {"Stack Owner", "Project"} <= set(row)
    assert row["Project"] == cloud.project


def test_show_of_a_nested_stack(cloud: Cloud, nested: str):
    top = cloud.stack(nested)
    mid = cloud.json("stack", "resource", "show", nested, "mid")
    child_id = mid["physical_resource_id"]
    assert any(link["rel"] == "nested" for link in mid["links"])
    child = cloud.stack(child_id)
    assert child["parent"] == top["id"]
    assert child["stack_name"].startswith(f"{nested}-mid-")
    assert child["stack_status"] == "CREATE_COMPLETE"
    assert {o["output_key"] for o in child["outputs"]} == {"out"}
    assert child["outputs"][0]["output_value"] == "deep"


def test_resource_list_nested_depth_and_filters(cloud: Cloud, nested: str):
    top = cloud.json("stack", "resource", "list", nested)
    assert {r["resource_name"] for r in top} == {"mid", "random"}
    deep = cloud.json("stack", "resource", "list", "-n", "2", nested)
    assert {r["resource_name"] for r in deep} == {
        "mid",
        "random",
        "inner",
        "leaf_thing",
    }
    by_name = {r["resource_name"]: r for r in deep}
    # heatclient adds the owning stack's name at depth > 0
    assert by_name["leaf_thing"]["stack_name"].startswith(f"{nested}-mid-")
    one = cloud.json("stack", "resource", "list", "-n", "1", nested)
    assert {r["resource_name"] for r in one} == {"mid", "random", "inner"}
    typed = cloud.json(
        "stack",
        "resource",
        "list",
        "-n",
        "2",
        "--filter",
        "type=TestResource",
        nested,
    )
    assert [r["resource_name"] for r in typed] == ["leaf_thing"]
    named = cloud.json(
        "stack", "resource", "list", "--filter", "name=random", nested
    )
    assert [r["resource_type"] for r in named] == ["OS::Heat::RandomString"]
    done = cloud.json(
        "stack",
        "resource",
        "list",
        "--filter",
        "status=CREATE_COMPLETE",
        nested,
    )
    assert len(done) == 2
    failed = cloud.json(
        "stack",
        "resource",
        "list",
        "--filter",
        "status=CREATE_FAILED",
        nested,
    )
    assert failed == []
    detailed = cloud.json(
        "stack", "resource", "list", "--long", "-n", "2", nested
    )
    leaf = next(r for r in detailed if r["resource_name"] == "leaf_thing")
    assert leaf["physical_resource_id"]


def test_resource_show_signal_metadata_and_mark_unhealthy(
    cloud: Cloud, tmp_path
):
    template = _write(tmp_path, "t.yaml", templates.SIGNALLED)
    cloud.osc("stack", "create", "-t", template, "signalled")
    cloud.wait_status("signalled", "CREATE_FAILED")
    shown = cloud.json("stack", "resource", "show", "signalled", "thing")
    assert shown["resource_status"] == "CREATE_COMPLETE"
    assert shown["attributes"]["output"] == "hello"
    assert shown["description"] == ""
    assert "metadata" not in shown
    extra = cloud.json(
        "stack",
        "resource",
        "show",
        "signalled",
        "thing",
        "--with-attr",
        "no_such_attr",
    )
    assert extra["attributes"]["no_such_attr"] is None
    cloud.osc(
        "stack",
        "resource",
        "signal",
        "signalled",
        "handle",
        "--data",
        json.dumps(
            {"status": "SUCCESS", "reason": "ok", "data": "42", "id": "1"}
        ),
    )
    metadata = cloud.json(
        "stack", "resource", "metadata", "signalled", "handle"
    )
    assert metadata == {
        "1": {"status": "SUCCESS", "reason": "ok", "data": "42"}
    }
    # a resource that takes no signals is a 400
    refused = cloud.run(
        "stack", "resource", "signal", "signalled", "thing", check=False
    )
    assert refused.returncode != 0
    assert "signal" in refused.stderr.lower(), refused.stderr
    cloud.osc(
        "stack",
        "resource",
        "mark",
        "unhealthy",
        "signalled",
        "thing",
        "gone away",
    )
    shown = cloud.json("stack", "resource", "show", "signalled", "thing")
    assert shown["resource_status"] == "CHECK_FAILED"
    assert shown["resource_status_reason"] == "gone away"
    cloud.osc(
        "stack",
        "resource",
        "mark",
        "unhealthy",
        "--reset",
        "signalled",
        "thing",
    )
    shown = cloud.json("stack", "resource", "show", "signalled", "thing")
    assert shown["resource_status"] == "CHECK_COMPLETE"


def test_environment_and_files_from_disk(cloud: Cloud, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.WITH_FILE)
    _write(tmp_path, "data.txt", "file-content")
    env = _write(tmp_path, "env.yaml", "parameters:\n  greeting: from-env\n")
    cloud.osc("stack", "create", "--wait", "-t", template, "-e", env, "files")
    assert (
        cloud.value(
            "stack", "output", "show", "files", "said", "-c", "output_value"
        )
        == "from-env"
    )
    assert (
        cloud.value(
            "stack", "output", "show", "files", "data", "-c", "output_value"
        )
        == "file-content"
    )
    shown_env = yaml.safe_load(
        cloud.osc("stack", "environment", "show", "files")
    )
    assert shown_env["parameters"] == {"greeting": "from-env"}
    # OSC wraps the API's {name: content} answer in "files"
    listed = cloud.json("stack", "file", "list", "files")["files"]
    by_base = {key.rsplit("/", 1)[-1]: value for key, value in listed.items()}
    assert by_base["data.txt"] == "file-content"
    # heatclient sends the environment file as it parsed it
    assert yaml.safe_load(by_base["env.yaml"]) == {
        "parameters": {"greeting": "from-env"}
    }
    shown_template = yaml.safe_load(
        cloud.osc("stack", "template", "show", "files")
    )
    # the template as heatclient sent it: get_file names its file:// URL
    sent = yaml.safe_load(templates.WITH_FILE)
    assert shown_template["resources"]["thing"] == sent["resources"]["thing"]
    url = shown_template["resources"]["config"]["properties"]["value"]
    assert url["get_file"] == f"file://{tmp_path}/data.txt"
    assert shown_template["outputs"] == sent["outputs"]


def test_update_existing_and_dry_run(cloud: Cloud, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    cloud.osc("stack", "create", "--wait", "-t", template, "updated")
    preview = cloud.json(
        "stack",
        "update",
        "--dry-run",
        "-t",
        template,
        "--parameter",
        "v=changed",
        "updated",
    )
    changes = {k: [r["resource_name"] for r in v] for k, v in preview.items()}
    assert changes == {
        "added": [],
        "deleted": [],
        "replaced": [],
        "unchanged": [],
        "updated": ["thing"],
    }
    same = cloud.json(
        "stack", "update", "--dry-run", "-t", template, "updated"
    )
    assert [r["resource_name"] for r in same["unchanged"]] == ["thing"]
    assert same["updated"] == []
    # the dry run changed nothing
    assert (
        cloud.value(
            "stack", "output", "show", "updated", "said", "-c", "output_value"
        )
        == "one"
    )
    cloud.osc(
        "stack",
        "update",
        "--wait",
        "--existing",
        "--parameter",
        "v=patched",
        "updated",
    )
    shown = cloud.stack("updated")
    assert shown["stack_status"] == "UPDATE_COMPLETE"
    assert shown["parameters"]["v"] == "patched"
    assert shown["outputs"][0]["output_value"] == "patched"
    # --existing keeps the template it does not replace
    assert (
        "thing"
        in yaml.safe_load(cloud.osc("stack", "template", "show", "updated"))[
            "resources"
        ]
    )


def test_event_list_paging(cloud: Cloud, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    cloud.osc("stack", "create", "--wait", "-t", template, "events")
    cloud.osc(
        "stack",
        "update",
        "--wait",
        "--existing",
        "--parameter",
        "v=two",
        "events",
    )
    every = cloud.json("stack", "event", "list", "events")
    newest_first = cloud.json(
        "stack", "event", "list", "events", "--sort", "event_time:desc"
    )
    assert [e["id"] for e in newest_first] == [e["id"] for e in every][::-1]
    assert len(every) >= 8
    pages: list[dict] = []
    marker: str | None = None
    while True:
        args = ["stack", "event", "list", "events", "--limit", "3"]
        if marker:
            args += ["--marker", marker]
        page = cloud.json(*args)
        if not page:
            break
        assert len(page) <= 3
        pages.extend(page)
        marker = page[-1]["id"]
    assert [e["id"] for e in pages] == [e["id"] for e in every]
    assert every[0]["resource_status"] == "CREATE_IN_PROGRESS"
    assert every[-1]["resource_status"] == "UPDATE_COMPLETE"
    thing = cloud.json(
        "stack", "event", "list", "events", "--resource", "thing"
    )
    assert {e["resource_name"] for e in thing} == {"thing"}
    one = cloud.json(
        "stack", "event", "show", "events", "thing", thing[0]["id"]
    )
    assert one["resource_name"] == "thing"
    assert one["resource_type"] == "OS::Heat::TestResource"


def test_check_suspend_resume(cloud: Cloud, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    cloud.osc("stack", "create", "--wait", "-t", template, "actions")
    cloud.osc("stack", "check", "--wait", "actions")
    assert cloud.stack("actions")["stack_status"] == "CHECK_COMPLETE"
    cloud.osc("stack", "suspend", "--wait", "actions")
    assert cloud.stack("actions")["stack_status"] == "SUSPEND_COMPLETE"
    resource = cloud.json("stack", "resource", "show", "actions", "thing")
    assert resource["resource_status"] == "SUSPEND_COMPLETE"
    cloud.osc("stack", "resume", "--wait", "actions")
    assert cloud.stack("actions")["stack_status"] == "RESUME_COMPLETE"


def test_cancel_an_update(cloud: Cloud, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    cloud.osc(
        "stack",
        "create",
        "--wait",
        "-t",
        template,
        "--enable-rollback",
        "cancelled",
    )
    cloud.osc(
        "stack",
        "update",
        "-t",
        template,
        "--parameter",
        "v=slow",
        "--parameter",
        "wait=60",
        "cancelled",
    )
    cloud.wait_status("cancelled", "UPDATE_IN_PROGRESS")
    cloud.osc("stack", "cancel", "--wait", "cancelled")
    shown = cloud.wait_status(
        "cancelled", "ROLLBACK_COMPLETE", "UPDATE_FAILED", "ROLLBACK_FAILED"
    )
    assert shown["stack_status"] == "ROLLBACK_COMPLETE", shown
    assert shown["outputs"][0]["output_value"] == "one"


def test_abandon_and_adopt(cloud: Cloud, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    cloud.osc(
        "stack",
        "create",
        "--wait",
        "-t",
        template,
        "--parameter",
        "v=kept",
        "abandoned",
    )
    data_file = tmp_path / "abandoned.json"
    cloud.osc("stack", "abandon", "abandoned", "--output-file", str(data_file))
    data = json.loads(data_file.read_text())
    assert data["name"] == "abandoned"
    assert data["resources"]["thing"]["type"] == "OS::Heat::TestResource"
    physical = data["resources"]["thing"]["resource_id"]
    gone = cloud.run("stack", "show", "abandoned", check=False)
    assert gone.returncode != 0
    assert "Stack not found: abandoned" in gone.stderr
    adopted = cloud.json(
        "stack", "adopt", "--wait", "--adopt-file", str(data_file), "adopted"
    )
    assert adopted["stack_status"] == "ADOPT_COMPLETE"
    thing = cloud.json("stack", "resource", "show", "adopted", "thing")
    assert thing["physical_resource_id"] == physical
    assert thing["resource_status"] == "ADOPT_COMPLETE"


def test_snapshot_commands(cloud: Cloud, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    cloud.osc("stack", "create", "--wait", "-t", template, "snapped")
    created = cloud.json(
        "stack", "snapshot", "create", "snapped", "--name", "before"
    )
    sid = created["ID"]

    def complete() -> dict | None:
        shown = cloud.json("stack", "snapshot", "show", "snapped", sid)
        snap = shown["snapshot"]
        return snap if snap["status"] == "COMPLETE" else None

    snap = wait_for(complete, what="snapshot")
    assert snap["name"] == "before"
    listed = cloud.json("stack", "snapshot", "list", "snapped")
    assert [s["id"] for s in listed] == [sid]
    cloud.osc(
        "stack",
        "update",
        "--wait",
        "--existing",
        "--parameter",
        "v=after",
        "snapped",
    )
    cloud.osc("stack", "snapshot", "restore", "snapped", sid)
    shown = cloud.wait_status("snapped", "RESTORE_COMPLETE")
    assert shown["outputs"][0]["output_value"] == "one"
    cloud.osc("stack", "snapshot", "delete", "snapped", sid)
    assert cloud.json("stack", "snapshot", "list", "snapped") == []


HOOKED_ENV = """\
resource_registry:
  resources:
    thing:
      hooks: pre-create
"""


def test_hook_poll_and_clear(cloud: Cloud, tmp_path):
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    env = _write(tmp_path, "env.yaml", HOOKED_ENV)
    cloud.osc("stack", "create", "-t", template, "-e", env, "hooked")

    def pending() -> list | None:
        found = cloud.json("stack", "hook", "poll", "hooked")
        return found or None

    hooks = wait_for(pending, timeout=30, what="a pending hook")
    assert [
        (h["Resource Name"], h["Resource Status Reason"]) for h in hooks
    ] == [("thing", "CREATE paused until Hook pre-create is cleared")]
    assert cloud.stack("hooked")["stack_status"] == "CREATE_IN_PROGRESS"
    cloud.osc("stack", "hook", "clear", "--pre-create", "hooked", "thing")
    cloud.wait_status("hooked", "CREATE_COMPLETE")
    # heatclient polls hooks of an in-progress stack only
    done = cloud.run("stack", "hook", "poll", "hooked", check=False)
    assert done.returncode != 0
    assert "Stack status CREATE_COMPLETE not IN_PROGRESS" in done.stderr


def test_a_deleted_stack_is_shown_by_id(cloud: Cloud, tmp_path):
    """After a delete, ``stack show <id>`` reads DELETE_COMPLETE (clients
    poll a delete by id until they see it) with its template and events,
    while the name no longer finds it; a stack without tags shows ``[]``
    (a listing shows ``null``)."""
    template = _write(tmp_path, "t.yaml", templates.SIMPLE)
    created = cloud.json("stack", "create", "--wait", "-t", template, "gone")
    stack_id = created["id"]
    assert cloud.stack("gone")["tags"] == []
    status, listed = cloud.http("GET", "/stacks?name=gone")
    assert status == 200
    assert [s["tags"] for s in listed["stacks"]] == [None]

    cloud.osc("stack", "delete", "--yes", "--wait", "gone")
    shown = cloud.stack(stack_id)
    assert shown["stack_status"] == "DELETE_COMPLETE"
    assert shown["id"] == stack_id
    assert shown["deletion_time"]
    events = cloud.json("stack", "event", "list", stack_id)
    assert "DELETE_COMPLETE" in {e["resource_status"] for e in events}
    kept = cloud.json("stack", "template", "show", stack_id)
    # a delete converges the stack to an empty template of its version
    assert kept == {"heat_template_version": "2021-04-16"}
    by_name = cloud.run("stack", "show", "gone", check=False)
    assert by_name.returncode != 0
    assert "Stack not found: gone" in by_name.stderr
    listed_now = cloud.json("stack", "list")
    assert stack_id not in {s["ID"] for s in listed_now}


OLD_AND_NEW = """\
heat_template_version: 2021-04-16
resources:
  a:
    type: OS::Heat::TestResource
    depends_on: b
    properties: {value: one}
  b:
    type: OS::Heat::RandomString
"""

A_FAILS = """\
heat_template_version: 2021-04-16
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: two, fail: true}
"""


def test_a_resource_of_an_older_template_keeps_its_type(
    cloud: Cloud, tmp_path
):
    """After an update that failed, ``b`` (removed by the update, whose
    clean-up waits for ``a``) still belongs to the older template: its
    type is read from that template, not shown empty."""
    first = _write(tmp_path, "one.yaml", OLD_AND_NEW)
    second = _write(tmp_path, "two.yaml", A_FAILS)
    cloud.osc("stack", "create", "--wait", "-t", first, "older")
    cloud.run("stack", "update", "--wait", "-t", second, "older", check=False)
    assert cloud.stack("older")["stack_status"] == "UPDATE_FAILED"
    types = {
        res["resource_name"]: res["resource_type"]
        for res in cloud.json("stack", "resource", "list", "older")
    }
    assert types == {
        "a": "OS::Heat::TestResource",
        "b": "OS::Heat::RandomString",
    }
    filtered = cloud.json(
        "stack", "resource", "list", "older", "--filter", "type=Random"
    )
    assert [res["resource_name"] for res in filtered] == ["b"]
