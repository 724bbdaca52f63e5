"""The resource registry: mappings, globs, overrides, hooks, templates."""

from __future__ import annotations

from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.template import environment as env_mod
from keel_heat_core.template import provider, registry


class NoneResource:
    pass


class Server:
    pass


class Port:
    pass


@pytest.fixture
def glob_env() -> env_mod.Environment:
    return env_mod.build_global_env(
        resource_classes={
            "OS::Heat::None": NoneResource,
            "OS::Nova::Server": Server,
            "OS::Neutron::Port": lambda: Port,
        },
        event_sinks={},
    )


def user_env(
    glob_env: env_mod.Environment, rr: dict[str, Any]
) -> env_mod.Environment:
    return env_mod.Environment(
        {"resource_registry": rr}, global_environment=glob_env
    )


def test_plugin_classes_and_lazy_loaders(
    glob_env: env_mod.Environment,
) -> None:
    env = user_env(glob_env, {})
    assert env.get_class("OS::Nova::Server") is Server
    assert env.get_class("OS::Neutron::Port") is Port
    assert env.get_class_to_instantiate("OS::Neutron::Port") is Port


def test_mapping_chains(glob_env: env_mod.Environment) -> None:
    env = user_env(glob_env, {"A::B": "C::D", "C::D": "OS::Heat::None"})
    assert env.get_class("A::B") is NoneResource


def test_glob_carries_the_rest_of_the_name(
    glob_env: env_mod.Environment,
) -> None:
    env = user_env(glob_env, {"OS::Net::*": "OS::Neutron::*"})
    assert env.get_class("OS::Net::Port") is Port


def test_many_to_one_glob_never_matches_its_target(
    glob_env: env_mod.Environment,
) -> None:
    env = user_env(glob_env, {"OS::*": "OS::Heat::None"})
    assert env.get_class("OS::Nova::Server") is NoneResource
    assert env.get_class("OS::Heat::None") is NoneResource


def test_unknown_type(glob_env: env_mod.Environment) -> None:
    env = user_env(glob_env, {"My::T": "foo.txt"})
    with pytest.raises(exception.EntityNotFound) as info:
        env.get_resource_info("My::T")
    assert str(info.value) == "The Resource Type (My::T) could not be found."
    with pytest.raises(exception.StackValidationFailed) as sinfo:
        env.get_class_to_instantiate("Nope::Nope", "r")
    assert str(sinfo.value) == (
        "The Resource Type (Nope::Nope) could not be found."
    )


@pytest.mark.parametrize(
    ("rtype", "message"),
    [
        ("", 'Resource "r" has no type'),
        (None, 'Non-empty resource type is required for resource "r"'),
        (["x"], 'Resource "r" type is not a string'),
    ],
)
def test_bad_types(
    glob_env: env_mod.Environment, rtype: Any, message: str
) -> None:
    env = user_env(glob_env, {})
    with pytest.raises(exception.StackValidationFailed) as info:
        env.get_class_to_instantiate(rtype, "r")
    assert str(info.value) == message


def test_user_entries_win_over_global(glob_env: env_mod.Environment) -> None:
    glob_env.registry.load({"X::Y": "OS::Nova::Server"})
    try:
        env = user_env(glob_env, {"X::Y": "OS::Heat::None"})
        assert env.get_class("X::Y") is NoneResource
        assert user_env(glob_env, {}).get_class("X::Y") is Server
    finally:
        glob_env.registry.load({"X::Y": None})


def test_null_removes_user_entries(glob_env: env_mod.Environment) -> None:
    env = user_env(glob_env, {"A::B": "OS::Heat::None", "A::C": "C::D"})
    env.registry.load({"A::B": None})
    assert "A::B" not in env.registry.as_dict()
    env.registry.load({"A::*": None})
    assert env.registry.as_dict() == {"resources": {}}
    # global entries stay
    env.registry.load({"OS::Nova::Server": None})
    assert env.get_class("OS::Nova::Server") is Server


def test_per_resource_override(glob_env: env_mod.Environment) -> None:
    env = user_env(
        glob_env,
        {"resources": {"r1": {"OS::Nova::Server": "OS::Heat::None"}}},
    )
    assert env.get_class("OS::Nova::Server", "r2") is Server
    assert env.get_class("OS::Nova::Server", "r1") is NoneResource


