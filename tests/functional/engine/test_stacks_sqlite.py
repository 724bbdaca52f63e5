"""Create, update, delete, rollback and cancel through the real engine:
two EngineServices on one SQLite database and the in-process bus."""

import json
import pathlib
from collections.abc import Iterator

import pytest

from keel_heat_core import exception
from keel_heat_core.db import event as event_repo
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import stack as stack_repo
from tests.functional.engine.stacks import Cloud, scratch_database, wait_for

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "resources": {
        "none": {"type": "OS::Heat::None"},
        "test": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "one"},
        },
        "after": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["test", "output"]}},
            "depends_on": ["none"],
        },
    },
    "outputs": {
        "out": {"value": {"get_attr": ["after", "output"]}},
        "ref": {"value": {"get_resource": "test"}},
    },
}


@pytest.fixture
def cloud(tmp_path: pathlib.Path) -> Iterator[Cloud]:
    with scratch_database("sqlite", tmp_path) as url:
        cloud = Cloud(url)
        try:
            yield cloud
        finally:
            cloud.close()


def state(cloud: Cloud, ident: dict[str, str]) -> str:
    rec = stack_repo.get(cloud.db, ident["stack_id"], show_deleted=True)
    assert rec is not None
    return f"{rec.action}_{rec.status}"


def wait_state(cloud: Cloud, ident: dict[str, str], wanted: str) -> None:
    """Wait for ``wanted``; on a timeout, say where the stack is."""
    try:
        wait_for(lambda: state(cloud, ident) == wanted, what=wanted)
    except AssertionError:
        rec = stack_repo.get(cloud.db, ident["stack_id"], show_deleted=True)
        assert rec is not None
        raise AssertionError(
            f"{rec.action}_{rec.status}: {rec.status_reason}"
        ) from None


def rows(cloud: Cloud, ident: dict[str, str]) -> dict[str, str]:
    return {
        rec.name: f"{rec.action}_{rec.status}"
        for rec in resource_repo.get_all_by_stack(cloud.db, ident["stack_id"])
    }


def stack_events(cloud: Cloud, ident: dict[str, str]) -> list[str]:
    events = event_repo.list_by_stack(
        cloud.db, ident["stack_id"], sort_dir="asc"
    )
    return [
        f"{e.resource_action}_{e.resource_status}"
        for e in events
        if e.resource_type == "OS::Heat::Stack"
    ]


def test_create_show_update_delete(cloud: Cloud) -> None:
    api = cloud.endpoint(0)
    ident = api.create_stack(
        cloud.ctxt, "teststack", TEMPLATE, {}, {}, {"timeout_mins": 10}
    )
    wait_state(cloud, ident, "CREATE_COMPLETE")
    assert rows(cloud, ident) == {
        "none": "CREATE_COMPLETE",
        "test": "CREATE_COMPLETE",
        "after": "CREATE_COMPLETE",
    }
    assert stack_events(cloud, ident) == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
    ]
    (shown,) = cloud.endpoint(1).show_stack(cloud.ctxt, ident)
    assert shown["stack_status_reason"] == (
        "Stack CREATE completed successfully"
    )
    outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
    assert outputs["out"] == "one"
    assert outputs["ref"].startswith("teststack-test-")
    physical = resource_repo.get_by_name_and_stack(
        cloud.db, "test", ident["stack_id"]
    )
    assert physical is not None and physical.nova_instance
    assert api.find_physical_resource(cloud.ctxt, physical.nova_instance) == {
        **ident,
        "path": "/resources/test",
    }
    listed = api.list_stack_resources(cloud.ctxt, ident)
    assert {r["resource_name"]: r["resource_type"] for r in listed} == {
        "none": "OS::Heat::None",
        "test": "OS::Heat::TestResource",
        "after": "OS::Heat::TestResource",
    }

    new = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "test": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": "two"},
            },
            "replaced": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": "x", "update_replace_value": "a"},
            },
        },
        "outputs": {"out": {"value": {"get_attr": ["test", "output"]}}},
    }
    api.update_stack(cloud.ctxt, ident, new, {}, {}, {})
    wait_state(cloud, ident, "UPDATE_COMPLETE")
    assert rows(cloud, ident) == {
        "test": "UPDATE_COMPLETE",
        "replaced": "CREATE_COMPLETE",
    }
    (shown,) = api.show_stack(cloud.ctxt, ident)
    assert shown["outputs"][0]["output_value"] == "two"

    # update_replace_value may not change in place: a replacement row
    new["resources"]["replaced"]["properties"]["update_replace_value"] = "b"
    before = resource_repo.get_by_name_and_stack(
        cloud.db, "replaced", ident["stack_id"]
    )
    api.update_stack(cloud.ctxt, ident, new, {}, {}, {})
    wait_state(cloud, ident, "UPDATE_COMPLETE")
    after = resource_repo.get_by_name_and_stack(
        cloud.db, "replaced", ident["stack_id"]
    )
    assert before is not None and after is not None
    assert after.id != before.id
    assert rows(cloud, ident) == {
        "test": "UPDATE_COMPLETE",
        "replaced": "CREATE_COMPLETE",
    }

    api.delete_stack(cloud.ctxt, ident)
    wait_state(cloud, ident, "DELETE_COMPLETE")
    assert rows(cloud, ident) == {}
    # by id a deleted stack is still shown, DELETE_COMPLETE (as Heat)
    (gone,) = api.show_stack(cloud.ctxt, ident)
    assert gone["stack_action"] == "DELETE"
    assert gone["stack_status"] == "COMPLETE"
    assert gone["deletion_time"] is not None
    with pytest.raises(exception.EntityNotFound):
        api.identify_stack(cloud.ctxt, ident["stack_name"])


