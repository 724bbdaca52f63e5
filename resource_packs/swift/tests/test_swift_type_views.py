"""Each Swift type shows the same schema and templates as Heat 27.

Heat's answers (``data/heat27_swift_types.json``) are compared with our
resource-type show and generated HOT and CFN templates, leaving out the
description texts, which are ours.
"""

from __future__ import annotations

import importlib
import json
import pathlib
import tomllib
from typing import Any

import pytest

from keel_heat_core.plugin_api import schema_views
from keel_heat_core.testing import schema_compare

HERE = pathlib.Path(__file__).parent
HEAT = json.loads((HERE / "data" / "heat27_swift_types.json").read_text())
PYPROJECT = tomllib.loads((HERE.parent / "pyproject.toml").read_text())
ENTRY_POINTS: dict[str, str] = PYPROJECT["project"]["entry-points"][
    "keel_heat.resources"
]
TYPES = sorted(ENTRY_POINTS)


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def test_every_swift_type_is_ported() -> None:
    assert sorted(HEAT) == TYPES
    assert all(HEAT[t]["service"]["client_plugin"] == "swift" for t in TYPES)


@pytest.mark.parametrize("type_name", TYPES)
def test_schema_matches_heat(type_name: str) -> None:
    cls = _load(ENTRY_POINTS[type_name])
    problems = schema_compare.schema_differences(
        cls, type_name, HEAT[type_name]["schema"]
    )
    assert problems == []


@pytest.mark.parametrize("template_type", ["hot", "cfn"])
@pytest.mark.parametrize("type_name", TYPES)
def test_template_matches_heat(type_name: str, template_type: str) -> None:
    cls = _load(ENTRY_POINTS[type_name])
    problems = schema_compare.template_differences(
        cls,
        type_name,
        template_type,
        HEAT[type_name]["template"][template_type],
    )
    assert problems == []


@pytest.mark.parametrize("type_name", TYPES)
def test_class_facts_match_heat(type_name: str) -> None:
    cls = _load(ENTRY_POINTS[type_name])
    heat = HEAT[type_name]
    assert cls.default_client_name == heat["default_client_name"]
    assert cls.entity == heat["entity"]
    assert cls.required_service_extension is None


def test_descriptions_are_ours() -> None:
    for type_name, target in ENTRY_POINTS.items():
        cls = _load(target)
        ours = schema_views.resource_schema(cls, type_name, True)
        assert ours["description"]
        assert ours["description"] != HEAT[type_name]["description"]
        heat = HEAT[type_name]["schema"]
        for name, prop in ours["properties"].items():
            theirs = heat["properties"][name].get("description")
            assert prop["description"] != theirs, (type_name, name)
        for name, attr in ours["attributes"].items():
            if name == "show":
                continue
            theirs = heat["attributes"][name].get("description")
            assert attr["description"] != theirs, (type_name, name)
