"""Template (provider) resources: schemas, child parameters, facades."""

from __future__ import annotations

import pathlib
from types import SimpleNamespace as NS
from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.template import provider

CHILD = """
heat_template_version: 2021-04-16
description: A provider
parameters:
  name: {type: string, description: the name}
  count: {type: number, default: 1, constraints: [{range: {min: 1}}]}
  items: {type: comma_delimited_list}
  data: {type: json, default: {}}
  flag: {type: boolean, default: false}
outputs:
  addr: {value: x, description: lost in HOT}
"""

CFN_CHILD = """
HeatTemplateFormatVersion: '2012-12-12'
Parameters:
  P: {Type: String}
Outputs:
  O: {Value: x, Description: kept}
"""


def test_properties_from_parameters() -> None:
    prov = provider.ProviderTemplate.from_text("My::T", CHILD)
    props = prov.properties_schema()
    assert {n: p.type for n, p in props.items()} == {
        "name": "String",
        "count": "Number",
        "items": "List",
        "data": "Map",
        "flag": "Boolean",
    }
    assert props["name"].required and not props["count"].required
    assert props["count"].update_allowed
    assert props["data"].allow_conversion
    assert props["count"].to_dict() == {
        "type": "number",
        "required": False,
        "update_allowed": True,
        "immutable": False,
        "constraints": [{"range": {"min": 1}}],
    }
    assert prov.description == "A provider"


def test_parameter_defaults_make_properties_optional() -> None:
    prov = provider.ProviderTemplate.from_text(
        "My::T", CHILD, {"name": "given", "other": 1}
    )
    assert not prov.properties_schema()["name"].required


def test_attributes_from_outputs() -> None:
    hot = provider.ProviderTemplate.from_text("My::T", CHILD)
    assert {n: a.description for n, a in hot.attributes_schema().items()} == {
        "addr": None
    }
    cfn = provider.ProviderTemplate.from_text("My::C", CFN_CHILD)
    assert cfn.attributes_schema()["O"].description == "kept"
    assert set(cfn.properties_schema()) == {"P"}


def test_child_params_worked_example_47() -> None:
    types = {"items": "List", "objs": "List", "count": "Number", "m": "Map"}
    params = provider.child_params(
        {
            "items": ["a", None, "b"],
            "objs": [{"x": 1, "y": 2}, {"x": 3}],
            "count": 7,
            "m": {"k": "v"},
            "unset": None,
        },
        types,
    )
    assert params == {
        "items": "a,,b",
        "objs": ".member.0.x=1,.member.0.y=2,.member.1.x=3",
        "count": 7,
        "m": {"k": "v"},
    }
    assert provider.child_params({"items": []}, types) == {"items": ""}


def _props(**types: tuple[str, bool]) -> dict[str, NS]:
    return {n: NS(type=t, required=r) for n, (t, r) in types.items()}


def test_facade_checks() -> None:
    facade = _props(size=("Integer", True), name=("String", False))
    ok = _props(size=("Number", True), name=("String", False))
    provider.validate_against_facade("OS::X", ok, ["a"], facade, ["a"])
    cases = [
        (
            _props(name=("String", False)),
            [],
            "Required property size for facade OS::X missing in provider",
        ),
        (
            _props(size=("Number", True), name=("List", False)),
            [],
            "Property name type mismatch between facade OS::X (String) and "
            "provider (List)",
        ),
        (
            _props(size=("Number", True), extra=("String", True)),
            [],
            "Provider requires property extra unknown in facade OS::X",
        ),
        (ok, ["b"], "Attribute a for facade OS::X missing in provider"),
    ]
    for props, attrs, message in cases:
        with pytest.raises(exception.StackValidationFailed) as info:
            provider.validate_against_facade(
                "OS::X", props, attrs, facade, ["a"]
            )
        assert str(info.value) == message


def test_nested_depth() -> None:
    provider.check_nested_depth(4)
    with pytest.raises(exception.RequestLimitExceeded) as info:
        provider.check_nested_depth(5)
    assert (
        str(info.value) == "Request limit exceeded: Recursion depth exceeds 5."
    )
    with pytest.raises(exception.RequestLimitExceeded):
        provider.check_nested_depth(2, max_depth=2)