def test_failed_create_rolls_back(cloud: Cloud) -> None:
    api = cloud.endpoint(0)
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "ok": {"type": "OS::Heat::None"},
            "bad": {
                "type": "OS::Heat::TestResource",
                "properties": {"fail": True},
                "depends_on": ["ok"],
            },
        },
    }
    ident = api.create_stack(
        cloud.ctxt, "failing", template, {}, {}, {"disable_rollback": False}
    )
    wait_state(cloud, ident, "ROLLBACK_COMPLETE")
    assert stack_events(cloud, ident) == [
        "CREATE_IN_PROGRESS",
        "CREATE_FAILED",
        "ROLLBACK_IN_PROGRESS",
        "ROLLBACK_COMPLETE",
    ]
    assert rows(cloud, ident) == {}


def test_failed_create_without_rollback(cloud: Cloud) -> None:
    api = cloud.endpoint(1)
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "bad": {
                "type": "OS::Heat::TestResource",
                "properties": {"fail": True},
            },
        },
    }
    ident = api.create_stack(cloud.ctxt, "failing", template, {}, {}, {})
    wait_state(cloud, ident, "CREATE_FAILED")
    rec = stack_repo.get(cloud.db, ident["stack_id"])
    assert rec is not None
    assert rec.status_reason == (
        "Resource CREATE failed: ValueError: resources.bad: "
        "Test Resource failed bad"
    )
    assert rows(cloud, ident) == {"bad": "CREATE_FAILED"}


def test_cancel_update_without_rollback(cloud: Cloud) -> None:
    api = cloud.endpoint(0)
    ident = api.create_stack(cloud.ctxt, "slow", TEMPLATE, {}, {}, {})
    wait_state(cloud, ident, "CREATE_COMPLETE")
    slow = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "test": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": "two", "wait_secs": 30},
            },
        },
    }
    api.update_stack(cloud.ctxt, ident, slow, {}, {}, {})
    wait_for(
        lambda: rows(cloud, ident).get("test") == "UPDATE_IN_PROGRESS",
        what="update in progress",
    )
    api.stack_cancel_update(cloud.ctxt, ident, cancel_with_rollback=False)
    rec = stack_repo.get(cloud.db, ident["stack_id"])
    assert rec is not None
    assert (rec.action, rec.status, rec.status_reason) == (
        "UPDATE",
        "FAILED",
        "Stack UPDATE cancelled",
    )
    with pytest.raises(exception.NotSupported, match="UPDATE_FAILED"):
        api.stack_cancel_update(cloud.ctxt, ident)
    api.delete_stack(cloud.ctxt, ident)  # cancels the running update
    wait_state(cloud, ident, "DELETE_COMPLETE")


def test_invalid_name_and_duplicate(cloud: Cloud) -> None:
    api = cloud.endpoint(0)
    with pytest.raises(exception.StackValidationFailed, match="Invalid stack"):
        api.create_stack(cloud.ctxt, "1bad", TEMPLATE, {}, {}, {})
    api.create_stack(cloud.ctxt, "dup", TEMPLATE, {}, {}, {})
    with pytest.raises(exception.StackExists):
        api.create_stack(cloud.ctxt, "dup", TEMPLATE, {}, {}, {})


