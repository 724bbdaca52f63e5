"""Intrinsic functions: results and Heat's error texts."""

from __future__ import annotations

from typing import Any

import pytest

from keel_heat_core import exception
from tests.unit.template.helpers import evaluate


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        (
            {
                "str_replace": {
                    "template": "$var1 $var10 $var",
                    "params": {"$var": "A", "$var1": "B", "$var10": "C"},
                }
            },
            "B C A",
        ),
        (
            {
                "str_replace": {
                    "template": "a b c",
                    "params": {"a": 1, "b": True, "c": None},
                }
            },
            "1 True ",
        ),
        (
            {
                "str_replace": {
                    "template": "v=V",
                    "params": {"V": {"k": [1, 2]}},
                }
            },
            'v={"k": [1, 2]}',
        ),
        (
            {"list_join": [",", ["a", {"k": "v"}, [1, 2]], ["b"]]},
            'a,{"k": "v"},[1, 2],b',
        ),
        ({"list_join": ["-", ["a", None, "b"]]}, "a--b"),
        (
            {
                "repeat": {
                    "template": "%a%-%b%",
                    "for_each": {"%a%": ["x", "y"], "%b%": ["1", "2"]},
                }
            },
            ["x-1", "x-2", "y-1", "y-2"],
        ),
        (
            {
                "repeat": {
                    "template": "%a%-%b%",
                    "for_each": {"%a%": ["x", "y"], "%b%": ["1", "2"]},
                    "permutations": False,
                }
            },
            ["x-1", "y-2"],
        ),
        (
            {"map_merge": [{"a": 1, "b": 2}, {"b": 3}, None, {"c": 4}]},
            {"a": 1, "b": 3, "c": 4},
        ),
        (
            {
                "map_replace": [
                    {"k1": "v1", "k2": "v2"},
                    {"keys": {"k1": "K1"}, "values": {"v2": "V2"}},
                ]
            },
            {"K1": "v1", "k2": "V2"},
        ),
        (
            {
                "yaql": {
                    "expression": "$.data.l.sum()",
                    "data": {"l": [1, 2, 3]},
                }
            },
            6,
        ),
        (
            {"digest": ["sha256", "abc"]},
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
        ({"digest": ["MD5", "abc"]}, "900150983cd24fb0d6963f7d28e17f72"),
        ({"str_split": [",", "a,b,,c"]}, ["a", "b", "", "c"]),
        ({"str_split": [",", "a,b,c", "2"]}, "c"),
        ({"str_split": [",", "a,b,c", -1]}, "c"),
        ({"contains": ["ab", "abc"]}, True),
        ({"filter": [["a", None], ["a", "b", None, "c"]]}, ["b", "c"]),
        ({"filter": [None, ["a", "b"]]}, ["a", "b"]),
        (
            {
                "make_url": {
                    "scheme": "https",
                    "username": "u s",
                    "password": "p@ss",
                    "host": "fe80::1",
                    "port": 8080,
                    "path": "/a b/c",
                    "query": {"q": "x y", "r": "/"},
                    "fragment": "f g",
                }
            },
            "https://u%20s:p%40ss@[fe80::1]:8080/a%20b/c?q=x+y&r=/#f%20g",
        ),
        (
            {"list_concat": [["a", "b"], None, ["b", "c"]]},
            ["a", "b", "b", "c"],
        ),
        (
            {"list_concat_unique": [["a", "b"], ["b", "c", "a"]]},
            ["a", "b", "c"],
        ),
        ({"a": 1, "b": {"if": [False, 2]}}, {"a": 1}),
        ([1, {"if": [False, 2]}, 3], [1, 3]),
        ({"Fn::GetAtt": ["r1", "show"]}, {"Fn::GetAtt": ["r1", "show"]}),
    ],
)
def test_results(snippet: Any, expected: Any) -> None:
    assert evaluate(snippet) == expected


@pytest.mark.parametrize(
    ("snippet", "message"),
    [
        (
            {"list_join": ["-", ["a", 1]]},
            "Items to join must be string, map or list not 1",
        ),
        (
            {
                "str_replace_strict": {
                    "template": "foo",
                    "params": {"bar": "x", "baz": "y"},
                }
            },
            "The following params were not found in the template: bar,baz",
        ),
        (
            {
                "str_replace_vstrict": {
                    "template": "foo",
                    "params": {"foo": ""},
                }
            },
            "str_replace_vstrict has an undefined or empty value for param "
            "foo, must be a defined non-empty value",
        ),
        (
            {
                "repeat": {
                    "template": "%a%",
                    "for_each": {"%a%": ["x", "y"], "%b%": ["1"]},
                    "permutations": False,
                }
            },
            "For repeat, the length of for_each values should be equal if "
            "no nested loop.",
        ),
        (
            {
                "map_replace": [
                    {"a": 1, "b": 2},
                    {"keys": {"a": "b", "b": "a"}},
                ]
            },
            "key replacement b collides with a key in the input map",
        ),
        (
            {"str_split": [",", "a,b,c", 5]},
            'Incorrect index to "str_split" should be between 0 and 2',
        ),
        (
            {"contains": ["a", {"a": 1}]},
            'Second argument to "contains" should be a sequence.',
        ),
        (
            {"list_concat": [["a"], "b"]},
            "Incorrect arguments: Items to concat must be lists. "
            '[["a"], "b"] contains an item that is not a list: "b"',
        ),
    ],
)
def test_runtime_errors(snippet: Any, message: str) -> None:
    with pytest.raises((ValueError, TypeError)) as err:
        evaluate(snippet)
    assert str(err.value) == message


