"""Fuzzing the parser and the validator (hypothesis).

Random and mutated templates must give either a stack definition that
validates, or one of Heat's exception classes; never another exception.
Parsing text may also raise ``ValueError`` (heat-api's "Template not in
valid format").
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keel_heat_core import exception
from keel_heat_core.template import format as template_format
from keel_heat_core.template import validation, versions
from keel_heat_core.template.stack_definition import StackDefinition

FUNCTIONS = [
    "get_param",
    "get_resource",
    "get_attr",
    "get_file",
    "list_join",
    "str_replace",
    "str_replace_strict",
    "str_replace_vstrict",
    "repeat",
    "digest",
    "str_split",
    "map_merge",
    "map_replace",
    "yaql",
    "if",
    "equals",
    "not",
    "and",
    "or",
    "filter",
    "make_url",
    "list_concat",
    "list_concat_unique",
    "contains",
    "resource_facade",
    "Fn::FindInMap",
    "Fn::GetAZs",
    "Ref",
    "Fn::GetAtt",
    "Fn::Select",
    "Fn::Join",
    "Fn::Split",
    "Fn::Replace",
    "Fn::Base64",
    "Fn::MemberListToMap",
    "Fn::ResourceFacade",
    "Fn::If",
    "Fn::Equals",
    "Fn::Not",
    "Fn::And",
    "Fn::Or",
]
VERSIONS = [
    ("heat_template_version", v)
    for v in (
        "2013-05-23",
        "2015-04-30",
        "2016-10-14",
        "2017-09-01",
        "2021-04-16",
        "wallaby",
        "2099-01-01",
    )
] + [
    ("AWSTemplateFormatVersion", "2010-09-09"),
    ("HeatTemplateFormatVersion", "2012-12-12"),
]
NAMES = st.sampled_from(["r1", "r2", "c1", "p", "value", "show", "x", "1"])
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 70000),
    NAMES,
    st.text(max_size=6),
)


def _snippets() -> st.SearchStrategy[Any]:
    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(NAMES, children, max_size=3),
            st.builds(
                lambda f, a: {f: a}, st.sampled_from(FUNCTIONS), children
            ),
        )

    return st.recursive(scalars, extend, max_leaves=12)


snippets = _snippets()
RESOURCE_KEYS = st.sampled_from(
    [
        "type",
        "properties",
        "metadata",
        "depends_on",
        "deletion_policy",
        "update_policy",
        "condition",
        "external_id",
        "description",
        "Type",
        "Properties",
        "DependsOn",
        "Condition",
        "bogus",
    ]
)


@st.composite
def templates(draw: Any) -> dict[str, Any]:
    key, value = draw(st.sampled_from(VERSIONS))
    hot = key == "heat_template_version"
    doc: dict[str, Any] = {key: value}
    resources = draw(
        st.dictionaries(
            NAMES,
            st.one_of(
                st.dictionaries(RESOURCE_KEYS, snippets, max_size=4).map(
                    lambda d: {
                        "type" if hot else "Type": "OS::Heat::None",
                        **d,
                    }
                ),
                snippets,
            ),
            max_size=3,
        )
    )
    outputs = draw(
        st.one_of(
            st.dictionaries(
                NAMES,
                st.one_of(
                    st.builds(
                        lambda v: {"value" if hot else "Value": v}, snippets
                    ),
                    snippets,
                ),
                max_size=3,
            ),
            snippets,
        )
    )
    sections = {
        ("resources" if hot else "Resources"): resources,
        ("outputs" if hot else "Outputs"): outputs,
        ("conditions" if hot else "Conditions"): draw(snippets),
        ("Mappings" if not hot else "bogus"): draw(snippets),
    }
    for name, section in sections.items():
        if draw(st.booleans()):
            doc[name] = section
    return doc


def run_pipeline(doc: Any, params: dict[str, Any]) -> None:
    """Load, validate and show a template; Heat errors are fine."""
    try:
        tmpl = versions.load(doc)
        defn = StackDefinition(tmpl, params)
        validation.validate_stack(defn)
    except exception.HeatException:
        return
    values, errors = validation.resolve_outputs(defn)
    assert set(values).isdisjoint(errors)


FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@FUZZ
@given(doc=templates(), params=st.dictionaries(NAMES, scalars, max_size=3))
def test_random_templates(doc: dict[str, Any], params: dict[str, Any]) -> None:
    run_pipeline(doc, params)


SEED = """\
heat_template_version: 2021-04-16
parameters:
  p: {type: string, default: abc}
conditions:
  c1: {equals: [{get_param: p}, abc]}
resources:
  r1:
    type: OS::Heat::None
    properties:
      a: {list_join: [',', [a, {get_param: p}]]}
  r2:
    type: OS::Heat::None
    depends_on: r1
    condition: c1
    properties:
      b: {get_attr: [r1, show]}
outputs:
  o: {value: {str_replace: {template: x$y, params: {$y: {get_resource: r2}}}}}
  q:
    value:
      if: [c1, {repeat: {for_each: {'%a%': ['1', '2']}, template: '%a%'}}]
"""


@FUZZ
@given(
    edits=st.lists(
        st.tuples(
            st.integers(0, len(SEED) - 1),
            st.sampled_from(list("{}[]:,-'\" \n\tx1%$!&*")),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_mutated_text(edits: list[tuple[int, str]]) -> None:
    text = list(SEED)
    for position, char in edits:
        text[position] = char
    try:
        doc = template_format.parse("".join(text))
    except (ValueError, exception.HeatException):
        return
    run_pipeline(doc, {"p": "abc"})


def test_seed_is_valid() -> None:
    doc = template_format.parse(SEED)
    assert yaml.safe_load(SEED)["resources"]["r2"]["depends_on"] == "r1"
    tmpl = versions.load(doc)
    defn = StackDefinition(tmpl, {"p": "abc"})
    validation.validate_stack(defn)
    values, errors = validation.resolve_outputs(defn)
    assert errors == {}
    assert values == {"o": "xr2", "q": ["1", "2"]}
