"""Custom constraints: the registry and the 12 local constraints."""

from __future__ import annotations

import importlib.metadata
import json
import pathlib
from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.template import constraints as constr
from keel_heat_core.template import custom_constraints as cc
from keel_heat_core.template import local_constraints as lc

DATA = pathlib.Path(__file__).parent / "data" / "custom_constraints.json"
HEAT = json.loads(DATA.read_text())["constraints"]


def test_every_local_constraint_of_heat_is_registered() -> None:
    local = {n for n, c in HEAT.items() if c["kind"] == "local"}
    assert len(local) == 12
    names = set(cc.ConstraintRegistry.from_entry_points().names())
    assert local <= names


def _check(name: str, value: Any) -> str | None:
    try:
        constr.CustomConstraint(name).validate(value)
    except ValueError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ip_addr", "10.0.0.1"),
        ("ip_addr", "fe80::1"),
        ("ip_or_cidr", "192.168.0.0/16"),
        ("ip_or_cidr", "10.1.2.3"),
        ("net_cidr", "10.0.0.0/8"),
        ("net_cidr", "192.168.1.0/24"),
        ("mac_addr", "fa:16:3e:00:00:01"),
        ("dns_name", "www.example.com"),
        ("dns_domain", "example.com."),
        ("rel_dns_name", "www"),
        ("iso_8601", "2016-10-14T12:00:00Z"),
        ("expiration", "2099-01-01T00:00:00Z"),
        ("cron_expression", "0 * * * *"),
        ("timezone", "Europe/Paris"),
        ("json_string", '{"a": 1}'),
    ],
)
def test_valid_values(name: str, value: str) -> None:
    assert _check(name, value) is None


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("ip_addr", "fe80:::1", "Invalid IP address"),
        ("ip_addr", 5, "Invalid IP address"),
        ("ip_addr", ["10.0.0.1", "nope"], "Invalid IP address"),
        ("mac_addr", "fa:16:3e:00:00", "Invalid MAC address."),
        (
            "net_cidr",
            "10.0.0.0/33",
            "Invalid net cidr invalid IPNetwork 10.0.0.0/33 ",
        ),
        ("net_cidr", "10.0.0.0", "'10.0.0.0' is not a valid IP subnet"),
        (
            "rel_dns_name",
            "www.example.com.",
            "'www.example.com.' is a FQDN. "
            "It should be a relative domain name.",
        ),
        ("dns_domain", "example.com", "'example.com' must end with '.'."),
        (
            "dns_name",
            "-a.com",
            "'-a.com' not in valid format. Reason: Name "
            "'-a' must not start or end with a hyphen.",
        ),
        (
            "expiration",
            "2000-01-01T00:00:00Z",
            "Expiration "
            "2000-01-01T00:00:00Z is invalid: Expiration time is out of date.",
        ),
        (
            "json_string",
            "{a: 1",
            "JSON string {a: 1 is invalid: Expecting property name "
            "enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        ("timezone", "Foo/Bar", "Invalid timezone: 'Foo/Bar'"),
    ],
)
def test_invalid_values(name: str, value: Any, message: str) -> None:
    assert (
        _check(name, value) == f"Error validating value '{value}': {message}"
    )


def test_iso_8601_without_message() -> None:
    assert _check("iso_8601", "nope") == "Error validating value 'nope'"


def test_cron_error_names_croniter_problem() -> None:
    msg = _check("cron_expression", "* * *")
    assert msg is not None
    assert msg.startswith("Error validating value '* * *': Invalid CRON ")


class Clients:
    def __init__(self, known: set[str]) -> None:
        self.known = known

    def client_plugin(self, name: str) -> Any:
        assert name == "nova"
        return self

    def find_flavor(self, value: str) -> None:
        if value not in self.known:
            raise exception.EntityNotFound(entity="Flavor", name=value)


class FlavorConstraint(cc.BaseCustomConstraint):
    resource_client_name = "nova"
    resource_getter_name = "find_flavor"


class Context:
    clients = Clients({"m1.small"})


def test_client_constraint_through_a_registry() -> None:
    registry = cc.ConstraintRegistry({"nova.flavor": FlavorConstraint})
    c = constr.CustomConstraint("nova.flavor", environment=registry)
    c.validate("m1.small", context=Context())
    with pytest.raises(ValueError) as info:
        constr.CustomConstraint("nova.flavor", environment=registry).validate(
            "huge", context=Context()
        )
    assert str(info.value) == (
        "Error validating value 'huge': The Flavor (huge) could not be found."
    )


def test_base_constraint_without_getter() -> None:
    with pytest.raises(exception.InvalidSchemaError):
        cc.BaseCustomConstraint().validate("x", Context())


def _ep(name: str, value: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name, value, cc.ENTRY_POINT_GROUP)


def test_registry_refuses_a_duplicate_name() -> None:
    eps = [_ep("x", "a.b:C"), _ep("x", "d.e:F")]
    with pytest.raises(cc.DuplicateConstraintError) as info:
        cc.ConstraintRegistry.from_entry_points(eps)
    assert "a.b:C" in str(info.value) and "d.e:F" in str(info.value)


def test_registry_loads_lazily_and_survives_missing_modules() -> None:
    reg = cc.ConstraintRegistry.from_entry_points(
        [
            _ep(
                "ip", "keel_heat_core.template.local_constraints:IPConstraint"
            ),
            _ep("gone", "no_such_module_here:Thing"),
        ]
    )
    assert reg.names() == ["gone", "ip"]
    assert reg.get_constraint("ip") is lc.IPConstraint
    assert reg.get_constraint("gone") is None
    assert reg.get_constraint("other") is None
    reg.register("other", lc.MACConstraint)
    assert reg.get_constraint("other") is lc.MACConstraint


def test_default_registry_can_be_replaced() -> None:
    own = cc.ConstraintRegistry({})
    cc.set_default_registry(own)
    try:
        assert cc.default_registry() is own
        assert _check("ip_addr", "10.0.0.1") == (
            '"10.0.0.1" does not validate ip_addr (constraint not found)'
        )
    finally:
        cc.set_default_registry(None)
    assert _check("ip_addr", "10.0.0.1") is None
