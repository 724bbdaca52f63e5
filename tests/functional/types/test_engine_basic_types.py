"""The small Heat-internal types through the engine: ``RandomString``,
``TestResource``, ``Value``, ``None`` and nested stacks (``OS::Heat::Stack``
and a template resource from ``files``), created, updated and deleted
through the native API and read back as a user sees them.

Heat's behaviour: ``heat/engine/resources/openstack/heat/
random_string.py``, ``test_resource.py``, ``value.py``,
``none_resource.py``, ``stack.py`` and ``heat/engine/resources/
template_resource.py``.
"""

from __future__ import annotations

import string
import time
from typing import Any

import pytest
import yaml

from tests.functional.types.engine_api import Stacks, fake_keystone, template
from tests.functional.types.harness import Cloud


@pytest.fixture
def stacks(cloud: Cloud) -> Stacks:
    return Stacks(cloud)


def _physical(stacks: Stacks, ident: str, name: str) -> str:
    return str(stacks.resource(ident, name)["physical_resource_id"])


def _statuses(stacks: Stacks, ident: str, name: str) -> list[str]:
    return [e["resource_status"] for e in stacks.events(ident, name)]


# -- OS::Heat::RandomString ----------------------------------------------


def _random(**props: Any) -> dict[str, Any]:
    return template(
        {
            "rs": {"type": "OS::Heat::RandomString", "properties": props},
            "other": {"type": "OS::Heat::Value", "properties": {"value": 1}},
        },
        {
            "value": {"get_attr": ["rs", "value"]},
            "ref": {"get_resource": "rs"},
        },
    )


def test_random_string_default(stacks: Stacks) -> None:
    ident = stacks.create_complete(_random())
    value = stacks.output(ident, "value")
    assert len(value) == 32
    assert set(value) <= set(string.ascii_letters + string.digits)
    # the reference is the string itself
    assert stacks.output(ident, "ref") == value


def test_random_string_classes_and_sequences(stacks: Stacks) -> None:
    props = {
        "length": 24,
        "character_classes": [
            {"class": "digits", "min": 5},
            {"class": "uppercase", "min": 2},
        ],
        "character_sequences": [{"sequence": "!@#", "min": 3}],
    }
    ident = stacks.create_complete(_random(**props))
    value = stacks.output(ident, "value")
    assert len(value) == 24
    assert sum(c in string.digits for c in value) >= 5
    assert sum(c in string.ascii_uppercase for c in value) >= 2
    assert sum(c in "!@#" for c in value) >= 3
    # nothing outside the classes and sequences given
    assert set(value) <= set(string.digits + string.ascii_uppercase + "!@#")


def test_random_string_salt_replaces_other_update_keeps(
    stacks: Stacks,
) -> None:
    ident = stacks.create_complete(_random(length=16, salt="one"))
    value = stacks.output(ident, "value")
    physical = _physical(stacks, ident, "rs")

    # an update that leaves rs alone keeps its string
    tmpl = _random(length=16, salt="one")
    tmpl["resources"]["other"]["properties"]["value"] = 2
    stacks.update_complete(ident, tmpl)
    assert stacks.output(ident, "value") == value
    assert _physical(stacks, ident, "rs") == physical
    assert stacks.resource_state(ident, "rs") == "CREATE_COMPLETE"

    # salt is not update_allowed: a new salt replaces it, new string
    tmpl = _random(length=16, salt="two")
    stacks.update_complete(ident, tmpl)
    new_value = stacks.output(ident, "value")
    assert len(new_value) == 16
    assert new_value != value
    assert _physical(stacks, ident, "rs") != physical
    assert stacks.resource_state(ident, "rs") == "CREATE_COMPLETE"
    stacks.delete_complete(ident)


