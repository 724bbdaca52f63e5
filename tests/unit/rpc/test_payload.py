"""RPC payloads: the fast copy gives what ``to_primitive`` gives."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

import pytest
from oslo_serialization import jsonutils

from keel_heat_core.rpc.payload import PayloadSerializer, to_payload


@dataclasses.dataclass
class Record:
    name: str


class Text(str):
    """A string subclass (oslo.i18n's messages are such)."""


SHOW = {
    "stack_name": "s",
    "outputs": [
        {"output_key": f"o{i}", "output_value": {"a": [i, 1.5, None, True]}}
        for i in range(100)
    ],
    "parameters": {"OS::stack_id": "x"},
    "tags": None,
}

CASES: list[Any] = [
    SHOW,
    [1, "two", None, False, 3.0],
    {"when": datetime.datetime(2026, 12, 3, 12, 0, 1)},
    {"pair": (1, 2), "set": {3}},
    {1: "int key"},
    {"record": Record("r")},
    {"text": Text("subclass")},
    "plain",
    None,
]


@pytest.mark.parametrize("entity", CASES)
def test_same_result_as_to_primitive(entity: Any) -> None:
    expected = jsonutils.to_primitive(entity, convert_instances=True)
    got = PayloadSerializer().serialize_entity({}, entity)
    assert got == expected
    assert type(got) is type(expected)


def test_a_copy_is_returned() -> None:
    got = to_payload(SHOW)
    assert got == SHOW and got is not SHOW
    assert got["outputs"][0] is not SHOW["outputs"][0]
    got["outputs"][0]["output_value"]["a"].append("changed")
    assert SHOW["outputs"][0]["output_value"]["a"] == [0, 1.5, None, True]


def test_tuples_become_lists_inside_plain_data() -> None:
    assert to_payload({"a": [{"b": (1, 2)}]}) == {"a": [{"b": [1, 2]}]}
