"""Template versions against the tables taken from Heat 27."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from keel_heat_core import exception
from keel_heat_core.template import function, versions

DATA = Path(__file__).parents[2] / "conformance" / "data"
HEAT = json.loads((DATA / "template_versions.json").read_text())
# Our class names where they differ from Heat's.
SAME_AS = {"CfnNot": "Not"}


def _heat_name(path: str) -> str:
    return path.rsplit(":", 1)[1]


def _our_name(fn: Any) -> str:
    name = getattr(fn, "__name__", type(fn).__name__)
    return SAME_AS.get(name, name)


def test_entry_points_registered() -> None:
    names = {ep.name for ep in metadata.entry_points(group=versions.GROUP)}
    assert names == set(versions.builtin_versions())
    assert len(names) == 19


def test_list_versions_matches_heat() -> None:
    assert versions.list_versions() == HEAT["api_list_template_versions"]


@pytest.mark.parametrize("name", sorted(HEAT["versions"]))
def test_function_tables(name: str) -> None:
    heat = HEAT["versions"][name]
    cls = versions.template_classes()[name]
    ours = {k: _our_name(v) for k, v in cls.functions.items()}
    assert ours == {k: _heat_name(v) for k, v in heat["functions"].items()}
    conditions = {
        k: _our_name(v)
        for k, v in cls.condition_functions.items()
        if v not in (function.Invalid, function.Removed)
    }
    expected = {
        k: _heat_name(v) for k, v in heat["condition_functions"].items()
    }
    assert conditions == expected


@pytest.mark.parametrize("name", sorted(HEAT["versions"]))
def test_function_listing(name: str) -> None:
    heat = HEAT["versions"][name]
    cls = versions.template_classes()[name]
    assert cls.function_descriptions() == heat["api_list_functions"]
    assert (
        cls.function_descriptions(with_condition=True)
        == heat["api_list_functions_with_condition"]
    )


@pytest.mark.parametrize("name", sorted(HEAT["versions"]))
def test_sections(name: str) -> None:
    heat = HEAT["versions"][name]
    cls = versions.template_classes()[name]
    assert sorted(cls.SECTIONS) == sorted(heat["sections"])


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({}, "Template version was not provided"),
        ({"heat_template_version": 2013}, "Template version was not provided"),
        (
            {"AWSTemplateFormatVersion": "2011-01-01"},
            '"AWSTemplateFormatVersion: 2011-01-01". '
            '"AWSTemplateFormatVersion" should be: 2010-09-09',
        ),
        (
            {"heat_template_version": "2099-01-01"},
            '"heat_template_version: 2099-01-01". "heat_template_version" '
            "should be one of: 2013-05-23, 2014-10-16, 2015-04-30, "
            "2015-10-15, 2016-04-08, 2016-10-14, 2017-02-24, 2017-09-01, "
            "2018-03-02, 2018-08-31, 2021-04-16, newton, ocata, pike, "
            "queens, rocky, wallaby",
        ),
    ],
)
def test_bad_versions(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(exception.InvalidTemplateVersion) as err:
        versions.load(doc)
    assert str(err.value) == f"The template version is invalid: {message}"


def test_ambiguous_version() -> None:
    doc = {
        "heat_template_version": "2016-10-14",
        "HeatTemplateFormatVersion": "2012-12-12",
    }
    with pytest.raises(exception.InvalidTemplateVersion) as err:
        versions.load(doc)
    assert "Ambiguous versions (" in str(err.value)


def test_alias_gives_same_class() -> None:
    a = versions.load({"heat_template_version": "wallaby"})
    b = versions.load({"heat_template_version": "2021-04-16"})
    assert type(a) is type(b)