@pytest.mark.parametrize(
    ("version", "snippet", "message"),
    [
        (
            "2013-05-23",
            {"list_join": [",", ["a"], ["b"]]},
            'outputs.o.value.list_join: Incorrect arguments to "list_join" '
            'should be: "list_join" : [ " ", [ "str1", "str2"]]',
        ),
        (
            "2015-04-30",
            {"get_attr": ["r1"]},
            'outputs.o.value.get_attr: Arguments to "get_attr" must be of '
            "the form [resource_name, attribute, (path), ...]",
        ),
        (
            "2018-08-31",
            {"if": ["c", 2]},
            'outputs.o.value.if: Arguments to "if" must be of the form: '
            "[condition_name, value_if_true, value_if_false]",
        ),
        (
            "2021-04-16",
            {"make_url": {"port": 70000}},
            "outputs.o.value.make_url: Invalid URL port 70000, must be in "
            "range 1-65535",
        ),
        (
            "2014-10-16",
            {"Fn::Join": [",", ["a", "b"]]},
            "outputs.o.value.Fn::Join: The template version is invalid: The "
            "function Fn::Join is not supported in this version of HOT.",
        ),
        (
            "2021-04-16",
            {"yaql": {"expression": "$.data.l.sum("}},
            "outputs.o.value.yaql: Bad expression Parse error: unexpected "
            "end of statement.",
        ),
    ],
)
def test_validation_errors(version: str, snippet: Any, message: str) -> None:
    with pytest.raises(exception.StackValidationFailed) as err:
        evaluate(snippet, version)
    assert str(err.value) == message


def test_removed_function_is_literal_without_validation() -> None:
    from keel_heat_core.template import function, versions
    from keel_heat_core.template.stack_definition import StackDefinition

    tmpl = versions.load({"heat_template_version": "2014-10-16"})
    parsed = tmpl.parse(StackDefinition(tmpl, {}), {"Fn::Base64": "x"})
    assert function.resolve(parsed) == {"Fn::Base64": "x"}


def test_if_branch_not_taken_is_never_parsed() -> None:
    snippet = {"if": [True, "ok", {"list_join": "not-a-list"}]}
    assert evaluate(snippet) == "ok"


def test_get_param_paths() -> None:
    params = {"p": {"a": [1, {"b": "c"}]}, "l": ["x", "y"], "s": "hello"}
    assert evaluate({"get_param": ["p", "a", 1, "b"]}, params=params) == "c"
    assert evaluate({"get_param": ["p", "zz", 1]}, params=params) == ""
    assert evaluate({"get_param": ["l", "1"]}, params=params) == "y"
    assert evaluate({"get_param": ["s", 0]}, params=params) == "h"
    with pytest.raises(exception.UserParameterMissing):
        evaluate({"get_param": "OS::region"}, params=params)


def test_select_and_cfn_functions() -> None:
    assert evaluate({"Fn::Select": ["1", ["a", "b"]]}, "2014-10-16") == "b"
    assert evaluate({"Fn::Select": ["5", ["a", "b"]]}, "2013-05-23") == ""
    assert evaluate(
        {
            "Fn::MemberListToMap": [
                "Name",
                "Value",
                [
                    ".member.0.Name=key",
                    ".member.0.Value=door",
                    ".member.1.Name=colour",
                    ".member.1.Value=green",
                ],
            ]
        },
        "2013-05-23",
    ) == {"key": "door", "colour": "green"}
    snippet = {"Fn::Replace": [{"$a": "X", "%b%": "Y"}, "$a is %b%"]}
    assert evaluate(snippet, "2013-05-23") == "X is Y"


@pytest.mark.parametrize(
    ("snippet", "message"),
    [
        (
            {"repeat": {"template": "x", "for_each": {}}},
            'The "for_each" argument to "repeat" must not be empty',
        ),
        (
            {"repeat": {"template": "v=X", "for_each": {"X": [1]}}},
            'The "for_each" argument to "repeat" may only hold strings '
            "(found int 1)",
        ),
        (
            {"digest": ["sha256", "h\u00e9llo \u2603"]},
            "Value to \"digest\" must be Latin-1 text: '\u2603' can not be "
            "encoded",
        ),
    ],
)
def test_clear_errors_where_heat_leaks(snippet: Any, message: str) -> None:
    """Deliberate differences (docs/compat.md)."""
    with pytest.raises((ValueError, TypeError)) as err:
        evaluate(snippet)
    assert str(err.value) == message


def test_contains_number_in_string_is_false() -> None:
    assert evaluate({"contains": [1, "a1"]}) is False


def test_yaql_limits() -> None:
    from keel_heat_core.template import yaql_function

    snippet = {"yaql": {"expression": "range(300).select($).len()"}}
    with pytest.raises(ValueError, match="Collection length exceeds 200"):
        evaluate(snippet)
    yaql_function.configure(limit_iterators=500)
    try:
        assert evaluate(snippet) == 300
    finally:
        yaql_function.configure()
    assert evaluate(
        {
            "yaql": {
                "expression": "$.data.l.select($ * 2)",
                "data": {"l": [1, 2]},
            }
        }
    ) == [2, 4]
