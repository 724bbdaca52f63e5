"""Validation against the real Keystone, and the admin-only policy."""

from __future__ import annotations

from typing import Any

import pytest
from keel_heat_pack_keystone import policies
from keel_heat_pack_keystone.endpoint import KeystoneEndpoint
from keel_heat_pack_keystone.group import KeystoneGroup
from keel_heat_pack_keystone.project import KeystoneProject
from keel_heat_pack_keystone.region import KeystoneRegion
from keel_heat_pack_keystone.role import KeystoneRole
from keel_heat_pack_keystone.role_assignments import (
    KeystoneGroupRoleAssignment,
    KeystoneUserRoleAssignment,
)
from keel_heat_pack_keystone.user import KeystoneUser
from oslo_config import cfg

from keel_heat_core import exception
from keel_heat_core.context import RequestContext
from keel_heat_core.policies.enforcer import Enforcer, PolicyDenied, all_rules
from keel_heat_core.testing.driver import ResourceDriver

NOT_FOUND = (
    "Error validating value '{value}': "
    "The {entity} ({value}) could not be found."
)


@pytest.mark.keystone
@pytest.mark.parametrize(
    ("cls", "props", "path", "entity", "value"),
    [
        (
            KeystoneProject,
            {"domain": "no-dom"},
            "domain",
            "KeystoneDomain",
            "no-dom",
        ),
        (
            KeystoneProject,
            {"parent": "no-proj"},
            "parent",
            "KeystoneProject",
            "no-proj",
        ),
        (
            KeystoneRole,
            {"domain": "no-dom"},
            "domain",
            "KeystoneDomain",
            "no-dom",
        ),
        (
            KeystoneGroup,
            {"domain": "no-dom"},
            "domain",
            "KeystoneDomain",
            "no-dom",
        ),
        (
            KeystoneUser,
            {"default_project": "no-p"},
            "default_project",
            "KeystoneProject",
            "no-p",
        ),
        (
            KeystoneUser,
            {"groups": ["no-grp"]},
            "groups[0]",
            "KeystoneGroup",
            "no-grp",
        ),
        (
            KeystoneUser,
            {"roles": [{"role": "no-role", "project": "demo"}]},
            "roles[0].role",
            "KeystoneRole",
            "no-role",
        ),
        (
            KeystoneGroup,
            {"roles": [{"role": "member", "domain": "no-dom"}]},
            "roles[0].domain",
            "KeystoneDomain",
            "no-dom",
        ),
        (
            KeystoneUserRoleAssignment,
            {"user": "no-user", "roles": []},
            "user",
            "KeystoneUser",
            "no-user",
        ),
        (
            KeystoneGroupRoleAssignment,
            {
                "group": "no-grp",
                "roles": [{"role": "member", "project": "no-p"}],
            },
            "group",
            "KeystoneGroup",
            "no-grp",
        ),
        (
            KeystoneEndpoint,
            {"service": "no-svc", "interface": "public", "url": "http://x"},
            "service",
            "KeystoneService",
            "no-svc",
        ),
        (
            KeystoneEndpoint,
            {
                "service": "keystone",
                "region": "no-region",
                "interface": "public",
                "url": "http://x",
            },
            "region",
            "KeystoneRegion",
            "no-region",
        ),
        (
            KeystoneRegion,
            {"parent_region": "no-region"},
            "parent_region",
            "KeystoneRegion",
            "no-region",
        ),
    ],
)
def test_unknown_keystone_object_fails_validation(
    admin_driver: ResourceDriver,
    cls: type,
    props: dict[str, Any],
    path: str,
    entity: str,
    value: str,
) -> None:
    res = admin_driver.resource("r", cls, props)
    with pytest.raises(exception.StackValidationFailed) as err:
        admin_driver.create(res)
    message = NOT_FOUND.format(entity=entity, value=value)
    assert str(err.value) == (
        f"Property error: resources.r.properties.{path}: {message}"
    )
    assert res.resource_id is None


@pytest.mark.keystone
def test_valid_names_pass_validation(admin_driver: ResourceDriver) -> None:
    res = admin_driver.resource(
        "r",
        KeystoneUser,
        {
            "domain": "Default",
            "default_project": "demo",
            "roles": [
                {"role": "member", "project": "demo"},
                {"role": "reader", "domain": "default"},
            ],
        },
    )
    res.validate()


@pytest.mark.parametrize(
    "cls", [KeystoneUser, KeystoneGroup, KeystoneUserRoleAssignment]
)
def test_a_grant_needs_one_scope(
    resource_driver: ResourceDriver, cls: type
) -> None:
    base = {"user": "u"} if cls is KeystoneUserRoleAssignment else {}
    both = {**base, "roles": [{"role": "r", "project": "p", "domain": "d"}]}
    res = resource_driver.resource("r", cls, both)
    res.stack.strict_validate = False
    with pytest.raises(exception.ResourcePropertyConflict) as err:
        res.validate()
    assert str(err.value) == (
        "Cannot define the following properties at the same time: "
        "project, domain."
    )
    res = resource_driver.resource(
        "r", cls, {**base, "roles": [{"role": "r"}]}
    )
    with pytest.raises(exception.StackValidationFailed) as err2:
        res.validate()
    assert (
        str(err2.value)
        == "Either project or domain must be specified for role r"
    )


def _enforcer() -> Enforcer:
    conf = cfg.ConfigOpts()
    conf([], project="keel-heat-test")
    return Enforcer(conf)


def _ctx(roles: list[str]) -> RequestContext:
    return RequestContext(
        project_id="p", user_id="u", roles=roles, is_admin_project=True
    )


def test_pack_rules_are_registered() -> None:
    rules = {r.name: r.check_str for r in all_rules()}
    for type_name in policies.TYPES:
        assert rules[f"resource_types:{type_name}"] == "rule:project_admin"
    assert rules["resource_types:OS::Keystone::*"] == "rule:project_admin"


@pytest.mark.parametrize("type_name", policies.TYPES)
def test_only_an_admin_may_use_a_keystone_type(type_name: str) -> None:
    enforcer = _enforcer()
    target = {"project_id": "p"}
    enforcer.enforce_resource_type(_ctx(["admin"]), type_name, target)
    for roles in (["member"], ["reader"], ["member", "heat_stack_owner"]):
        with pytest.raises(PolicyDenied) as denied:
            enforcer.enforce_resource_type(_ctx(roles), type_name, target)
        # both the type's rule and the wildcard deny: Heat's text names
        # the type (Heat has the wildcard only)
        assert denied.value.action == type_name


def test_a_policy_file_can_open_one_type(tmp_path: Any) -> None:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(
        '"resource_types:OS::Keystone::*": ""\n'
        '"resource_types:OS::Keystone::UserRoleAssignment": '
        '"role:member"\n'
    )
    conf = cfg.ConfigOpts()
    conf([], project="keel-heat-test")
    enforcer = Enforcer(conf, policy_file=str(policy_file))
    member = _ctx(["member"])
    enforcer.enforce_resource_type(member, "OS::Keystone::UserRoleAssignment")
    with pytest.raises(PolicyDenied) as denied:
        enforcer.enforce_resource_type(member, "OS::Keystone::Project")
    # only the type's own rule denies: it is the one named
    assert denied.value.action == "resource_types:OS::Keystone::Project"
