"""Resource and output definitions, dependencies, conditions."""

from __future__ import annotations

from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.template import format as template_format
from keel_heat_core.template import function, validation, versions
from keel_heat_core.template.stack_definition import StackDefinition


def stack(text: str, params: dict[str, Any] | None = None) -> StackDefinition:
    tmpl = versions.load(template_format.parse(text))
    return StackDefinition(tmpl, params or {})


DEPS = """
heat_template_version: 2021-04-16
conditions:
  yes_c: true
  no_c: false
resources:
  a: {type: OS::Heat::None}
  b: {type: OS::Heat::None, condition: no_c}
  c:
    type: OS::Heat::None
    depends_on: [a, b]
    properties:
      x: {get_attr: [a, show]}
      y: {if: [no_c, {get_resource: b}, {get_resource: a}]}
  d:
    type: OS::Heat::None
    metadata: {m: {get_resource: c}}
"""


def test_dependencies() -> None:
    defn = stack(DEPS)
    assert validation.dependency_map(defn) == {
        "a": set(),
        "c": {"a"},
        "d": {"c"},
    }
    assert "b" not in defn.resource_definitions()


def test_reference_to_disabled_resource() -> None:
    text = DEPS.replace("{get_resource: a}]}", "{get_resource: b}]}")
    text = text.replace(
        "[no_c, {get_resource: b}", "[yes_c, {get_resource: b}"
    )
    with pytest.raises(exception.InvalidTemplateReference) as err:
        validation.dependency_map(stack(text))
    assert str(err.value) == (
        'The specified reference "b" (in c.Properties.y.if) is incorrect.'
    )


def test_unknown_explicit_dependency() -> None:
    text = DEPS.replace("depends_on: [a, b]", "depends_on: [a, zz]")
    with pytest.raises(exception.InvalidTemplateReference) as err:
        validation.dependency_map(stack(text))
    assert (
        str(err.value) == 'The specified reference "zz" (in c) is incorrect.'
    )


def test_external_resource_has_no_explicit_dependencies() -> None:
    text = """
heat_template_version: 2021-04-16
resources:
  a: {type: OS::Heat::None}
  b: {type: OS::Heat::None, external_id: abc, depends_on: a}
"""
    defn = stack(text)
    with pytest.raises(exception.InvalidExternalResourceDependency) as err:
        validation.dependency_map(defn)
    assert str(err.value) == (
        "Invalid dependency with external OS::Heat::None resource: abc"
    )
    assert defn.resource_definitions()["b"].deletion_policy() == "Retain"