def group(count: int) -> dict[str, object]:
    return {
        "heat_template_version": "2021-04-16",
        "resources": {
            "group": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": count,
                    "resource_def": {
                        "type": "OS::Heat::TestResource",
                        "properties": {"value": "member"},
                    },
                },
            },
        },
        "outputs": {"refs": {"value": {"get_attr": ["group", "refs"]}}},
    }


def test_nested_stack_of_a_resource_group(cloud: Cloud) -> None:
    api = cloud.endpoint(0)
    ident = api.create_stack(cloud.ctxt, "parent", group(3), {}, {}, {})
    wait_state(cloud, ident, "CREATE_COMPLETE")
    (parent_row,) = resource_repo.get_all_by_stack(cloud.db, ident["stack_id"])
    child_id = parent_row.nova_instance
    assert child_id
    child = stack_repo.get(cloud.db, child_id)
    assert child is not None
    assert (child.owner_id, child.nested_depth) == (ident["stack_id"], 1)
    assert child.parent_resource_name == "group"
    assert child.name.startswith("parent-group-")
    assert f"{child.action}_{child.status}" == "CREATE_COMPLETE"
    assert sorted(
        r.name for r in resource_repo.get_all_by_stack(cloud.db, child_id)
    ) == ["0", "1", "2"]
    (shown,) = api.show_stack(cloud.ctxt, ident)
    refs = shown["outputs"][0]["output_value"]
    assert len(refs) == 3

    api.update_stack(cloud.ctxt, ident, group(2), {}, {}, {})
    wait_state(cloud, ident, "UPDATE_COMPLETE")
    assert sorted(
        r.name for r in resource_repo.get_all_by_stack(cloud.db, child_id)
    ) == ["0", "1"]

    api.delete_stack(cloud.ctxt, ident)
    wait_state(cloud, ident, "DELETE_COMPLETE")
    gone = stack_repo.get(cloud.db, child_id, show_deleted=True)
    assert gone is not None and gone.status == "COMPLETE"
    assert gone.action == "DELETE"


def test_export_and_abandon_keep_the_resources(cloud: Cloud) -> None:
    api = cloud.endpoint(0)
    ident = api.create_stack(cloud.ctxt, "kept", TEMPLATE, {}, {}, {})
    wait_state(cloud, ident, "CREATE_COMPLETE")
    with pytest.raises(exception.NotSupported, match="Stack Abandon"):
        api.abandon_stack(cloud.ctxt, ident)
    cloud.conf.set_override("enable_stack_abandon", True)
    exported = api.export_stack(cloud.ctxt, ident)
    assert exported["name"] == "kept"
    assert exported["template"] == TEMPLATE
    assert exported["resources"]["test"]["resource_data"] == {"value": "one"}
    assert exported["resources"]["test"]["type"] == "OS::Heat::TestResource"
    assert state(cloud, ident) == "CREATE_COMPLETE"
    data = api.abandon_stack(cloud.ctxt, ident)
    assert set(data["resources"]) == {"none", "test", "after"}
    wait_state(cloud, ident, "DELETE_COMPLETE")
    events = event_repo.list_by_stack(
        cloud.db, ident["stack_id"], sort_dir="asc"
    )
    # the resources went DELETE_COMPLETE without their handle_delete
    deleted = {
        e.resource_name
        for e in events
        if (e.resource_action, e.resource_status) == ("DELETE", "COMPLETE")
    }
    assert {"none", "test", "after"} <= deleted


def test_validate_template_and_repeated_delete(cloud: Cloud) -> None:
    api = cloud.endpoint(0)
    template = {
        "heat_template_version": "2021-04-16",
        "description": "checked",
        "parameters": {"size": {"type": "number", "default": 1}},
        "resources": {"none": {"type": "OS::Heat::None"}},
    }
    result = api.validate_template(cloud.ctxt, template, {}, {})
    assert result["Description"] == "checked"
    assert set(result["Parameters"]) == {"size"}
    assert "Environment" in result
    bad = {
        "heat_template_version": "2021-04-16",
        "resources": {"x": {"type": "OS::Heat::None", "depends_on": ["y"]}},
    }
    # Heat raises a bad reference from POST /validate (400
    # InvalidTemplateReference; vector template/depends_on_unknown).
    with pytest.raises(exception.InvalidTemplateReference):
        api.validate_template(cloud.ctxt, bad, {}, {})

    ident = api.create_stack(cloud.ctxt, "gone", template, {}, {}, {})
    wait_state(cloud, ident, "CREATE_COMPLETE")
    api.delete_stack(cloud.ctxt, ident)
    wait_state(cloud, ident, "DELETE_COMPLETE")
    with pytest.raises(exception.EntityNotFound):
        api.delete_stack(cloud.ctxt, ident)