def test_fetch_schemes(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(CHILD)
    url = path.as_uri()
    assert provider.get_template_file(url, provider.LOCAL_SCHEMES) == CHILD
    with pytest.raises(exception.NotFound) as info:
        provider.get_template_file(url, provider.REMOTE_SCHEMES)
    assert str(info.value) == (
        f'Could not fetch remote template "{url}": Invalid URL scheme file'
    )
    with pytest.raises(exception.NotFound) as info:
        provider.get_template_file(url + ".gone", provider.LOCAL_SCHEMES)
    assert "Failed to retrieve template" in str(info.value)


def test_bad_provider_template() -> None:
    with pytest.raises(ValueError):
        provider.ProviderTemplate.from_text("My::T", "just: text\n")
    with pytest.raises(exception.InvalidSchemaError):
        provider.ProviderTemplate.from_text(
            "My::T",
            "heat_template_version: 2021-04-16\nparameters: {p: {type: x}}\n",
        )


class Server:
    properties_schema = {
        "name": NS(type="String", required=True),
        "flavor": NS(type="String", required=False),
    }
    attributes_schema = {"addr": NS()}
    base_attributes_schema = {"show": NS()}


def _env(rr: dict) -> Any:
    from keel_heat_core.template import environment as env_mod

    glob = env_mod.build_global_env(
        resource_classes={"OS::Nova::Server": Server}, event_sinks={}
    )
    return env_mod.Environment(
        {"resource_registry": rr}, global_environment=glob
    )


def test_validate_template_resource() -> None:
    env = _env({"My::Thing": "thing.yaml"})
    prov = provider.validate_template_resource(
        env, "My::Thing", "r", {"thing.yaml": CHILD}
    )
    assert "name" in prov.properties_schema()
    with pytest.raises(exception.StackValidationFailed) as info:
        provider.validate_template_resource(env, "My::Thing", "r", {})
    assert str(info.value) == (
        'Could not fetch remote template "thing.yaml": Invalid URL scheme '
    )
    with pytest.raises(exception.StackValidationFailed) as info:
        provider.validate_template_resource(env, "OS::Nova::Server", "r", {})
    assert str(info.value) == (
        "Only Templates with an extension of .yaml or .template are supported"
    )


def test_validate_template_resource_against_facade() -> None:
    env = _env({"OS::Nova::Server": "server.yaml"})
    good = (
        "heat_template_version: 2021-04-16\n"
        "parameters: {name: {type: string}, flavor: {type: string, "
        "default: x}}\noutputs: {addr: {value: 1}}\n"
    )
    provider.validate_template_resource(
        env, "OS::Nova::Server", "r", {"server.yaml": good}
    )
    bad = (
        "heat_template_version: 2021-04-16\n"
        "parameters: {name: {type: string}}\n"
    )
    with pytest.raises(exception.StackValidationFailed) as info:
        provider.validate_template_resource(
            env, "OS::Nova::Server", "r", {"server.yaml": bad}
        )
    assert str(info.value) == (
        "Attribute addr for facade OS::Nova::Server missing in provider"
    )


def _chain(levels: int) -> dict[str, str]:
    """``l1.yaml`` holds ``l2.yaml``... down to ``l<levels>.yaml``,
    which holds a plain resource."""
    files = {}
    for n in range(1, levels + 1):
        kind = f"l{n + 1}.yaml" if n < levels else "OS::Heat::None"
        files[f"l{n}.yaml"] = (
            "heat_template_version: 2021-04-16\n"
            f"resources: {{r{n + 1}: {{type: {kind}}}}}\n"
        )
    return files


def test_template_recursion_allows_the_maximum_depth() -> None:
    env = _env({})
    provider.check_template_recursion(
        env, "l1.yaml", "r1", _chain(5), "resources"
    )


def test_template_recursion_beyond_the_maximum_depth() -> None:
    env = _env({})
    with pytest.raises(exception.StackValidationFailed) as info:
        provider.check_template_recursion(
            env, "l1.yaml", "r1", _chain(6), "resources"
        )
    path = ".".join(f"resources.r{n}<l{n}.yaml>" for n in range(1, 7))
    assert str(info.value) == (
        f"RequestLimitExceeded: {path}: "
        "Request limit exceeded: Recursion depth exceeds 5."
    )


def test_a_mapping_is_not_followed_inside_its_own_template() -> None:
    env = _env({"OS::Heat::None": "none.yaml"})
    files = {
        "none.yaml": (
            "heat_template_version: 2021-04-16\n"
            "resources: {inner: {type: OS::Heat::None}}\n"
        )
    }
    provider.check_template_recursion(
        env, "OS::Heat::None", "outer", files, "resources"
    )