def test_resolved_mapping_is_remembered(
    glob_env: env_mod.Environment,
) -> None:
    # Heat keeps a user mapping that led to a global type under the type
    # looked up too (vectors template/env_resource_registry_glob and
    # _per_resource show it in POST /validate's environment). A
    # per-resource mapping so leaks to the other resources of the type,
    # as in Heat.
    env = user_env(
        glob_env,
        {"resources": {"r1": {"OS::Nova::Server": "OS::Heat::None"}}},
    )
    assert env.get_class("OS::Nova::Server", "r1") is NoneResource
    assert env.registry.as_dict()["OS::Nova::Server"] == "OS::Heat::None"
    assert env.get_class("OS::Nova::Server", "r2") is NoneResource
    globbed = user_env(glob_env, {"OS::Nova::*": "OS::Heat::None"})
    assert globbed.get_class("OS::Nova::Server") is NoneResource
    assert globbed.registry.as_dict() == {
        "resources": {},
        "OS::Nova::*": "OS::Heat::None",
        "OS::Nova::Server": "OS::Heat::None",
    }


def test_hooks_and_restricted_actions(glob_env: env_mod.Environment) -> None:
    env = user_env(
        glob_env,
        {
            "resources": {
                "*_server": {"hooks": ["pre-create", "post-update"]},
                "db": {"hooks": "pre-delete", "restricted_actions": "replace"},
                "web*": {"restricted_actions": ["update", "replace"]},
            }
        },
    )
    reg = env.registry
    assert reg.matches_hook("my_server", "pre-create")
    assert reg.matches_hook("my_server", "post-update")
    assert not reg.matches_hook("my_server", "pre-delete")
    assert reg.matches_hook("db", "pre-delete")
    assert reg.get_rsrc_restricted_actions("db") == {"replace"}
    assert reg.get_rsrc_restricted_actions("web1") == {"update", "replace"}
    assert reg.get_rsrc_restricted_actions("other") == set()
    assert reg.as_dict()["resources"]["db"] == {
        "hooks": "pre-delete",
        "restricted_actions": "replace",
    }


def test_invalid_hook(glob_env: env_mod.Environment) -> None:
    with pytest.raises(exception.InvalidBreakPointHook) as info:
        user_env(glob_env, {"resources": {"r": {"hooks": "pre-foo"}}})
    assert str(info.value) == (
        'Invalid hook type "pre-foo" for resource breakpoint, acceptable '
        "hook types are: ('pre-create', 'pre-update', 'pre-delete', "
        "'post-create', 'post-update', 'post-delete')"
    )


def test_invalid_restricted_action(glob_env: env_mod.Environment) -> None:
    with pytest.raises(exception.InvalidRestrictedAction) as info:
        user_env(
            glob_env,
            {"resources": {"r": {"restricted_actions": ["update", "delete"]}}},
        )
    assert str(info.value) == (
        "Invalid restricted_action type \"['update', 'delete']\" for "
        "resource, acceptable restricted_action types are: "
        "('update', 'replace')"
    )


def test_template_resources(glob_env: env_mod.Environment) -> None:
    env = user_env(glob_env, {"My::T": "t.yaml"})
    info = env.get_resource_info("My::T")
    assert isinstance(info, registry.TemplateResourceInfo)
    assert info.template_name == "t.yaml"
    files = {"t.yaml": "heat_template_version: 2021-04-16\n"}
    prov = env.get_class("My::T", files=files)
    assert isinstance(prov, provider.ProviderTemplate)
    assert env.get_class_to_instantiate("My::T") == (
        registry.template_resource_class
    )
    # a type that is itself a template name
    direct = env.get_resource_info("other.template")
    assert isinstance(direct, registry.TemplateResourceInfo)


def test_template_resource_fetch_error(glob_env: env_mod.Environment) -> None:
    env = user_env(glob_env, {"My::T": "nothere.yaml"})
    with pytest.raises(exception.NotFound) as info:
        env.get_class("My::T", files={})
    assert str(info.value) == (
        'Could not fetch remote template "nothere.yaml": Invalid URL scheme '
    )


def test_registry_must_be_a_map(glob_env: env_mod.Environment) -> None:
    with pytest.raises(exception.StackValidationFailed):
        user_env(glob_env, ["x"])  # type: ignore[arg-type]


def test_remove_resources_except(glob_env: env_mod.Environment) -> None:
    env = user_env(
        glob_env,
        {
            "resources": {
                "r1": {
                    "hooks": "pre-create",
                    "child": {"hooks": "pre-update"},
                },
                "r*": {"restricted_actions": "update"},
                "x": {"hooks": "pre-delete"},
            }
        },
    )
    env.registry.remove_resources_except("r1")
    kept = env.registry.as_dict()["resources"]
    assert kept == {
        "hooks": "pre-create",
        "child": {"hooks": "pre-update"},
        "restricted_actions": "update",
    }


def test_type_names(glob_env: env_mod.Environment) -> None:
    assert sorted(glob_env.registry.type_names()) == [
        "OS::Heat::None",
        "OS::Neutron::Port",
        "OS::Nova::Server",
    ]
    assert glob_env.registry.type_names(lambda n, i: "Nova" in n) == [
        "OS::Nova::Server"
    ]
