"""Translation rules, client plugins, signatures and the comparison kit."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from keel_heat_core import exception
from keel_heat_core.plugin_api import client_plugin, properties, translation
from keel_heat_core.plugin_api.identifier import HeatIdentifier
from keel_heat_core.plugin_api.signal_responder import ec2_signature_v2
from keel_heat_core.testing import schema_compare

Schema = properties.Schema


def _props(data, rules_for):
    schema = {
        "new": Schema(Schema.STRING),
        "old": Schema(Schema.STRING),
        "items": Schema(Schema.LIST),
        "net": Schema(Schema.STRING),
    }
    props = properties.Properties(schema, data)
    props.update_translation(rules_for(props))
    return props


def test_replace_moves_deprecated_value():
    props = _props(
        {"old": "x"},
        lambda p: [
            translation.TranslationRule(
                p, translation.REPLACE, ["new"], value_name="old"
            )
        ],
    )
    assert props["new"] == "x"
    props.validate()


def test_replace_conflict():
    props = _props(
        {"old": "x", "new": "y"},
        lambda p: [
            translation.TranslationRule(
                p, translation.REPLACE, ["new"], value_name="old"
            )
        ],
    )
    with pytest.raises(ValueError, match="Cannot define the following"):
        props["new"]


def test_add_and_delete():
    props = _props(
        {"items": ["a"], "old": "gone"},
        lambda p: [
            translation.TranslationRule(p, translation.ADD, ["items"], ["b"]),
            translation.TranslationRule(p, translation.DELETE, ["old"]),
        ],
    )
    assert props["items"] == ["a", "b"]
    assert props["old"] is None


def test_resolve_uses_the_finder():
    class Finder:
        def find(self, value):
            return f"id-of-{value}"

    props = _props(
        {"net": "private"},
        lambda p: [
            translation.TranslationRule(
                p,
                translation.RESOLVE,
                ["net"],
                client_plugin=Finder(),
                finder="find",
            )
        ],
    )
    assert props["net"] == "id-of-private"


def test_bad_rule():
    with pytest.raises(ValueError, match="There is no rule Nope"):
        translation.TranslationRule(None, "Nope", ["x"])


def test_client_plugin_versions_and_filters():
    class Plugin(client_plugin.ClientPlugin):
        supported_versions = ("2",)

        def _create(self, version=None):
            return object()

        def is_conflict(self, ex):
            return isinstance(ex, KeyError)

    plugin = Plugin(context=None)
    assert plugin.client() is plugin.client()
    assert plugin.client("2") is not plugin.client()
    with pytest.raises(exception.InvalidServiceVersion):
        plugin.client("3")
    with plugin.ignore_conflict_and_not_found:
        raise KeyError("busy")
    with pytest.raises(ValueError), plugin.ignore_not_found:
        raise ValueError("other")
    default = client_plugin.DefaultClientPlugin(None)
    assert not default.is_not_found(Exception())
    assert not default.is_conflict(Exception())
    assert default.client() is None


def test_ec2_signature_v2_matches_the_spec():
    params = {
        "AWSAccessKeyId": "AK",
        "SignatureMethod": "HmacSHA256",
        "SignatureVersion": "2",
        "Timestamp": "2026-01-01T00:00:00Z",
    }
    to_sign = (
        "POST\nheat:8000\n/v1/signal/x\n"
        "AWSAccessKeyId=AK&SignatureMethod=HmacSHA256&SignatureVersion=2"
        "&Timestamp=2026-01-01T00%3A00%3A00Z"
    )
    expected = base64.b64encode(
        hmac.new(b"secret", to_sign.encode(), hashlib.sha256).digest()
    ).decode()
    assert (
        ec2_signature_v2("secret", "POST", "heat:8000", "/v1/signal/x", params)
        == expected
    )


def test_identifier_round_trip():
    ident = HeatIdentifier("t1", "st", "id1", "/resources/wh")
    assert ident.arn() == "arn:openstack:heat::t1:stacks/st/id1/resources/wh"
    url = "http://h:8000/v1/waitcondition" + ident.arn_url_path() + "?a=b"
    assert HeatIdentifier.from_arn_url(url) == ident
    assert ident.resource_name == "wh"
    with pytest.raises(ValueError, match="is not a valid ARN URL"):
        HeatIdentifier.from_arn_url("http://h/v1/nothing")


def test_schema_compare_ignores_descriptions_only():
    heat = {
        "properties": {
            "description": {"type": "string", "description": "Heat's"}
        }
    }
    ours = {
        "properties": {
            "description": {"type": "string", "description": "Ours"}
        }
    }
    assert (
        schema_compare.diff(
            schema_compare.strip_descriptions(heat),
            schema_compare.strip_descriptions(ours),
        )
        == []
    )
    ours["properties"]["description"]["type"] = "map"
    assert schema_compare.diff(
        schema_compare.strip_descriptions(heat),
        schema_compare.strip_descriptions(ours),
    ) == ["properties.description.type: expected 'string', got 'map'"]


def test_stack_identifier_from_objects_and_dicts():
    import dataclasses

    from keel_heat_core.plugin_api.identifier import stack_identifier

    @dataclasses.dataclass
    class Ident:
        tenant: str
        stack_name: str
        stack_id: str
        path: str = ""

    class Stack:
        def __init__(self, ident):
            self._ident = ident

        def identifier(self):
            return self._ident

    expected = HeatIdentifier("t", "s", "i")
    assert stack_identifier(Stack(Ident("t", "s", "i"))) == expected
    assert (
        stack_identifier(
            Stack({"tenant": "t", "stack_name": "s", "stack_id": "i"})
        )
        == expected
    )