def test_random_string_minimums_longer_than_length(stacks: Stacks) -> None:
    props = {
        "length": 4,
        "character_classes": [{"class": "digits", "min": 3}],
        "character_sequences": [{"sequence": "xy", "min": 2}],
    }
    status, body = stacks.cloud.request(
        "POST",
        "/stacks",
        {"stack_name": "short-random", "template": _random(**props)},
    )
    assert status == 400, body
    assert body["error"]["type"] == "StackValidationFailed"
    assert body["error"]["message"] == (
        "Length property cannot be smaller than combined character class "
        "and character sequence minimums"
    )


# -- OS::Heat::TestResource ----------------------------------------------


def _test_resource(**props: Any) -> dict[str, Any]:
    return template(
        {"tr": {"type": "OS::Heat::TestResource", "properties": props}},
        {"output": {"get_attr": ["tr", "output"]}},
    )


def test_test_resource_waits(stacks: Stacks) -> None:
    started = time.monotonic()
    ident = stacks.create(
        _test_resource(value="slow", action_wait_secs={"create": 2}),
        prefix="types",
    )
    stacks.wait_resource(ident, "tr", "CREATE_IN_PROGRESS")
    assert stacks.status(ident) == "CREATE_IN_PROGRESS"
    stacks.wait_status(ident, "CREATE_COMPLETE")
    assert time.monotonic() - started >= 2
    assert stacks.output(ident, "output") == "slow"
    assert _statuses(stacks, ident, "tr") == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
    ]
    stacks.delete_complete(ident)


def test_test_resource_fails_create(stacks: Stacks) -> None:
    ident = stacks.create(_test_resource(fail=True), prefix="types")
    shown = stacks.wait_status(ident, "CREATE_FAILED")
    assert shown["stack_status_reason"] == (
        "Resource CREATE failed: ValueError: resources.tr: "
        "Test Resource failed tr"
    )
    res = stacks.resource(ident, "tr")
    assert res["resource_status"] == "CREATE_FAILED"
    assert res["resource_status_reason"] == (
        "ValueError: resources.tr: Test Resource failed tr"
    )
    stacks.delete_complete(ident)


def test_test_resource_update_in_place_replace_and_fail(
    stacks: Stacks,
) -> None:
    ident = stacks.create_complete(_test_resource(value="a"))
    physical = _physical(stacks, ident, "tr")

    stacks.update_complete(ident, _test_resource(value="b"))
    assert _physical(stacks, ident, "tr") == physical
    assert stacks.resource_state(ident, "tr") == "UPDATE_COMPLETE"
    assert stacks.output(ident, "output") == "b"

    # update_replace: true asks for a replacement
    stacks.update_complete(
        ident, _test_resource(value="c", update_replace=True)
    )
    replaced = _physical(stacks, ident, "tr")
    assert replaced != physical
    assert stacks.resource_state(ident, "tr") == "CREATE_COMPLETE"
    assert stacks.output(ident, "output") == "c"
    # the replacement was created, then the old one deleted
    tail = _statuses(stacks, ident, "tr")[-4:]
    assert tail == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
        "DELETE_IN_PROGRESS",
        "DELETE_COMPLETE",
    ]

    # any change of update_replace_value replaces too
    stacks.update_complete(
        ident,
        _test_resource(
            value="c", update_replace=True, update_replace_value="1"
        ),
    )
    assert _physical(stacks, ident, "tr") not in (physical, replaced)

    # fail: true fails the update
    stacks.update(
        ident,
        _test_resource(
            value="d", update_replace=True, update_replace_value="1", fail=True
        ),
    )
    shown = stacks.wait_status(ident, "UPDATE_FAILED")
    assert shown["stack_status_reason"] == (
        "Resource UPDATE failed: ValueError: resources.tr: "
        "Test Resource failed tr"
    )
    assert stacks.resource_state(ident, "tr") == "UPDATE_FAILED"
    stacks.delete_complete(ident)


# -- OS::Heat::Value and OS::Heat::None -----------------------------------


