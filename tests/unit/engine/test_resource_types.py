import pytest

from keel_heat_core import exception
from keel_heat_core.service import resource_types as rt


def test_listing_filters_and_descriptions() -> None:
    names = rt.list_resource_types()
    assert "OS::Heat::None" in names
    assert names == sorted(names)
    assert rt.list_resource_types(type_name="OS::Heat::Test") == [
        "OS::Heat::TestResource"
    ]
    (entry,) = rt.list_resource_types(
        type_name="OS::Heat::None$", with_description=True
    )
    assert entry["resource_type"] == "OS::Heat::None"
    assert entry["description"]


def test_schema_and_generated_template() -> None:
    schema = rt.resource_schema("OS::Heat::TestResource")
    assert schema["resource_type"] == "OS::Heat::TestResource"
    assert "value" in schema["properties"]
    assert "output" in schema["attributes"]
    hot = rt.generate_template("OS::Heat::TestResource", "hot")
    assert "heat_template_version" in hot
    with pytest.raises(exception.EntityNotFound, match="Resource Type"):
        rt.resource_schema("OS::Not::There")


def test_template_functions() -> None:
    names = {
        f["functions"]
        for f in rt.list_template_functions("heat_template_version.2021-04-16")
    }
    assert {"get_attr", "get_resource", "str_replace"} <= names
    with pytest.raises(exception.NotFound, match="not found"):
        rt.list_template_functions("heat_template_version.1999-01-01")
