"""Whether a change of a resource's type replaces it (Heat's
``test_create_update`` alias and provider cases): the class the type
resolves to decides, not the type's name."""

from __future__ import annotations

import copy
import json

from tests.functional.features import nested_helpers as h
from tests.functional.software.harness import Cloud

PARENT = {
    "heat_template_version": "2013-05-23",
    "resources": {"test1": {"type": "My::TestResource"}},
}
PROVIDER = {
    "heat_template_version": "pike",
    "resources": {
        "test1": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "test_provider_template"},
        }
    },
}


def _retyped(kind: str) -> dict:
    template = copy.deepcopy(PARENT)
    template["resources"]["test1"]["type"] = kind
    return template


def test_alias_to_the_same_class_updates_in_place(cloud: Cloud):
    env = {
        "resource_registry": {
            "My::TestResource": "OS::Heat::RandomString",
            "My::TestResource2": "OS::Heat::RandomString",
        }
    }
    ident = h.create(cloud, PARENT, env)
    before = h.resource(cloud, ident, "test1")
    assert before["resource_type"] == "My::TestResource"

    h.update(
        cloud,
        ident,
        {"template": _retyped("My::TestResource2"), "environment": env},
    )

    after = h.resource(cloud, ident, "test1")
    assert after["resource_type"] == "My::TestResource2"
    assert after["physical_resource_id"] == before["physical_resource_id"]
    assert after["attributes"]["value"] == before["attributes"]["value"]


def test_alias_mapped_to_another_class_replaces(cloud: Cloud):
    env = {"resource_registry": {"My::TestResource": "OS::Heat::RandomString"}}
    ident = h.create(cloud, PARENT, env)
    before = h.resource(cloud, ident, "test1")

    remapped = {
        "resource_registry": {"My::TestResource": "OS::Heat::TestResource"}
    }
    h.update(cloud, ident, {"template": PARENT, "environment": remapped})

    after = h.resource(cloud, ident, "test1")
    assert after["physical_resource_id"] != before["physical_resource_id"]
    assert after["resource_type"] == "My::TestResource"
    assert h.resources(cloud, ident) == {"test1": "My::TestResource"}


def test_provider_type_change_updates_the_nested_stack(cloud: Cloud):
    files = {"provider.template": json.dumps(PROVIDER)}
    env = {
        "resource_registry": {
            "My::TestResource": "provider.template",
            "My::TestResource2": "provider.template",
        }
    }
    ident = h.create(cloud, PARENT, env, files)
    child = h.nested(cloud, ident, "test1")
    inner = h.resource(cloud, child, "test1")["physical_resource_id"]

    h.update(
        cloud,
        ident,
        {
            "template": _retyped("My::TestResource2"),
            "environment": env,
            "files": files,
        },
    )

    assert h.resources(cloud, ident) == {"test1": "My::TestResource2"}
    outer = h.resource(cloud, ident, "test1")
    assert outer["physical_resource_id"] == child.split("/")[1]
    assert h.resources(cloud, child) == {"test1": "OS::Heat::TestResource"}
    assert h.resource(cloud, child, "test1")["physical_resource_id"] == inner
