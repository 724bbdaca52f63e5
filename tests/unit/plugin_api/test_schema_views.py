"""Resource-type listing and show filters."""

from __future__ import annotations

import pytest

from keel_heat_core import exception
from keel_heat_core.plugin_api import schema_views, support
from keel_heat_core.plugin_api.resource import Resource


class Old(Resource):
    """Old thing."""

    support_status = support.SupportStatus(
        status=support.DEPRECATED, version="5.0.0"
    )


class New(Resource):
    """New thing."""

    support_status = support.SupportStatus(version="9.0.0")


class Gone(Resource):
    support_status = support.SupportStatus(status=support.HIDDEN)


TYPES = {"OS::Old": Old, "OS::New": New, "OS::Gone": Gone, "AWS::New": New}


def test_hidden_types_never_listed():
    assert schema_views.list_types(TYPES) == ["OS::Old", "OS::New", "AWS::New"]
    with pytest.raises(exception.NotSupported) as err:
        schema_views.ensure_visible(Gone, "OS::Gone")
    assert str(err.value) == "OS::Gone is not supported."
    schema_views.ensure_visible(New, "OS::New")


def test_filters():
    assert schema_views.list_types(TYPES, support_status="DEPRECATED") == [
        "OS::Old"
    ]
    assert schema_views.list_types(TYPES, type_name="OS::") == [
        "OS::Old",
        "OS::New",
    ]
    assert schema_views.list_types(TYPES, type_name="[") == []
    assert schema_views.list_types(TYPES, version="9.0.0") == [
        "OS::New",
        "AWS::New",
    ]
    assert schema_views.list_types(
        TYPES, available=lambda name, cls: cls is not Old
    ) == ["OS::New", "AWS::New"]
    assert schema_views.list_types(
        TYPES, allowed=lambda name: name.startswith("AWS")
    ) == ["AWS::New"]
    assert schema_views.list_types(
        TYPES, type_name="OS::Old", with_description=True
    ) == [{"resource_type": "OS::Old", "description": "Old thing."}]


def test_bad_support_status():
    with pytest.raises(exception.Invalid) as err:
        schema_views.list_types(TYPES, support_status="NOPE")
    assert "Invalid support status and should be one of" in str(err.value)


def test_show_and_template_errors():
    with pytest.raises(exception.EntityNotFound) as err:
        schema_views.show_type(TYPES, "OS::No::Such")
    assert str(err.value) == (
        "The Resource Type (OS::No::Such) could not be found."
    )
    with pytest.raises(exception.NotSupported):
        schema_views.type_template(TYPES, "OS::Gone", "hot")
    assert (
        schema_views.show_type(TYPES, "OS::New")["support_status"]["version"]
        == "9.0.0"
    )
    assert "HeatTemplateFormatVersion" in schema_views.type_template(
        TYPES, "OS::Old"
    )