def test_value_typed_and_updated_in_place(stacks: Stacks) -> None:
    def tmpl(value: Any) -> dict[str, Any]:
        return template(
            {
                "v": {
                    "type": "OS::Heat::Value",
                    "properties": {"value": value, "type": "json"},
                },
                "user": {
                    "type": "OS::Heat::TestResource",
                    "properties": {
                        "value": {"get_attr": ["v", "value", "name"]}
                    },
                },
            },
            {
                "value": {"get_attr": ["v", "value"]},
                "used": {"get_attr": ["user", "output"]},
            },
        )

    ident = stacks.create_complete(tmpl({"name": "x", "n": [1, 2]}))
    assert stacks.output(ident, "value") == {"name": "x", "n": [1, 2]}
    assert stacks.output(ident, "used") == "x"
    physical = _physical(stacks, ident, "v")

    stacks.update_complete(ident, tmpl({"name": "y", "n": []}))
    # never replaced: the attribute changes, the resource stays
    assert _physical(stacks, ident, "v") == physical
    assert stacks.resource_state(ident, "v") == "UPDATE_COMPLETE"
    assert stacks.output(ident, "value") == {"name": "y", "n": []}
    assert stacks.output(ident, "used") == "y"
    stacks.delete_complete(ident)


def test_value_of_the_wrong_type_is_refused(stacks: Stacks) -> None:
    tmpl = template(
        {
            "v": {
                "type": "OS::Heat::Value",
                "properties": {"value": "abc", "type": "number"},
            }
        }
    )
    status, body = stacks.cloud.request(
        "POST", "/stacks", {"stack_name": "bad-value", "template": tmpl}
    )
    assert status == 400, body
    assert body["error"]["message"] == (
        "Property error: : resources.v.properties.value: : "
        "could not convert string to float: 'abc'"
    )


def test_none_takes_anything_and_never_updates(stacks: Stacks) -> None:
    def tmpl(flavor: str) -> dict[str, Any]:
        return template(
            {
                "placeholder": {
                    "type": "OS::Heat::None",
                    "properties": {"anything": {"goes": flavor}},
                },
                "server": {
                    "type": "OS::Nova::Server",
                    "properties": {"image": "cirros", "flavor": flavor},
                },
            },
            {
                "attr": {"get_attr": ["placeholder", "whatever"]},
                "server_ref": {"get_resource": "server"},
            },
        )

    # the environment stubs a type out with OS::Heat::None
    env = {"resource_registry": {"OS::Nova::Server": "OS::Heat::None"}}
    ident = stacks.create_complete(tmpl("m1.small"), env=env)
    resources = stacks.by_name(ident)
    assert resources["server"]["resource_type"] == "OS::Nova::Server"
    assert resources["server"]["resource_status"] == "CREATE_COMPLETE"
    assert stacks.output(ident, "attr") is None
    assert (
        stacks.output(ident, "server_ref")
        == (resources["server"]["physical_resource_id"])
    )

    stacks.update_complete(ident, tmpl("m1.large"), env=env)
    after = stacks.by_name(ident)
    for name in ("placeholder", "server"):
        assert after[name]["resource_status"] == "CREATE_COMPLETE"
        assert (
            after[name]["physical_resource_id"]
            == (resources[name]["physical_resource_id"])
        )
        assert "UPDATE_IN_PROGRESS" not in _statuses(stacks, ident, name)
    stacks.delete_complete(ident)


# -- what an update changes besides properties (tmpl_diff) ---------------


def test_metadata_only_change_updates_in_place(stacks: Stacks) -> None:
    """A changed metadata (no property changed) runs the plugin's update:
    UPDATE_COMPLETE, same physical resource, as in Heat."""

    def tmpl(level: int) -> dict[str, Any]:
        return template(
            {
                "tr": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": "v"},
                    "metadata": {"level": level},
                },
                "same": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": "s"},
                    "metadata": {"level": 0},
                },
            }
        )

    ident = stacks.create_complete(tmpl(1))
    physical = _physical(stacks, ident, "tr")
    stacks.update_complete(ident, tmpl(2))
    after = stacks.by_name(ident)
    assert after["tr"]["resource_status"] == "UPDATE_COMPLETE"
    assert after["tr"]["physical_resource_id"] == physical
    # an unchanged definition is left as it is
    assert after["same"]["resource_status"] == "CREATE_COMPLETE"
    stacks.delete_complete(ident)