def test_adopt_takes_over_existing_resources(cloud: Cloud) -> None:
    api = cloud.endpoint(0)
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "kept": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": "v"},
            },
        },
    }
    adopt = {
        "resources": {
            "kept": {
                "resource_id": "phys-123",
                "resource_data": {"value": "v"},
                "metadata": {},
            }
        }
    }
    args = {"adopt_stack_data": json.dumps(adopt)}
    with pytest.raises(exception.NotSupported, match="Stack Adopt"):
        api.create_stack(cloud.ctxt, "adopted", template, {}, {}, args)
    cloud.conf.set_override("enable_stack_adopt", True)
    ident = api.create_stack(cloud.ctxt, "adopted", template, {}, {}, args)
    wait_state(cloud, ident, "ADOPT_COMPLETE")
    (row,) = resource_repo.get_all_by_stack(cloud.db, ident["stack_id"])
    assert (row.action, row.status, row.nova_instance) == (
        "ADOPT",
        "COMPLETE",
        "phys-123",
    )


def test_outputs_read_only_the_rows_they_refer_to(
    cloud: Cloud, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A show of a stack of 30 resources whose outputs name two reads
    those two rows; ``output_show`` of one output reads its own."""
    resources = {
        f"r{i}": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": f"v{i}"},
        }
        for i in range(30)
    }
    template = {
        "heat_template_version": "2021-04-16",
        "resources": resources,
        "outputs": {
            "attr": {"value": {"get_attr": ["r3", "output"]}},
            "ref": {
                "value": {
                    "str_replace": {
                        "template": "id=ID",
                        "params": {"ID": {"get_resource": "r7"}},
                    }
                }
            },
            "plain": {"value": "no resource"},
        },
    }
    api = cloud.endpoint(0)
    ident = api.create_stack(cloud.ctxt, "narrow", template, {}, {}, {})
    wait_state(cloud, ident, "CREATE_COMPLETE")
    physical = {
        rec.name: rec.nova_instance
        for rec in resource_repo.get_all_by_stack(cloud.db, ident["stack_id"])
    }
    read: list[list[str]] = []
    real = resource_repo.get_all_by_stack

    def spy(db: object, stack_id: str, filters: object = None) -> object:
        found = real(db, stack_id, filters)  # type: ignore[arg-type]
        read.append(sorted(str(rec.name) for rec in found))
        return found

    monkeypatch.setattr(resource_repo, "get_all_by_stack", spy)
    (shown,) = api.show_stack(cloud.ctxt, ident)
    outputs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
    assert outputs == {
        "attr": "v3",
        "ref": f"id={physical['r7']}",
        "plain": "no resource",
    }
    assert read == [["r3", "r7"]]

    read.clear()
    shown_one = api.show_output(cloud.ctxt, ident, "attr")
    assert shown_one["output_value"] == "v3"
    assert read == [["r3"]]

    read.clear()
    shown_plain = api.show_output(cloud.ctxt, ident, "plain")
    assert shown_plain["output_value"] == "no resource"
    assert read == []


def test_an_output_naming_an_unknown_resource_keeps_its_error(
    cloud: Cloud,
) -> None:
    """When an output's resources cannot be worked out, the show reads
    every row: the other outputs resolve and the bad one reports its
    error, as before."""
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {
            f"r{i}": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": f"v{i}"},
            }
            for i in range(3)
        },
        "outputs": {
            "good": {"value": {"get_attr": ["r1", "output"]}},
            "bad": {"value": {"get_resource": "nope"}},
        },
    }
    api = cloud.endpoint(0)
    ident = api.create_stack(cloud.ctxt, "unknown", template, {}, {}, {})
    wait_state(cloud, ident, "CREATE_COMPLETE")
    (shown,) = api.show_stack(cloud.ctxt, ident)
    by_key = {o["output_key"]: o for o in shown["outputs"]}
    assert by_key["good"]["output_value"] == "v1"
    assert by_key["bad"]["output_value"] is None
    assert by_key["bad"]["output_error"] == (
        'The specified reference "nope" (in unknown) is incorrect.'
    )
    assert api.show_output(cloud.ctxt, ident, "good")["output_value"] == "v1"
