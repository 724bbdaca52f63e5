"""``validate_template`` of the engine (no database is touched)."""

from __future__ import annotations

from typing import Any

import pytest
from oslo_config import cfg

from keel_heat_core import conf as keel_conf
from keel_heat_core import exception
from keel_heat_core.context import RequestContext
from keel_heat_core.service.stack_api import StackAPI
from keel_heat_core.service.type_discovery import (
    ResourceTypes,
    ServiceAvailability,
)
from keel_heat_core.service.validate_preview import ValidatePreview

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2021-04-16",
    "description": "demo",
    "parameter_groups": [{"label": "g", "parameters": ["size"]}],
    "parameters": {
        "size": {"type": "number", "default": 3},
        "name": {"type": "string", "hidden": True},
    },
    "resources": {
        "v": {"type": "OS::Heat::Value", "properties": {"value": 1}},
        "r": {
            "type": "OS::Heat::RandomString",
            "properties": {"length": {"get_param": "size"}},
        },
    },
}


def _checks(availability: ServiceAvailability | None = None) -> Any:
    conf = cfg.ConfigOpts()
    keel_conf.register_opts(conf)
    conf([], default_config_files=[])
    api = StackAPI(conf, None, None, None)  # type: ignore[arg-type]
    return ValidatePreview(api, ResourceTypes(conf, availability=availability))


@pytest.fixture
def ctxt() -> RequestContext:
    return RequestContext(user_id="u", project_id="p", roles=["member"])


def test_result_shape(ctxt):
    result = _checks().validate_template(ctxt, TEMPLATE, {})
    assert list(result) == [
        "Description",
        "Parameters",
        "ParameterGroups",
        "Environment",
    ]
    assert result["Description"] == "demo"
    assert result["Parameters"]["size"]["Type"] == "Number"
    assert result["Parameters"]["name"]["NoEcho"] == "true"
    assert result["Environment"]["parameters"] == {}


def test_values_are_not_checked(ctxt):
    """Non-strict: a missing parameter value is fine for validate."""
    result = _checks().validate_template(ctxt, TEMPLATE, {"parameters": {}})
    assert "Error" not in result


def test_errors_come_back_as_error(ctxt):
    bad = dict(TEMPLATE, resources={"x": {"type": "OS::No::Such"}})
    result = _checks().validate_template(ctxt, bad, {})
    assert result == {
        "Error": "The Resource Type (OS::No::Such) could not be found."
    }
    bad = dict(
        TEMPLATE,
        resources={
            "x": {"type": "OS::Heat::Value", "properties": {"bogus": 1}}
        },
    )
    result = _checks().validate_template(ctxt, bad, {})
    assert result["Error"].startswith("Property error: resources.x")
    assert "Unknown Property bogus" in result["Error"]
    assert _checks().validate_template(ctxt, None) == {
        "Error": "No Template provided."
    }
    result = _checks().validate_template(
        ctxt, TEMPLATE, {}, ignorable_errors=["12345"]
    )
    assert result == {"Error": "Invalid codes in ignore_errors : ['12345']"}


def test_environment_files_merge_in_order(ctxt):
    files = {
        "a.yaml": "parameters:\n  size: 5\n",
        "b.yaml": "parameters:\n  size: 7\n",
    }
    result = _checks().validate_template(
        ctxt,
        TEMPLATE,
        {"parameters": {"size": 1}},
        files=files,
        environment_files=["a.yaml", "b.yaml"],
    )
    assert result["Parameters"]["size"]["Value"] == 7
    assert result["Environment"]["parameters"]["size"] == 7


def test_missing_service_can_be_ignored(ctxt):
    class Missing:
        @classmethod
        def is_available(cls, context):
            return False

    template = {
        "heat_template_version": "2021-04-16",
        "resources": {
            "role": {
                "type": "OS::Keystone::Role",
                "properties": {"name": "r"},
            }
        },
    }
    checks = _checks(ServiceAvailability({"keystone": Missing}))
    with pytest.raises(exception.ResourceTypeUnavailable) as err:
        checks.validate_template(ctxt, template, {})
    assert str(err.value).startswith(
        "HEAT-E99001 Service keystone is not available for resource type "
        "OS::Keystone::Role"
    )
    ignored = checks.validate_template(
        ctxt, template, {}, ignorable_errors=["99001"]
    )
    assert "Error" not in ignored
    assert ignored["Parameters"] == {}


def test_template_resource_from_files(ctxt):
    child = (
        "heat_template_version: 2021-04-16\n"
        "parameters:\n  size: {type: number}\n"
        "resources: {}\n"
    )
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {"c": {"type": "child.yaml"}},
    }
    ok = _checks().validate_template(
        ctxt, template, {}, files={"child.yaml": child}
    )
    assert "Error" not in ok, ok
    broken = _checks().validate_template(
        ctxt, template, {}, files={"child.yaml": "resources: ["}
    )
    assert "Error" in broken


def test_unknown_attribute_in_outputs(ctxt):
    template = dict(
        TEMPLATE,
        outputs={"o": {"value": {"get_attr": ["v", "nope"]}}},
    )
    result = _checks().validate_template(ctxt, template, {})
    assert result == {
        "Error": "outputs.o.value.get_attr: The Referenced Attribute "
        "(v nope) is incorrect."
    }
    template["outputs"] = {"o": {"value": {"get_attr": ["v", "value"]}}}
    assert "Error" not in _checks().validate_template(ctxt, template, {})