@pytest.mark.parametrize(
    ("version", "resource", "message"),
    [
        (
            "2013-05-23",
            "{type: OS::Heat::None, condition: true}",
            "Invalid keyword(s) inside a resource definition: condition",
        ),
        (
            "2015-10-15",
            "{type: OS::Heat::None, deletion_policy: delete}",
            'Invalid deletion policy "delete"',
        ),
        (
            "2021-04-16",
            "{type: {get_param: t}}",
            "Resource r type type must be string",
        ),
        (
            "2021-04-16",
            "{type: OS::Heat::None, depends_on: {if: [true, a]}}",
            "Resource r depends_on type must be list or string",
        ),
        (
            "2021-04-16",
            "{type: OS::Heat::None, properties: [1]}",
            "Resource r properties type must be object",
        ),
    ],
)
def test_definition_errors(version: str, resource: str, message: str) -> None:
    defn = stack(
        f"heat_template_version: {version}\nresources:\n  r: {resource}\n"
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        defn.resource_definitions()
    assert str(err.value) == message


def test_lower_case_deletion_policy_from_2016_10_14() -> None:
    defn = stack(
        "heat_template_version: 2016-10-14\n"
        "resources:\n  r: {type: OS::Heat::None, deletion_policy: retain}\n"
    )
    assert defn.resource_definitions()["r"].deletion_policy() == "Retain"


def test_required_attributes() -> None:
    old = stack(
        "heat_template_version: 2013-05-23\nresources:\n"
        "  a: {type: OS::Heat::None}\n"
        "  b: {type: OS::Heat::None, properties: {x: {get_attr: [a, v, k]}}}\n"
    )
    new = stack(
        "heat_template_version: 2021-04-16\nresources:\n"
        "  a: {type: OS::Heat::None}\n"
        "  b: {type: OS::Heat::None, properties: {x: {get_attr: [a, v, k]}, "
        "y: {get_attr: [a]}}}\n"
    )
    assert list(old.resource_definitions()["b"].dep_attrs("a")) == ["v"]
    assert set(new.resource_definitions()["b"].dep_attrs("a")) == {
        ("v", "k"),
        function.ALL_ATTRIBUTES,
    }


def test_outputs() -> None:
    defn = stack(
        "heat_template_version: 2021-04-16\n"
        "conditions: {off_c: false}\n"
        "outputs:\n"
        "  a: {value: 1, description: off}\n"
        "  b: {value: 2, condition: off_c}\n"
        "  c: {value: {str_split: [',', 'a', 5]}, extra: ignored}\n"
    )
    validation.validate_stack(defn)
    outputs = defn.outputs()
    assert outputs["a"].description() == "False"
    assert outputs["b"].description() == "No description given"
    values, errors = validation.resolve_outputs(defn)
    assert values == {"a": 1, "b": None}
    assert errors == {
        "c": 'Incorrect index to "str_split" should be between 0 and 0'
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "conditions:\n  on: true\n",
            "Conditions validation error: Condition names must be strings",
        ),
        (
            "outputs: [a]\n",
            "Output validation error: outputs: Outputs must be a map",
        ),
        (
            "resources: [a]\n",
            '"resources" must contain a map of resource maps. Found a list',
        ),
        (
            "conditions: {a: {not: b}, b: {not: a}}\n"
            "outputs: {o: {value: {if: [a, 1, 2]}}}\n",
            "Condition validation error: Circular definition for condition",
        ),
    ],
)
def test_heat_shaped_errors(text: str, message: str) -> None:
    defn = stack("heat_template_version: 2021-04-16\n" + text)
    with pytest.raises(exception.StackValidationFailed) as err:
        validation.validate_stack(defn)
    assert str(err.value).startswith(message)


def test_resource_limit() -> None:
    text = "heat_template_version: 2021-04-16\nresources:\n" + "".join(
        f"  r{i}: {{type: OS::Heat::None}}\n" for i in range(3)
    )
    defn = stack(text)
    validation.check_resource_limit(defn, 3)
    validation.check_resource_limit(defn, -1)
    with pytest.raises(exception.RequestLimitExceeded) as err:
        validation.check_resource_limit(defn, 2)
    assert str(err.value) == (
        "Request limit exceeded: Maximum resources per stack exceeded."
    )


def test_render_hot() -> None:
    text = """
heat_template_version: 2021-04-16
parameters:
  p: {type: string, default: x}
conditions:
  c: {equals: [{get_param: p}, x]}
resources:
  a: {type: OS::Heat::None}
  b:
    type: OS::Heat::None
    depends_on: a
    deletion_policy: retain
    condition: c
    properties:
      v: {list_join: [',', [{get_param: p}, {get_attr: [a, show]}]]}
      w: {if: [c, yes_branch, no_branch]}
      z: {if: [{not: c}, gone]}
"""
    defn = stack(text, {"p": "x"})
    rendered = defn.resource_definitions()["b"].render_hot()
    assert rendered == {
        "type": "OS::Heat::None",
        "properties": {
            "v": {
                "list_join": [
                    ",",
                    [{"get_param": "p"}, {"get_attr": ["a", "show"]}],
                ]
            },
            "w": "yes_branch",
        },
        "depends_on": ["a"],
        "deletion_policy": "Retain",
        "condition": "c",
    }
    again = stack(text, {"p": "x"}).resource_definitions()["b"]
    assert again == defn.resource_definitions()["b"]
    assert again != defn.resource_definitions()["a"]


