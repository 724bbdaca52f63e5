"""OS::Heat::ResourceChain."""

from __future__ import annotations

import pytest
from keel_heat_pack_heat.resource_chain import ResourceChain

from keel_heat_core import exception
from keel_heat_core.testing import driver as drv


def test_chain_template(resource_driver, engine_rpc):
    resource_driver.stack.attr_references["chain"] = [
        "value",
        "resource.1.value",
    ]
    chain = resource_driver.resource(
        "chain",
        ResourceChain,
        {
            "resources": ["OS::Heat::Value", "OS::Heat::Value"],
            "resource_properties": {"value": "v"},
        },
    )
    resource_driver.create(chain)
    tmpl = engine_rpc.stacks[chain.resource_id]["template"]
    assert tmpl["resources"] == {
        "0": {"type": "OS::Heat::Value", "properties": {"value": "v"}},
        "1": {
            "type": "OS::Heat::Value",
            "properties": {"value": "v"},
            "depends_on": ["0"],
        },
    }
    assert tmpl["outputs"]["value"]["value"] == [
        {"get_attr": ["0", "value"]},
        {"get_attr": ["1", "value"]},
    ]
    assert tmpl["outputs"]["resource.1.value"]["value"] == {
        "get_attr": ["1", "value"]
    }
    engine_rpc.set_outputs(
        chain.resource_id,
        {"refs": ["a", "b"], "value": ["v", "v"], "resource.1.value": "v"},
    )
    assert chain.FnGetAtt("refs") == ["a", "b"]
    assert chain.FnGetAtt("refs", 0) == "a"
    assert chain.FnGetAtt("resource.1") == "b"
    assert chain.FnGetAtt("value") == ["v", "v"]
    assert chain.FnGetAtt("resource.1.value") == "v"
    with pytest.raises(exception.InvalidTemplateAttribute):
        chain.FnGetAtt("attributes")


def test_concurrent_chain_and_update(resource_driver, engine_rpc):
    chain = resource_driver.resource(
        "chain",
        ResourceChain,
        {"resources": ["A", "B"], "concurrent": True},
    )
    resource_driver.create(chain)
    resources = engine_rpc.stacks[chain.resource_id]["template"]["resources"]
    assert "depends_on" not in resources["1"]
    assert (
        resource_driver.update(
            chain, {"resources": ["A", "B", "C"], "concurrent": True}
        )
        == drv.UPDATED
    )
    resources = engine_rpc.stacks[chain.resource_id]["template"]["resources"]
    assert sorted(resources) == ["0", "1", "2"]
    # concurrent cannot change in place
    assert (
        resource_driver.update(
            chain, {"resources": ["A"], "concurrent": False}
        )
        == drv.REPLACE
    )
