"""Malformed and adversarial requests for the API fuzzer, from a seed.

Each case is one HTTP request (method, path below ``/v1/<project>``,
body, headers). Most are templates, environments and bodies that break
one rule of the template language or of the API at a time, built on a
small valid stack so that the rest of the request is sound; the others
are bad headers, query strings and paths. The same seed gives the same
cases, so a failure found in CI is replayed with its seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

HOT = "2021-04-16"


@dataclass
class Case:
    """One request of the fuzzer."""

    label: str
    method: str
    path: str
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        body = (self.body or b"")[:300].decode("utf-8", "replace")
        return f"{self.label}: {self.method} {self.path} {self.headers} {body}"


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


def _base() -> dict[str, Any]:
    return {
        "heat_template_version": HOT,
        "parameters": {"p": {"type": "string", "default": "x"}},
        "resources": {
            "a": {
                "type": "OS::Heat::TestResource",
                "properties": {"value": {"get_param": "p"}},
            },
            "b": {"type": "OS::Heat::RandomString"},
        },
        "outputs": {"o": {"value": {"get_attr": ["a", "output"]}}},
    }


def _cfn_base() -> dict[str, Any]:
    return {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Mappings": {"M": {"k": {"v": "one"}}},
        "Conditions": {"yes": {"Fn::Equals": ["a", "a"]}},
        "Resources": {
            "A": {
                "Type": "OS::Heat::TestResource",
                "Properties": {"value": "x"},
            }
        },
    }


#: values that break one function each (as a property value)
BROKEN_FUNCTIONS: list[Any] = [
    {"get_attr": ["missing", "x"]},
    {"get_attr": "a"},
    {"get_attr": [["a"], {"x": 1}]},
    {"get_resource": 5},
    {"get_resource": "missing"},
    {"get_param": ["p", 99, "x"]},
    {"get_param": {"x": 1}},
    {"str_replace": "x"},
    {"str_replace": {"template": 1, "params": []}},
    {"list_join": [1]},
    {"list_join": [",", "notalist"]},
    {"map_merge": "x"},
    {"map_replace": [{"a": 1}, {"keys": 5}]},
    {"digest": ["sha9", "x"]},
    {"repeat": {"for_each": 1, "template": "x"}},
    {"repeat": {"for_each": {"<%x%>": [1, 2]}, "template": {"a": "<%y%>"}}},
    {"yaql": {"expression": "$.data.x.", "data": {}}},
    {"yaql": {"expression": 5}},
    {"if": ["nope", 1, 2]},
    {"if": [1]},
    {"equals": "x"},
    {"filter": [None, "x"]},
    {"str_split": [",", 5, "x"]},
    {"str_split": [",", "a,b", 7]},
    {"contains": ["x"]},
    {"get_file": "http://127.0.0.1:1/x"},
    {"get_file": 5},
    {"Fn::Join": "notalist"},
    {"Fn::FindInMap": ["M", "missing", "v"]},
    {"Fn::Select": ["9", [1]]},
    {"Fn::Base64": {}},
    {"Fn::GetAZs": 5},
    {"Ref": ["x"]},
    {"unknown_function": 1},
    {"get_attr": ["a", "output"], "extra": 1},
]

#: values of the wrong kind where a scalar goes
ODD_VALUES: list[Any] = [
    None,
    [],
    {},
    [[[]]],
    10**30,
    -(10**30),
    1e308,
    True,
    "é" * 300,
    "\x00",
    "x" * 70000,
]


def _deep(levels: int) -> Any:
    value: Any = "leaf"
    for i in range(levels):
        value = [value] if i % 2 else {"k": value}
    return value


def _mutations(rng: random.Random) -> list[Callable[[dict[str, Any]], Any]]:
    def prop(t: dict[str, Any]) -> Any:
        t["resources"]["a"]["properties"]["value"] = rng.choice(
            BROKEN_FUNCTIONS
        )
        return t

    def odd_prop(t: dict[str, Any]) -> Any:
        t["resources"]["a"]["properties"][rng.choice(["value", "fail"])] = (
            rng.choice(ODD_VALUES)
        )
        return t

    def conditional(t: dict[str, Any]) -> Any:
        # a conditional resource holding a broken function: it may fail
        # to create, but the stack must always delete
        t["conditions"] = {"on": rng.choice([True, False, {"not": True}])}
        t["resources"]["c"] = {
            "type": "OS::Heat::TestResource",
            "condition": "on",
            "properties": {"value": rng.choice(BROKEN_FUNCTIONS)},
        }
        return t

    def output(t: dict[str, Any]) -> Any:
        t["outputs"]["bad"] = {"value": rng.choice(BROKEN_FUNCTIONS)}
        return t

    def section(t: dict[str, Any]) -> Any:
        key = rng.choice(
            ["resources", "outputs", "parameters", "conditions", "description"]
        )
        t[key] = rng.choice(ODD_VALUES + [["a"], "text"])
        return t

    def version(t: dict[str, Any]) -> Any:
        t["heat_template_version"] = rng.choice(
            ["2099-01-01", 5, None, "", ["2021-04-16"], "wallaby "]
        )
        return t

    def depends(t: dict[str, Any]) -> Any:
        t["resources"]["a"]["depends_on"] = rng.choice(
            ["missing", "a", ["b", "b"], 5, {"x": 1}, ["b"]]
        )
        if rng.random() < 0.5:
            t["resources"]["b"]["depends_on"] = "a"
        return t

    def resource_keys(t: dict[str, Any]) -> Any:
        t["resources"]["a"][
            rng.choice(
                [
                    "type",
                    "properties",
                    "metadata",
                    "deletion_policy",
                    "update_policy",
                    "external_id",
                    "bogus",
                ]
            )
        ] = rng.choice(ODD_VALUES + ["Retain", "Snapshot", "OS::Nope"])
        return t

    def parameters(t: dict[str, Any]) -> Any:
        t["parameters"]["p"] = rng.choice(
            [
                {"type": "number", "default": "x"},
                {"type": "string", "constraints": [{"range": {"min": 1}}]},
                {"type": "string", "constraints": [{"allowed_pattern": "("}]},
                {"type": "json", "default": "{"},
                {"type": "comma_delimited_list", "default": 5},
                {"type": "boolean", "default": "maybe"},
                {"type": "nope"},
                "string",
                {"type": "string", "hidden": "yes", "immutable": []},
            ]
        )
        return t

    def deep(t: dict[str, Any]) -> Any:
        t["outputs"]["deep"] = {"value": _deep(rng.randint(50, 400))}
        return t

    def names(t: dict[str, Any]) -> Any:
        name = rng.choice(["", "a" * 300, "é/ü", "x y", "../..", "\u202e"])
        t["resources"][name] = t["resources"].pop("b")
        return t

    def cfn(_: dict[str, Any]) -> Any:
        c = _cfn_base()
        c["Resources"]["A"]["Properties"]["value"] = rng.choice(
            BROKEN_FUNCTIONS
        )
        if rng.random() < 0.5:
            c["Resources"]["A"]["Condition"] = "yes"
        return c

    return [
        prop,
        odd_prop,
        conditional,
        output,
        section,
        version,
        depends,
        resource_keys,
        parameters,
        deep,
        names,
        cfn,
    ]


def _environment(rng: random.Random) -> Any:
    return rng.choice(
        [
            {"resource_registry": {"A::B": "A::B"}},
            {"resource_registry": {"A::B": "C::D", "C::D": "A::B"}},
            {"resource_registry": {"OS::Heat::TestResource": 5}},
            {"resource_registry": "x"},
            {"parameters": [1, 2]},
            {"parameter_defaults": {"p": {"deep": _deep(200)}}},
            {"event_sinks": 5},
            {"unknown_section": {}},
            "resource_registry: {",
            {"resources": {"a": {"hooks": "pre-nope"}}},
        ]
    )


def _stack_body(rng: random.Random, n: int) -> dict[str, Any]:
    template = _base()
    for mutate in rng.sample(_mutations(rng), k=rng.randint(1, 2)):
        try:
            template = mutate(template)
        except (KeyError, TypeError, AttributeError):
            continue  # an earlier mutation took away what this one breaks
    body: dict[str, Any] = {"stack_name": f"fz{n}", "template": template}
    if rng.random() < 0.3:
        body["environment"] = _environment(rng)
    if rng.random() < 0.2:
        body[
            rng.choice(
                [
                    "timeout_mins",
                    "disable_rollback",
                    "tags",
                    "files",
                    "parameters",
                    "stack_name",
                ]
            )
        ] = rng.choice(ODD_VALUES + [2**63, -1, "maybe", {"f": 1}])
    return body


def _raw_bodies(rng: random.Random, n: int) -> Case:
    path = rng.choice(
        [
            "/stacks",
            "/validate",
            "/stacks/preview",
            "/software_configs",
            "/software_deployments",
        ]
    )
    body = rng.choice(
        [
            b"{",
            b"[" * 100000,
            b"\xff\xfe",
            b"null",
            b"[]",
            b'"text"',
            b"x" * 1000,
            _json({"template": None}),
            _json({"template": 5, "stack_name": "s"}),
            _json({"template_url": "http://127.0.0.1:1/t.yaml"}),
            _json({"template_url": "file:///etc/passwd"}),
            _json({"name": ["x"], "config": 5}),
            _json({"config_id": "nope", "server_id": 5}),
        ]
    )
    return Case(
        f"raw-{n}", "POST", path, body, {"Content-Type": "application/json"}
    )


def _headers(rng: random.Random, n: int) -> Case:
    body = _json({"stack_name": f"fh{n}", "template": _base()})
    headers = rng.choice(
        [
            {"Content-Type": "application/json; charset=é"},
            {"Content-Type": "text/plain"},
            {"Content-Type": "application/x-www-form-urlencoded"},
            {"Content-Type": "application/json", "Accept": "text/html"},
            {"Content-Type": "application/json", "Accept-Language": "zz-ZZ"},
            {"Content-Type": "application/json", "X-Auth-Token": "\u00ff"},
            {"Content-Type": "application/json; charset=utf-16"},
        ]
    )
    return Case(f"headers-{n}", "POST", "/validate", body, headers)


def _queries(rng: random.Random, n: int) -> Case:
    query = rng.choice(
        [
            "limit=99999999999999999999",
            "limit=-1",
            "limit=abc",
            "marker=nonexistent",
            "sort_keys=evil",
            "sort_dir=sideways",
            "show_deleted=maybe",
            "status=%00",
            "tags=" + "x," * 500,
            "name=%FF",
            "with_count=yes&global_tenant=true",
        ]
    )
    path = rng.choice(
        [
            "/stacks",
            "/resource_types",
            "/software_configs",
            "/software_deployments",
            "/stacks/x/y/events",
        ]
    )
    return Case(f"query-{n}", "GET", f"{path}?{query}")


def _paths(rng: random.Random, n: int) -> Case:
    path = rng.choice(
        [
            "/stacks/%00/%00",
            "/stacks/" + "a" * 5000,
            "/stacks/x/y/resources/z/events/w",
            "/stacks/x/y/resources/" + "é" * 10,
            "/resource_types/OS::Nope",
            "/resource_types/" + "A" * 1000 + "/template",
            "/stacks/x/y/snapshots/z",
            "/stacks/x/y/outputs/%FF",
            "/software_configs/not-a-uuid",
            "/stacks/../../etc/passwd",
        ]
    )
    method = rng.choice(["GET", "DELETE", "PUT", "PATCH", "POST"])
    body = _json({"x": 1}) if method in ("PUT", "PATCH", "POST") else None
    return Case(
        f"path-{n}", method, path, body, {"Content-Type": "application/json"}
    )


def generate(seed: int, count: int) -> Iterator[Case]:
    """``count`` cases from ``seed``: two in three are stack bodies."""
    rng = random.Random(seed)
    others = [_raw_bodies, _headers, _queries, _paths]
    for n in range(count):
        if rng.random() < 0.65:
            body = _stack_body(rng, n)
            target = rng.choice(
                ["/stacks", "/stacks", "/validate", "/stacks/preview"]
            )
            yield Case(
                f"stack-{n}",
                "POST",
                target,
                _json(body),
                {"Content-Type": "application/json"},
            )
        else:
            yield rng.choice(others)(rng, n)
