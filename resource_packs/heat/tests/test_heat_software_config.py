"""Software configs: SoftwareConfig, StructuredConfig, CloudConfig,
MultipartMime, SoftwareComponent."""

from __future__ import annotations

import email

import pytest
import yaml
from keel_heat_pack_heat.cloud_config import CloudConfig
from keel_heat_pack_heat.multipart_mime import MultipartMime
from keel_heat_pack_heat.software_component import SoftwareComponent
from keel_heat_pack_heat.software_config import (
    SoftwareConfig,
    StructuredConfig,
)

from keel_heat_core import exception
from keel_heat_core.testing import driver as drv


def test_software_config_lifecycle(resource_driver, engine_rpc):
    res = resource_driver.resource(
        "cfg",
        SoftwareConfig,
        {
            "group": "script",
            "config": "#!/bin/sh\necho hi",
            "inputs": [{"name": "foo"}],
            "outputs": [{"name": "result", "error_output": True}],
        },
    )
    resource_driver.create(res)
    stored = engine_rpc.configs[res.resource_id]
    assert stored["name"] == res.physical_resource_name()
    assert stored["group"] == "script"
    (sent,) = [k for n, k in engine_rpc.calls if n == "create_software_config"]
    assert sent["inputs"] == [
        {
            "name": "foo",
            "description": None,
            "type": "String",
            "default": None,
            "replace_on_change": False,
        }
    ]
    # the engine stores them in its own normal form
    assert stored["inputs"] == [
        {"name": "foo", "description": "", "type": "String", "default": ""}
    ]
    assert stored["outputs"][0]["error_output"] is True
    assert res.FnGetAtt("config") == "#!/bin/sh\necho hi"
    # A config is immutable: any change replaces it.
    assert resource_driver.update(res, {"config": "x"}) == drv.REPLACE
    resource_driver.delete(res)
    assert engine_rpc.configs == {}
    assert res.FnGetAtt("config") is None
    resource_driver.delete(res)  # already gone: fine


def test_structured_config(resource_driver, engine_rpc):
    res = resource_driver.resource(
        "cfg", StructuredConfig, {"config": {"a": {"get_input": "x"}}}
    )
    resource_driver.create(res)
    assert engine_rpc.configs[res.resource_id]["config"] == {
        "a": {"get_input": "x"}
    }


def test_cloud_config(resource_driver, engine_rpc):
    res = resource_driver.resource(
        "cc", CloudConfig, {"cloud_config": {"packages": ["vim"]}}
    )
    resource_driver.create(res)
    config = engine_rpc.configs[res.resource_id]["config"]
    assert config.startswith("#cloud-config\n")
    assert yaml.safe_load(config) == {"packages": ["vim"]}
    assert engine_rpc.configs[res.resource_id]["group"] == "Heat::Ungrouped"


def test_multipart_mime(resource_driver, engine_rpc):
    inner = resource_driver.resource(
        "inner", SoftwareConfig, {"config": "#!/bin/sh\necho inner"}
    )
    resource_driver.create(inner)
    res = resource_driver.resource(
        "mime",
        MultipartMime,
        {
            "parts": [
                {"config": inner.resource_id},
                {"config": "plain text", "filename": "notes.txt"},
                {"config": "#cloud-config\n{}", "subtype": "cloud-config"},
            ]
        },
    )
    resource_driver.create(res)
    message = email.message_from_string(
        engine_rpc.configs[res.resource_id]["config"]
    )
    parts = message.get_payload()
    assert [p.get_payload() for p in parts] == [
        "#!/bin/sh\necho inner",
        "plain text",
        "#cloud-config\n{}",
    ]
    assert parts[1].get_filename() == "notes.txt"
    assert parts[1].get_content_subtype() == "notes"
    assert parts[2].get_content_type() == "text/cloud-config"


def test_multipart_of_multipart(resource_driver, engine_rpc):
    first = resource_driver.resource(
        "first", MultipartMime, {"parts": [{"config": "a"}, {"config": "b"}]}
    )
    resource_driver.create(first)
    res = resource_driver.resource(
        "mime",
        MultipartMime,
        {
            "parts": [
                {"config": first.resource_id, "type": "multipart"},
                {"config": "c"},
            ]
        },
    )
    resource_driver.create(res)
    message = email.message_from_string(
        engine_rpc.configs[res.resource_id]["config"]
    )
    assert [p.get_payload() for p in message.get_payload()] == ["a", "b", "c"]


def test_software_component(resource_driver, engine_rpc):
    configs = [
        {"actions": ["CREATE"], "config": "c", "tool": "script"},
        {"actions": ["DELETE"], "config": "d", "tool": "script"},
    ]
    res = resource_driver.resource(
        "comp", SoftwareComponent, {"configs": configs}
    )
    resource_driver.create(res)
    stored = engine_rpc.configs[res.resource_id]
    assert stored["group"] == "component"
    assert stored["config"] == {"configs": configs}
    assert res.FnGetAtt("config") == configs


def test_software_component_one_config_per_action(resource_driver):
    res = resource_driver.resource(
        "comp",
        SoftwareComponent,
        {"configs": [{"tool": "a"}, {"actions": ["UPDATE"], "tool": "b"}]},
    )
    with pytest.raises(exception.StackValidationFailed) as err:
        res.validate()
    assert str(err.value) == (
        "Defining more than one configuration for the same action in "
        'SoftwareComponent "comp" is not allowed.'
    )