def test_update_wait_condition_handle_replaced_at_every_update(
    cloud: Cloud, stacks: Stacks
) -> None:
    """Its definition is the same, yet every stack update gives a new
    handle (Heat's UpdateWaitConditionHandle always asks for a
    replacement), and OS::Heat::None's metadata changes update nothing."""

    def tmpl(note: str) -> dict[str, Any]:
        return template(
            {
                "handle": {"type": "AWS::CloudFormation::WaitConditionHandle"},
                "fresh": {"type": "OS::Heat::UpdateWaitConditionHandle"},
                "stub": {"type": "OS::Heat::None", "metadata": {"n": note}},
            },
            {"fresh": {"get_resource": "fresh"}},
        )

    with fake_keystone(cloud):  # the handles' stack users
        ident = stacks.create_complete(tmpl("a"))
        before = stacks.by_name(ident)
        url = stacks.output(ident, "fresh")
        stacks.update_complete(ident, tmpl("b"))
        after = stacks.by_name(ident)
        assert after["fresh"]["resource_status"] == "CREATE_COMPLETE"
        assert stacks.output(ident, "fresh") != url
        for name in ("handle", "stub"):
            assert after[name]["resource_status"] == "CREATE_COMPLETE"
            assert (
                after[name]["physical_resource_id"]
                == before[name]["physical_resource_id"]
            )
        stacks.delete_complete(ident)


# -- nested stacks --------------------------------------------------------

CHILD = {
    "heat_template_version": "2021-04-16",
    "parameters": {"name": {"type": "string"}},
    "resources": {
        "inner": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "name"}},
        }
    },
    "outputs": {
        "greeting": {
            "value": {
                "str_replace": {
                    "template": "hi N",
                    "params": {"N": {"get_attr": ["inner", "output"]}},
                }
            }
        }
    },
}


def _child_resources(stacks: Stacks, ident: str, parent: str) -> list[Any]:
    return [
        r
        for r in stacks.resources(ident, nested_depth=2)
        if r.get("parent_resource") == parent
    ]


def test_os_heat_stack_outputs(stacks: Stacks) -> None:
    def tmpl(name: str) -> dict[str, Any]:
        return template(
            {
                "ns": {
                    "type": "OS::Heat::Stack",
                    "properties": {
                        # a string: the parent must not parse the
                        # child's functions
                        "template": yaml.safe_dump(CHILD),
                        "parameters": {"name": name},
                    },
                }
            },
            {
                "outputs": {"get_attr": ["ns", "outputs"]},
                "greeting": {"get_attr": ["ns", "outputs", "greeting"]},
            },
        )

    ident = stacks.create_complete(tmpl("ann"))
    assert stacks.output(ident, "outputs") == {"greeting": "hi ann"}
    assert stacks.output(ident, "greeting") == "hi ann"
    # OS::Heat::Stack makes its stack through the orchestration API, as
    # any user would: a stack of its own, not a nested one
    child = stacks.nested(ident, "ns")
    assert stacks.show(child)["parent"] is None
    assert _child_resources(stacks, ident, "ns") == []
    inner = stacks.by_name(child)["inner"]
    physical = inner["physical_resource_id"]

    stacks.update_complete(ident, tmpl("bob"))
    assert stacks.output(ident, "greeting") == "hi bob"
    inner = stacks.by_name(child)["inner"]
    assert inner["physical_resource_id"] == physical
    assert inner["resource_status"] == "UPDATE_COMPLETE"
    assert stacks.resource_state(ident, "ns") == "UPDATE_COMPLETE"

    stacks.delete_complete(ident)
    # the child is deleted with its parent (shown by id as Heat shows
    # a deleted stack)
    status, body = stacks.cloud.request("GET", f"/stacks/{child}")
    assert status == 404 or body["stack"]["stack_status"] == (
        "DELETE_COMPLETE"
    ), body


