"""Updates of a template resource whose provider template changes with
it (Heat's ``TemplateResourceUpdateTest`` scenarios): the nested stack
is always updated in place (same reference), and its resources change
only where their own definitions do."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.functional.features import nested_helpers as h
from tests.functional.software.harness import Cloud


def _main(**props: str) -> dict[str, Any]:
    return {
        "HeatTemplateFormatVersion": "2012-12-12",
        "Resources": {"the_nested": {"Type": "the.yaml", "Properties": props}},
        "Outputs": {
            "identifier": {"Value": {"Ref": "the_nested"}},
            "value": {"Value": {"Fn::GetAtt": ["the_nested", "the_str"]}},
        },
    }


def _provider(
    params: dict[str, str], salt: Any, extra_output: bool = False
) -> str:
    outputs: dict[str, Any] = {
        "the_str": {"Value": {"Fn::GetAtt": ["NestedResource", "value"]}}
    }
    if extra_output:
        outputs["something_else"] = {"Value": "just_a_string"}
    return json.dumps(
        {
            "HeatTemplateFormatVersion": "2012-12-12",
            "Parameters": {
                name: {"Default": default, "Type": "String"}
                for name, default in params.items()
            },
            "Resources": {
                "NestedResource": {
                    "Type": "OS::Heat::RandomString",
                    "Properties": {"salt": salt},
                }
            },
            "Outputs": outputs,
        }
    )


MAIN = _main(one="my_name", two="your_name")
INITIAL = _provider({"one": "foo", "two": "bar"}, {"Ref": "one"})
SCENARIOS = {
    "no_changes": (MAIN, INITIAL, False),
    "main_tmpl_change": (
        _main(one="updated_name", two="your_name"),
        INITIAL,
        True,
    ),
    "provider_change": (
        MAIN,
        _provider({"one": "foo", "two": "bar"}, "yum"),
        True,
    ),
    "provider_props_change": (
        MAIN,
        _provider({"one": "yikes", "two": "foo"}, {"Ref": "two"}),
        True,
    ),
    "provider_props_add": (
        _main(one="my_name", two="your_name", three="third_name"),
        _provider(
            {"one": "yikes", "two": "foo", "three": "bar"}, {"Ref": "three"}
        ),
        True,
    ),
    "provider_props_remove": (
        _main(one="my_name"),
        _provider({"one": "yikes"}, {"Ref": "one"}),
        False,
    ),
    "provider_attr_change": (
        MAIN,
        _provider({"one": "foo", "two": "bar"}, {"Ref": "one"}, True),
        False,
    ),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_provider_template_update(cloud: Cloud, scenario: str):
    template, provider, changes = SCENARIOS[scenario]
    ident = h.create(cloud, MAIN, files={"the.yaml": INITIAL})
    before = h.outputs(cloud, ident)
    child = h.nested(cloud, ident, "the_nested")

    h.update(
        cloud, ident, {"template": template, "files": {"the.yaml": provider}}
    )

    after = h.outputs(cloud, ident)
    assert after["identifier"] == before["identifier"]
    assert h.nested(cloud, ident, "the_nested") == child
    assert h.show(cloud, child)["stack_status"] == "UPDATE_COMPLETE"
    if changes:
        assert after["value"] != before["value"]
    else:
        assert after["value"] == before["value"]
