"""Property schemas and values: Heat's JSON forms and error texts."""

from __future__ import annotations

import pytest

from keel_heat_core import exception
from keel_heat_core.plugin_api import constraints, properties, support

Schema = properties.Schema


def test_schema_json_form():
    schema = Schema(
        Schema.LIST,
        "desc",
        default=["a"],
        schema=Schema(Schema.STRING, constraints=[constraints.Length(min=1)]),
        update_allowed=True,
    )
    assert dict(schema) == {
        "type": "list",
        "description": "desc",
        "default": ["a"],
        "schema": {
            "*": {
                "type": "string",
                "required": False,
                "constraints": [{"length": {"min": 1}}],
                "update_allowed": False,
                "immutable": False,
            }
        },
        "required": False,
        "update_allowed": True,
        "immutable": False,
    }


def test_schema_refuses_bad_definitions():
    with pytest.raises(exception.InvalidSchemaError, match="Invalid type"):
        Schema("Float")
    with pytest.raises(exception.InvalidSchemaError, match="cannot both"):
        Schema(Schema.STRING, update_allowed=True, immutable=True)
    with pytest.raises(exception.InvalidSchemaError) as err:
        Schema(Schema.NUMBER, constraints=[constraints.Length(min=1)])
    assert str(err.value) == "Length constraint invalid for Number"
    with pytest.raises(exception.InvalidSchemaError, match="Invalid default"):
        Schema(
            Schema.INTEGER, default=9, constraints=[constraints.Range(1, 5)]
        )


def test_legacy_schema():
    schema = Schema.from_legacy(
        {"Type": "String", "AllowedValues": ["a", "b"], "Required": True}
    )
    assert schema.required
    assert dict(schema)["constraints"] == [{"allowed_values": ["a", "b"]}]
    with pytest.raises(exception.InvalidSchemaError, match="Unknown key"):
        Schema.from_legacy({"Type": "String", "Bogus": 1})


def _props(schema, data):
    return properties.Properties(schema, data, section="Properties")


@pytest.mark.parametrize(
    ("kind", "raw", "value"),
    [
        (Schema.INTEGER, "4", 4),
        (Schema.NUMBER, "2.5", 2.5),
        (Schema.STRING, 7, "7"),
        (Schema.BOOLEAN, "TRUE", True),
        (Schema.LIST, ("a",), ["a"]),
        (Schema.MAP, {"k": 1}, {"k": 1}),
        (Schema.ANY, [1, {"a": 2}], [1, {"a": 2}]),
    ],
)
def test_values_are_converted(kind, raw, value):
    props = _props({"p": Schema(kind)}, {"p": raw})
    props.validate()
    assert props["p"] == value


@pytest.mark.parametrize(
    ("schema", "data", "message"),
    [
        (
            {"p": Schema(Schema.INTEGER)},
            {"p": "x"},
            "Property error: Properties.p: Value 'x' is not an integer",
        ),
        (
            {"p": Schema(Schema.STRING, required=True)},
            {},
            "Property error: Properties: Property p not assigned",
        ),
        (
            {"p": Schema(Schema.STRING)},
            {"q": "x"},
            "Property error: Properties: Unknown Property q",
        ),
        (
            {"p": Schema(Schema.BOOLEAN)},
            {"p": "maybe"},
            'Property error: Properties.p: "maybe" is not a valid boolean',
        ),
        (
            {"p": Schema(Schema.MAP)},
            {"p": "x"},
            'Property error: Properties.p: "x" is not a map',
        ),
        (
            {"p": Schema(Schema.LIST)},
            {"p": "x"},
            "Property error: Properties.p: \"'x'\" is not a list",
        ),
        (
            {
                "p": Schema(
                    Schema.LIST,
                    schema=Schema(
                        Schema.MAP,
                        schema={"n": Schema(Schema.INTEGER, required=True)},
                    ),
                )
            },
            {"p": [{"n": 1}, {}]},
            "Property error: Properties.p[1]: Property n not assigned",
        ),
        (
            {
                "p": Schema(
                    Schema.INTEGER, constraints=[constraints.Range(1, 3)]
                )
            },
            {"p": 5},
            "Property error: Properties.p: 5 is out of range (min: 1, max: 3)",
        ),
    ],
)
def test_validation_messages(schema, data, message):
    with pytest.raises(exception.StackValidationFailed) as err:
        _props(schema, data).validate()
    assert str(err.value) == message


def test_defaults_and_unset_values():
    schema = {
        "a": Schema(Schema.INTEGER, default=3),
        "b": Schema(Schema.STRING),
        "c": Schema(
            Schema.MAP,
            schema={"x": Schema(Schema.STRING, default="d")},
        ),
    }
    props = _props(schema, {"c": {}})
    assert props["a"] == 3
    assert props["b"] is None
    assert props["c"] == {"x": "d"}


def test_not_implemented_property_refused():
    schema = {"p": Schema(Schema.STRING, implemented=False)}
    with pytest.raises(exception.StackValidationFailed) as err:
        _props(schema, {"p": "x"}).validate()
    assert "Property p not implemented yet" in str(err.value)


def test_resolver_is_applied():
    props = properties.Properties(
        {"p": Schema(Schema.STRING)},
        {"p": {"fn": "x"}},
        resolver=lambda v: v["fn"].upper() if isinstance(v, dict) else v,
    )
    assert props["p"] == "X"


def test_visible_schemata_hide_hidden_and_unimplemented():
    hidden = support.SupportStatus(status=support.HIDDEN)
    visible = properties.visible_schemata(
        {
            "a": Schema(Schema.STRING),
            "b": Schema(Schema.STRING, support_status=hidden),
            "c": Schema(Schema.STRING, implemented=False),
        }
    )
    assert list(visible) == ["a"]