FILES = {"child.yaml": yaml.safe_dump(CHILD)}


def test_template_resource_from_files(stacks: Stacks) -> None:
    files = FILES

    def tmpl(name: str) -> dict[str, Any]:
        return template(
            {"tr": {"type": "child.yaml", "properties": {"name": name}}},
            {
                "greeting": {"get_attr": ["tr", "greeting"]},
            },
        )

    ident = stacks.create_complete(tmpl("cat"), files=files)
    assert stacks.resource(ident, "tr")["resource_type"] == "child.yaml"
    assert stacks.output(ident, "greeting") == "hi cat"
    inner = _child_resources(stacks, ident, "tr")
    assert [r["resource_name"] for r in inner] == ["inner"]
    physical = inner[0]["physical_resource_id"]

    stacks.update_complete(ident, tmpl("dog"), files=files)
    assert stacks.output(ident, "greeting") == "hi dog"
    inner = _child_resources(stacks, ident, "tr")
    assert inner[0]["physical_resource_id"] == physical
    assert inner[0]["resource_status"] == "UPDATE_COMPLETE"
    stacks.delete_complete(ident)


def test_template_resource_member_attribute(stacks: Stacks) -> None:
    """``resource.<name>[.<attr>]`` of a template resource reads the
    child stack's resource, as Heat's get_nested_attrs does."""
    tmpl = template(
        {"tr": {"type": "child.yaml", "properties": {"name": "eve"}}},
        {
            "inner": {"get_attr": ["tr", "resource.inner", "output"]},
            "ref": {"get_attr": ["tr", "resource.inner"]},
            "missing": {"get_attr": ["tr", "resource.nope", "output"]},
        },
    )
    ident = stacks.create_complete(tmpl, files=FILES)
    assert stacks.output(ident, "inner") == "eve"
    (child,) = _child_resources(stacks, ident, "tr")
    assert stacks.output(ident, "ref") == child["physical_resource_id"]
    status, body = stacks.cloud.request(
        "GET", f"/stacks/{ident}/outputs/missing"
    )
    assert status == 200, body
    assert body["output"]["output_error"] == (
        "Member 'nope' not found in group resource 'tr'."
    )


def test_events_of_nested_stacks_with_nested_depth(stacks: Stacks) -> None:
    ident = stacks.create_complete(
        template({"tr": {"type": "child.yaml", "properties": {"name": "e"}}}),
        files=FILES,
    )

    def listed(query: str) -> list[dict[str, Any]]:
        status, body = stacks.cloud.request(
            "GET", f"/stacks/{ident}/events?sort_dir=asc{query}"
        )
        assert status == 200, body
        return list(body["events"])

    own = listed("")
    assert {e["resource_name"] for e in own} == {"tr", ident.split("/")[0]}
    assert not any(
        link["rel"] == "root_stack" for e in own for link in e["links"]
    )
    deep = listed("&nested_depth=1")
    inner = [e for e in deep if e["resource_name"] == "inner"]
    assert [e["resource_status"] for e in inner] == [
        "CREATE_IN_PROGRESS",
        "CREATE_COMPLETE",
    ]
    # each event links its own stack and, listed with nested_depth, the
    # stack that was asked for
    stack_link = next(
        link["href"] for link in inner[0]["links"] if link["rel"] == "stack"
    )
    assert stacks.nested(ident, "tr").split("/")[-1] in stack_link
    roots = {
        link["href"]
        for e in deep
        for link in e["links"]
        if link["rel"] == "root_stack"
    }
    assert len(roots) == 1 and ident.split("/")[-1] in roots.pop()
    assert len(deep) == len(own) + len(inner) + 2  # + the child's own
    stacks.delete_complete(ident)
