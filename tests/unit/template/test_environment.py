"""Environment format, the Environment object, child and global ones."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.template import environment as env_mod
from keel_heat_core.template import registry


class NoneResource:
    pass


class Sink:
    def __init__(self, target: str, ttl: int = 0) -> None:
        self.target = target
        self.ttl = ttl


@pytest.fixture
def glob_env() -> env_mod.Environment:
    return env_mod.build_global_env(
        resource_classes={"OS::Heat::None": NoneResource},
        event_sinks={"zaqar-queue": Sink},
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("foo: {}", 'environment has wrong section "foo"'),
        (
            "encrypted_parameters: []",
            'environment has wrong section "encrypted_parameters"',
        ),
        ("parameters:", 'environment has empty section "parameters"'),
        ("- a\n- b", "The environment is not a valid YAML mapping data type."),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        env_mod.parse(text)
    assert str(info.value) == message


def test_parse_yaml_error_is_bare_pyyaml_message() -> None:
    with pytest.raises(ValueError) as info:
        env_mod.parse("parameters: [\n")
    assert str(info.value).startswith("while parsing a flow node")


def test_parse_ok() -> None:
    assert env_mod.parse(None) == {}
    assert env_mod.parse("") == {}
    env = env_mod.parse(
        "parameters: {a: 2016-10-14}\nparameter_defaults: {b: 1}\n"
    )
    assert env == {
        "parameters": {"a": "2016-10-14"},
        "parameter_defaults": {"b": 1},
    }


def test_default_for_missing() -> None:
    env: dict[str, Any] = {"parameters": {"a": 1}}
    env_mod.default_for_missing(env)
    assert env == {
        "parameters": {"a": 1},
        "resource_registry": {},
        "parameter_defaults": {},
        "encrypted_param_names": [],
        "event_sinks": [],
    }


def test_flat_parameters(glob_env: env_mod.Environment) -> None:
    env = env_mod.Environment({"a": 1, "b": "x"}, global_environment=glob_env)
    assert env.params == {"a": 1, "b": "x"}


def test_as_dict(glob_env: env_mod.Environment) -> None:
    env = env_mod.Environment(
        {
            "parameters": {"a": 1},
            "parameter_defaults": {"b": 2},
            "resource_registry": {"X::Y": "OS::Heat::None"},
            "encrypted_param_names": ["a"],
        },
        global_environment=glob_env,
    )
    user = env.user_env_as_dict()
    assert user == {
        "resource_registry": {"X::Y": "OS::Heat::None", "resources": {}},
        "parameters": {"a": 1},
        "parameter_defaults": {"b": 2},
        "event_sinks": [],
    }
    assert env.env_as_dict()["encrypted_param_names"] == ["a"]


def test_event_sinks(glob_env: env_mod.Environment) -> None:
    sinks = [{"type": "zaqar-queue", "target": "q", "ttl": 5}]
    env = env_mod.Environment(
        {"event_sinks": sinks}, global_environment=glob_env
    )
    (built,) = env.get_event_sinks()
    assert isinstance(built, Sink)
    assert (built.target, built.ttl) == ("q", 5)
    assert env.user_env_as_dict()["event_sinks"] == sinks


def test_unknown_event_sink_is_a_validation_error(
    glob_env: env_mod.Environment,
) -> None:
    with pytest.raises(exception.StackValidationFailed) as info:
        env_mod.Environment(
            {"event_sinks": [{"type": "nope"}]}, global_environment=glob_env
        )
    assert str(info.value) == 'Unknown event sink type "nope"'


def test_section_of_wrong_shape(glob_env: env_mod.Environment) -> None:
    with pytest.raises(exception.StackValidationFailed):
        env_mod.Environment({"parameters": ["a"]}, global_environment=glob_env)


def test_load_on_top(glob_env: env_mod.Environment) -> None:
    env = env_mod.Environment(
        {"parameters": {"a": 1}}, global_environment=glob_env
    )
    env.load({"parameters": {"b": 2}, "parameter_defaults": {"c": 3}})
    assert env.params == {"a": 1, "b": 2}
    assert env.param_defaults == {"c": 3}


def test_child_environment(glob_env: env_mod.Environment) -> None:
    parent = env_mod.Environment(
        {
            "parameters": {"p": "parent"},
            "parameter_defaults": {"d": 1},
            "resource_registry": {
                "OS::Nova::Server": "server.yaml",
                "resources": {
                    "srv": {
                        "hooks": "pre-create",
                        "inner": {"hooks": "pre-update"},
                    },
                    "other": {"hooks": "pre-delete"},
                },
            },
        },
        global_environment=glob_env,
    )
    info = parent.get_resource_info("OS::Nova::Server", "srv")
    assert isinstance(info, registry.TemplateResourceInfo)
    child = env_mod.get_child_environment(
        parent, {"x": 1}, item_to_remove=info, child_resource_name="srv"
    )
    assert child.params == {"x": 1}
    assert child.param_defaults == {"d": 1}
    # the provider's own entry is gone: the child may use the real type
    with pytest.raises(exception.EntityNotFound):
        child.get_resource_info("OS::Nova::Server")
    assert child.registry.matches_hook("inner", "pre-update")
    assert not child.registry.matches_hook("other", "pre-delete")
    # the parent is untouched
    assert parent.registry.matches_hook("other", "pre-delete")


def test_child_environment_with_sections(
    glob_env: env_mod.Environment,
) -> None:
    parent = env_mod.Environment({}, global_environment=glob_env)
    child = env_mod.get_child_environment(
        parent, {"parameters": {"a": 1}, "parameter_defaults": {"b": 2}}
    )
    assert child.params == {"a": 1}
    assert child.param_defaults == {"b": 2}


def test_global_environment_directory(tmp_path: pathlib.Path) -> None:
    (tmp_path / "a.yaml").write_text(
        "resource_registry:\n  'OS::Quantum*': 'OS::Neutron*'\n"
        "  'AWS::X': 'file:///etc/heat/templates/x.yaml'\n"
        "parameters: {ignored: 1}\n"
    )
    (tmp_path / "b.yaml").write_text("resource_registry: [\n")
    (tmp_path / "c.yaml").write_text("resource_registry: {'X::Y': 'A::B'}\n")
    glob = env_mod.build_global_env(
        resource_classes={"OS::Neutron::Port": NoneResource},
        env_dir=str(tmp_path),
        event_sinks={},
    )
    user = env_mod.Environment({}, global_environment=glob)
    assert user.get_class("OS::Quantum::Port") is NoneResource
    info = user.get_resource_info("AWS::X")
    assert isinstance(info, registry.TemplateResourceInfo)
    assert not info.user_resource
    assert user.params == {}
    # global entries are not part of the user environment
    assert user.user_env_as_dict()["resource_registry"] == {"resources": {}}


def test_global_env_can_be_installed() -> None:
    own = env_mod.build_global_env(resource_classes={}, event_sinks={})
    env_mod.set_global_env(own)
    try:
        assert env_mod.global_env() is own
        assert env_mod.Environment({}).global_environment is own
    finally:
        env_mod.set_global_env(None)


def test_get_constraint_uses_the_registry(
    glob_env: env_mod.Environment,
) -> None:
    env = env_mod.Environment({}, global_environment=glob_env)
    assert env.get_constraint("ip_addr") is not None
    assert env.get_constraint("nope.nope") is None
