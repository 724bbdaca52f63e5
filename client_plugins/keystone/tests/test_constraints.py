"""The keystone.* custom constraints, registered and checked for real."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from typing import Any

import pytest
from keel_heat_client_keystone import constraints

from keel_heat_core.template.custom_constraints import ConstraintRegistry
from keel_heat_core.testing.keystone import KeystoneServer

NAMES = {
    "keystone.domain": constraints.KeystoneDomainConstraint,
    "keystone.group": constraints.KeystoneGroupConstraint,
    "keystone.project": constraints.KeystoneProjectConstraint,
    "keystone.region": constraints.KeystoneRegionConstraint,
    "keystone.role": constraints.KeystoneRoleConstraint,
    "keystone.service": constraints.KeystoneServiceConstraint,
    "keystone.user": constraints.KeystoneUserConstraint,
}


def test_entry_points_name_every_constraint() -> None:
    registry = ConstraintRegistry.from_entry_points()
    for name, cls in NAMES.items():
        assert registry.get_constraint(name) is cls
    clients = importlib.metadata.entry_points(group="keel_heat.clients")
    [keystone] = [ep for ep in clients if ep.name == "keystone"]
    assert keystone.load().__name__ == "KeystoneClientPlugin"


def test_getters_match_heat() -> None:
    getters = {name: cls.resource_getter_name for name, cls in NAMES.items()}
    assert getters == {
        "keystone.domain": "get_domain_id",
        "keystone.group": "get_group_id",
        "keystone.project": "get_project_id",
        "keystone.region": "get_region_id",
        "keystone.role": "get_role_id",
        "keystone.service": "get_service_id",
        "keystone.user": "get_user_id",
    }
    assert all(
        cls.resource_client_name == "keystone" for cls in NAMES.values()
    )


@pytest.mark.keystone
@pytest.mark.parametrize(
    ("name", "good", "bad", "entity"),
    [
        ("keystone.role", "member", "no-role", "KeystoneRole"),
        ("keystone.domain", "heat", "no-domain", "KeystoneDomain"),
        ("keystone.project", "demo", "no-project", "KeystoneProject"),
        ("keystone.user", "demo", "no-user", "KeystoneUser"),
        ("keystone.region", "RegionOne", "no-region", "KeystoneRegion"),
        ("keystone.service", "keystone", "no-service", "KeystoneService"),
    ],
)
def test_validate_against_keystone(
    keystone: KeystoneServer,
    make_context: Callable[..., Any],
    name: str,
    good: str,
    bad: str,
    entity: str,
) -> None:
    context = make_context(keystone.admin_session())
    assert NAMES[name]().validate(good, context)
    constraint = NAMES[name]()
    assert not constraint.validate(bad, context)
    assert constraint.error(bad) == (
        f"Error validating value '{bad}': "
        f"The {entity} ({bad}) could not be found."
    )
