"""Heat's ``tuple:`` key encoding."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from keel_heat_core.db import tuple_keys


def test_encode_is_python_repr() -> None:
    assert (
        tuple_keys.encode_node_key((42, True, "resource"))
        == "tuple:(42, True, 'resource')"
    )
    assert (
        tuple_keys.encode_node_key(("5b0c", False, "snapshot"))
        == "tuple:('5b0c', False, 'snapshot')"
    )
    assert tuple_keys.encode_key(("it's", 0)) == 'tuple:("it\'s", 0)'


def test_two_element_keys_are_written_with_three() -> None:
    assert tuple_keys.encode_node_key((7, False)) == (
        "tuple:(7, False, 'resource')"
    )


def test_decode_input_data_accepts_both_forms() -> None:
    stored = {
        "input_data": {
            "tuple:(42, True)": {"id": 42, "attrs": {}},
            "tuple:(43, True, 'resource')": None,
        }
    }
    assert tuple_keys.decode_input_data(stored) == {
        (42, True, "resource"): {"id": 42, "attrs": {}},
        (43, True, "resource"): None,
    }
    assert tuple_keys.decode_input_data(None) == {}
    assert tuple_keys.decode_input_data({"input_data": {}}) == {}


def test_nested_attribute_paths() -> None:
    value = {"attrs": {("networks", "private", 0): "10.0.0.4", "name": "vm"}}
    encoded = tuple_keys.encode(value)
    assert encoded == {
        "attrs": {"tuple:('networks', 'private', 0)": "10.0.0.4", "name": "vm"}
    }
    assert tuple_keys.decode(encoded) == value


@given(
    st.dictionaries(
        st.tuples(st.integers(), st.booleans()) | st.text(max_size=5),
        st.none() | st.integers() | st.text(max_size=5),
        max_size=5,
    )
)
def test_round_trip(data: dict[object, object]) -> None:
    assert tuple_keys.decode(tuple_keys.encode(data)) == data