@pytest.mark.parametrize(
    "text",
    [
        "heat_template_version: 2021-04-16\nresources:\n"
        "  a: {type: OS::Heat::None, properties: {x: {get_param: p}}}\n",
        "AWSTemplateFormatVersion: 2010-09-09\nResources:\n"
        "  a: {Type: OS::Heat::None, Properties: {x: {Ref: p}}}\n",
    ],
)
def test_add_and_remove_resource(text: str) -> None:
    source = stack(text, {"p": "v"})
    defn = source.resource_definitions()["a"]
    target = versions.load(template_format.parse(text.split("\n")[0]))
    target.add_resource(defn)
    copied = StackDefinition(target, {"p": "v"}).resource_definitions()["a"]
    assert copied == defn
    assert copied.properties_data() == {"x": "v"}
    target.remove_resource("a")
    assert StackDefinition(target, {}).resource_definitions() == {}


def test_update_policy_with_and_without_schema() -> None:
    defn = stack(
        "heat_template_version: 2021-04-16\nresources:\n"
        "  a: {type: OS::Heat::None,\n"
        "      update_policy: {batch: {get_param: n}}}\n",
        {"n": 2},
    ).resource_definitions()["a"]
    assert defn.update_policy() == {"batch": 2}
    assert defn.update_policy_data() == {"batch": 2}
    from keel_heat_core.plugin_api import properties

    schema = {"batch": properties.Schema(properties.Schema.INTEGER)}
    assert defn.update_policy(schema)["batch"] == 2


def test_freeze_resolves_and_overrides() -> None:
    defn = stack(
        """
heat_template_version: 2021-04-16
parameters:
  p: {type: string, default: pv}
resources:
  a: {type: OS::Heat::None}
  b:
    type: OS::Heat::None
    depends_on: [a]
    deletion_policy: Retain
    properties: {x: {get_param: p}, y: 2}
    metadata: {m: {get_param: p}}
""",
        {"p": "pv"},
    ).resource_definition("b")
    frozen = defn.freeze()
    assert frozen.render_hot() == {
        "type": "OS::Heat::None",
        "properties": {"x": "pv", "y": 2},
        "metadata": {"m": "pv"},
        "depends_on": ["a"],
        "deletion_policy": "Retain",
    }
    restored = defn.freeze(properties={"x": "restored"})
    assert restored.properties_data() == {"x": "restored"}
    assert restored.metadata() == {"m": "pv"}
    assert restored.name == "b" and restored.stack is defn.stack
    with pytest.raises(TypeError):
        defn.freeze(colour="red")


DIFF = """
heat_template_version: 2021-04-16
parameters:
  level: {type: number, default: 1}
resources:
  r:
    type: OS::Heat::TestResource
    properties: {value: v}
    metadata: {level: {get_param: level}}
    update_policy: {batch: 1}
"""


def _r(text: str, params: dict[str, Any] | None = None) -> Any:
    return stack(text, params).resource_definitions()["r"]


def test_definition_diff_sees_each_section() -> None:
    """``after - before`` is the ``tmpl_diff`` a plugin's update gets."""
    base = _r(DIFF)
    assert not (_r(DIFF) - base)
    assert not (_r(DIFF) - base).changed()

    meta = _r(DIFF, {"level": 2}) - base
    assert meta.metadata_changed() and bool(meta)
    assert not meta.properties_changed() and not meta.update_policy_changed()

    policy = _r(DIFF.replace("batch: 1", "batch: 2")) - base
    assert policy.update_policy_changed() and not policy.metadata_changed()

    props = _r(DIFF.replace("value: v", "value: w")) - base
    assert props.properties_changed()

    # a changed deletion policy or dependency updates with an empty diff
    retain = (
        _r(
            DIFF.replace(
                "update_policy:", "deletion_policy: Retain\n    update_policy:"
            )
        )
        - base
    )
    assert not retain and retain.changed()


def test_definition_diff_takes_the_engines_property_verdict() -> None:
    from keel_heat_core.template.rsrc_defn import DefinitionDiff

    base = _r(DIFF)
    assert DefinitionDiff(base, _r(DIFF), properties_changed=True)
    changed = _r(DIFF.replace("value: v", "value: w"))
    assert not DefinitionDiff(base, changed, properties_changed=False)
