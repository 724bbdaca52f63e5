"""Update previews through the native API and the engine (Heat's
functional ``test_preview_update``): ``PUT /stacks/<id>/preview`` says per
resource whether the update would leave it, update it in place, replace
it, add or delete it, the plugin deciding as it does at update time; with
``show_nested=True`` child stacks are previewed too, their entries naming
their ``parent_resource``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.functional.features.client import Stacks
from tests.functional.software.harness import Cloud

TEST1 = {
    "type": "OS::Heat::TestResource",
    "properties": {
        "value": "Test1",
        "fail": False,
        "update_replace": False,
        "wait_secs": 0,
    },
}
ONE = {
    "heat_template_version": "2013-05-23",
    "resources": {"test1": TEST1},
}
TWO = {
    "heat_template_version": "2013-05-23",
    "resources": {"test1": TEST1, "test2": copy.deepcopy(TEST1)},
}
PARENT = """
heat_template_version: 2016-04-08
resources:
  nested1:
    type: nested1.yaml
"""
NESTED1 = """
heat_template_version: 2016-04-08
resources:
  nested2:
    type: nested2.yaml
"""
NESTED2 = """
heat_template_version: 2016-04-08
resources:
  random:
    type: OS::Heat::RandomString
"""
NESTED2_2 = (
    NESTED2
    + """  random2:
    type: OS::Heat::RandomString
"""
)


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _create(stacks: Stacks, template: Any, **files: str) -> str:
    ident = stacks.create(template, files=files)
    stacks.wait_status(ident, "CREATE_COMPLETE")
    return ident


def _preview(
    cloud: Cloud,
    ident: str,
    template: Any,
    files: dict[str, str] | None = None,
    show_nested: bool = False,
) -> dict[str, list[Any]]:
    query = "?show_nested=True" if show_nested else ""
    status, body = cloud.request(
        "PUT",
        f"/stacks/{ident}/preview{query}",
        {"template": template, "files": files or {}},
    )
    assert status == 200, body
    changes: dict[str, list[Any]] = body["resource_changes"]
    return changes


def _names(changes: dict[str, list[Any]]) -> dict[str, list[str]]:
    return {
        key: sorted(r["resource_name"] for r in value)
        for key, value in changes.items()
    }


def _parents(changes: dict[str, list[Any]], key: str) -> dict[str, Any]:
    return {r["resource_name"]: r.get("parent_resource") for r in changes[key]}


def _with_test1(**props: Any) -> dict[str, Any]:
    template = copy.deepcopy(ONE)
    template["resources"]["test1"]["properties"] = props
    return template


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        pytest.param(ONE, TWO, {"unchanged": ["test1"], "added": ["test2"]}),
        pytest.param(ONE, ONE, {"unchanged": ["test1"]}, id="no-change"),
        pytest.param(
            ONE,
            _with_test1(value="Test1 foo", update_replace=False),
            {"updated": ["test1"]},
            id="update",
        ),
        pytest.param(
            ONE,
            _with_test1(update_replace=True),
            {"replaced": ["test1"]},
            id="replace-property",
        ),
        pytest.param(
            ONE,
            {
                "heat_template_version": "2013-05-23",
                "resources": {"test1": {"type": "OS::Heat::None"}},
            },
            {"replaced": ["test1"]},
            id="replace-type",
        ),
        pytest.param(
            TWO, ONE, {"unchanged": ["test1"], "deleted": ["test2"]}, id="del"
        ),
    ],
)
def test_preview_update(
    cloud: Cloud,
    stacks: Stacks,
    before: Any,
    after: Any,
    expected: dict[str, list[str]],
) -> None:
    ident = _create(stacks, before)
    changes = _preview(cloud, ident, after)
    empty = {
        key: []
        for key in ("unchanged", "updated", "replaced", "added", "deleted")
    }
    assert _names(changes) == {**empty, **expected}
    for entries in changes.values():
        assert all("parent_resource" not in r for r in entries)
    # a preview changes nothing
    assert stacks.status(ident) == "CREATE_COMPLETE"
    assert stacks.resource_state(ident, "test1") == "CREATE_COMPLETE"


def test_nested_no_change_updates_the_child_owners(
    cloud: Cloud, stacks: Stacks
) -> None:
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2}
    ident = _create(stacks, PARENT, **files)
    changes = _preview(cloud, ident, PARENT, files, show_nested=True)
    assert _names(changes) == {
        "unchanged": ["random"],
        "updated": ["nested1", "nested2"],
        "replaced": [],
        "added": [],
        "deleted": [],
    }
    assert _parents(changes, "unchanged") == {"random": "nested2"}
    assert _parents(changes, "updated") == {
        "nested1": None,
        "nested2": "nested1",
    }
    # without show_nested only the parent's own resources
    assert _names(_preview(cloud, ident, PARENT, files))["updated"] == [
        "nested1"
    ]


def test_nested_add_and_delete(cloud: Cloud, stacks: Stacks) -> None:
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2}
    ident = _create(stacks, PARENT, **files)
    changes = _preview(
        cloud,
        ident,
        PARENT,
        {**files, "nested2.yaml": NESTED2_2},
        show_nested=True,
    )
    assert _names(changes)["unchanged"] == ["random"]
    assert _parents(changes, "added") == {"random2": "nested2"}
    assert changes["replaced"] == [] and changes["deleted"] == []

    files["nested2.yaml"] = NESTED2_2
    ident = _create(stacks, PARENT, **files)
    changes = _preview(
        cloud,
        ident,
        PARENT,
        {**files, "nested2.yaml": NESTED2},
        show_nested=True,
    )
    assert _parents(changes, "unchanged") == {"random": "nested2"}
    assert _parents(changes, "deleted") == {"random2": "nested2"}
    assert changes["replaced"] == [] and changes["added"] == []


def test_nested_replace_deletes_the_whole_child(
    cloud: Cloud, stacks: Stacks
) -> None:
    files = {"nested1.yaml": NESTED1, "nested2.yaml": NESTED2}
    ident = _create(stacks, PARENT, **files)
    parent_none = PARENT.replace("nested1.yaml", "OS::Heat::None")
    changes = _preview(cloud, ident, parent_none, show_nested=True)
    assert _names(changes) == {
        "unchanged": [],
        "updated": [],
        "replaced": ["nested1"],
        "added": [],
        "deleted": ["nested2", "random"],
    }
    assert _parents(changes, "deleted") == {
        "nested2": "nested1",
        "random": "nested2",
    }

    # and the other way round: a new child owner adds its whole child
    plain = _create(stacks, parent_none)
    changes = _preview(cloud, plain, PARENT, files, show_nested=True)
    assert _names(changes)["replaced"] == ["nested1"]
    assert _parents(changes, "added") == {
        "nested2": "nested1",
        "random": "nested2",
    }
