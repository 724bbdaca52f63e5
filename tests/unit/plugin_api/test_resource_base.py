"""The Resource base: names, references, attributes, updates, data."""

from __future__ import annotations

import uuid

import pytest

from keel_heat_core import exception
from keel_heat_core.plugin_api import (
    attributes,
    physical_name,
    schema_views,
    support,
)
from keel_heat_core.plugin_api import properties as props
from keel_heat_core.plugin_api.resource import Resource
from keel_heat_core.testing import driver as drv
from keel_heat_core.testing.driver import ResourceDriver
from keel_heat_core.testing.generic_resources import (
    GenericResource,
    ResourceWithComplexAttributes,
    ResourceWithHiddenPropertyAndAttribute,
)

Schema = props.Schema


class Thing(Resource):
    """A thing for tests."""

    support_status = support.SupportStatus(version="1.0.0")
    properties_schema = {
        "size": Schema(Schema.INTEGER, default=1, update_allowed=True),
        "name": Schema(Schema.STRING),
        "frozen": Schema(Schema.STRING, immutable=True),
    }
    attributes_schema = {
        "double": attributes.Schema("Twice the size."),
    }

    def handle_create(self):
        self.resource_id_set("phys-1")

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )

    def _resolve_attribute(self, name):
        return self.properties["size"] * 2


@pytest.fixture
def driver():
    return ResourceDriver()


def test_short_id_and_physical_name():
    u = uuid.UUID("0e3a2ab1-9f01-4d42-a8b0-2e5a8c3a1f10")
    assert physical_name.short_id(u) == "2qu7aehdukvr"
    with pytest.raises(ValueError, match="Invalid UUID version"):
        physical_name.short_id(uuid.uuid1())
    long_name = "x" * 300
    reduced = physical_name.reduce_physical_resource_name(long_name, 255)
    assert len(reduced) == 255
    assert reduced.startswith("xx-")
    assert physical_name.physical_resource_name("s*", "r", str(u), 255) == (
        "s-r-2qu7aehdukvr"
    )


def test_lifecycle_reference_and_attributes(driver):
    res = driver.resource("t", Thing, {"size": 3})
    assert res.physical_resource_name() is None
    assert res.get_reference_id() == "t"
    assert res.FnGetAtt("double") is None  # not created yet
    driver.create(res)
    assert res.state == ("CREATE", "COMPLETE")
    assert res.get_reference_id() == "phys-1"
    assert res.FnGetAtt("double") == 6
    assert res.FnGetAtt("show") is None  # no entity
    with pytest.raises(exception.InvalidTemplateAttribute):
        res.FnGetAtt("nope")


def test_update_decisions(driver):
    res = driver.resource("t", Thing, {"size": 3, "name": "a"})
    driver.create(res)
    assert driver.update(res, {"size": 3, "name": "a"}) == drv.NO_CHANGE
    assert driver.update(res, {"size": 4, "name": "a"}) == drv.UPDATED
    assert res.properties["size"] == 4
    assert driver.update(res, {"size": 4, "name": "b"}) == drv.REPLACE
    with pytest.raises(exception.NotSupported) as err:
        driver.update(res, {"size": 4, "name": "a", "frozen": "x"})
    assert str(err.value) == (
        "Update to properties frozen of t (Thing) is not supported."
    )


def test_failed_resource_is_replaced(driver):
    res = driver.resource("t", Thing)
    driver.create(res)
    res.status = res.FAILED
    assert driver.update(res, {}) == drv.REPLACE


def test_metadata_and_data(driver):
    res = driver.resource("t", Thing, metadata={"m": 1})
    assert res.metadata_get() == {"m": 1}
    with pytest.raises(exception.ResourceNotAvailable):
        res.metadata_set({"x": 1})
    driver.create(res)
    res.metadata_set({"x": 1})
    assert res.metadata_get(refresh=True) == {"x": 1}

    def merge(new, latest):
        return {**latest, **new}

    res.metadata_set({"y": 2}, merge_metadata=merge)
    assert res.metadata_get(refresh=True) == {"x": 1, "y": 2}
    res.data_set("k", "v", redact=True)
    assert res.data() == {"k": "v"}
    assert res.data_delete("k") is True
    assert res.data_delete("k") is False


def test_deletion_policy_validation(driver):
    res = driver.resource("t", Thing, deletion_policy="Snapshot")
    with pytest.raises(exception.StackValidationFailed) as err:
        res.validate()
    assert str(err.value) == (
        'resources.t.deletion_policy: "Snapshot" deletion policy not supported'
    )
    res = driver.resource("u", Thing, deletion_policy="Bogus")
    with pytest.raises(exception.StackValidationFailed, match="Invalid"):
        res.validate()


def test_complex_attribute_paths(driver):
    res = driver.resource("c", ResourceWithComplexAttributes)
    driver.create(res)
    assert res.FnGetAtt("list", 1) == "bar"
    assert res.FnGetAtt("nested_dict", "dict", "b") == 2
    assert res.FnGetAtt("nested_dict", "list", 7) is None
    assert res.FnGetAtt("flat_dict", "missing") is None


def test_schema_view_hides_hidden():
    view = schema_views.resource_schema(
        ResourceWithHiddenPropertyAndAttribute, "X::Y", with_description=True
    )
    assert list(view["properties"]) == ["supported"]
    assert sorted(view["attributes"]) == ["show", "supported"]
    assert view["description"].startswith("A hidden property")
    template = schema_views.generate_template(GenericResource, "G", "hot")
    assert template["resources"] == {
        "GenericResource": {"type": "G", "properties": {}}
    }
    assert template["outputs"]["OS::stack_id"] == {
        "value": {"get_resource": "GenericResource"}
    }


def test_verify_check_conditions(driver):
    res = driver.resource("t", Thing)
    res._verify_check_conditions(
        [{"attr": "a", "expected": ["x", "y"], "current": "y"}]
    )
    with pytest.raises(exception.Error) as err:
        res._verify_check_conditions(
            [
                {"attr": "a", "expected": "x", "current": "z"},
                {"attr": "b", "expected": 1, "current": 2},
            ]
        )
    assert str(err.value) == (
        "'a': expected 'x', got 'z'; 'b': expected '1', got '2'"
    )


def test_validation_errors_carry_the_resource_path(driver):
    res = driver.resource("r", Thing, {"bogus": 1})
    with pytest.raises(exception.StackValidationFailed) as err:
        res.validate()
    assert str(err.value) == (
        "Property error: resources.r.properties: Unknown Property bogus"
    )
    driver.stack.t.family = "cfn"
    res = driver.resource("r", Thing, {"size": "x"})
    with pytest.raises(exception.StackValidationFailed) as err:
        res.validate()
    assert str(err.value) == (
        "Property error: Resources.r.Properties.size: "
        "Value 'x' is not an integer"
    )


def test_signal_event_reason():
    from keel_heat_core.plugin_api.lifecycle import signal_event_reason

    assert signal_event_reason(None, "done") == "Signal: done"
    assert signal_event_reason(None, None) == "No signal details provided"
    assert signal_event_reason("text", None) == "text"
    assert (
        signal_event_reason(
            {"previous": "ok", "current": "alarm", "reason": "cpu"}, None
        )
        == "alarm state changed from ok to alarm (cpu)"
    )
    assert signal_event_reason({"a": 1}, None) == "Unknown"
