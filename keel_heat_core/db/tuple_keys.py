"""Python Heat's ``tuple:`` encoding of tuple dictionary keys.

JSON has no tuple keys, so Heat writes a tuple key as the string
``tuple:`` followed by Python's ``repr`` of the tuple, e.g.
``tuple:(42, True, 'resource')``. The encoding applies at any depth
(attribute paths inside node data, cached attribute rows).

Sync points written before Heat 26 use 2-element resource keys
``tuple:(42, True)``; :func:`normalize_node_key` turns them into the
3-element form Heat 27 compares against, and keel-heat writes only the
3-element form. Pure functions; no database access.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from typing import Any

PREFIX = "tuple:"


def encode_key(key: Any) -> Any:
    """Encode one dictionary key (tuples only; other keys unchanged)."""
    if isinstance(key, tuple):
        return PREFIX + repr(key)
    return key


def decode_key(key: Any) -> Any:
    """Decode one dictionary key written by :func:`encode_key`."""
    if isinstance(key, str) and key.startswith(PREFIX):
        return _parse(key)
    return key


@functools.lru_cache(maxsize=65536)
def _parse(key: str) -> Any:
    # Sync point rows are re-read on every merge, with the same keys each
    # time: parse each distinct key once per process (the results are
    # immutable tuples of scalars, or the string itself).
    value = ast.literal_eval(key.split(":", 1)[1])
    return value if isinstance(value, tuple) else key


@functools.lru_cache(maxsize=65536)
def normalize_stored_key(key: str) -> str:
    """A stored ``input_data`` key in the 3-element form keel-heat writes.

    ``tuple:(42, True)`` (before Heat 26) becomes
    ``tuple:(42, True, 'resource')``; other keys come back unchanged.
    """
    value = decode_key(key)
    if isinstance(value, tuple) and len(value) == 2:
        return encode_node_key(value)
    return key


def encode(data: Any) -> Any:
    """Encode every tuple key of ``data``, recursively."""
    if isinstance(data, Mapping):
        return {encode_key(k): encode(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [encode(v) for v in data]
    return data


def decode(data: Any) -> Any:
    """Decode every ``tuple:`` key of ``data``, recursively."""
    if isinstance(data, Mapping):
        return {decode_key(k): decode(v) for k, v in data.items()}
    if isinstance(data, list):
        return [decode(v) for v in data]
    return data


def normalize_node_key(key: Any) -> Any:
    """Give a 2-element resource node key its ``'resource'`` type."""
    if isinstance(key, tuple) and len(key) == 2:
        return (key[0], key[1], "resource")
    return key


def encode_node_key(node: tuple[Any, ...]) -> str:
    """The stored form of a sender node: always 3 elements."""
    return PREFIX + repr(tuple(normalize_node_key(tuple(node))))


def decode_input_data(data: Any) -> dict[Any, Any]:
    """Read a sync point's ``input_data`` into ``{node tuple: value}``.

    Accepts the stored document ``{"input_data": {...}}``, the bare inner
    mapping, SQL ``NULL`` and JSON ``null``. Keys of both tuple forms come
    back as 3-element tuples; values are decoded recursively.
    """
    if not data:
        return {}
    inner = data.get("input_data", data) if isinstance(data, dict) else {}
    if not inner:
        return {}
    return {
        normalize_node_key(decode_key(k)): decode(v) for k, v in inner.items()
    }


def encode_input_data(data: Mapping[Any, Any]) -> dict[str, Any]:
    """The stored document of a sync point's ``input_data``."""
    inner = {}
    for key, value in data.items():
        skey = encode_node_key(key) if isinstance(key, tuple) else key
        inner[skey] = encode(value)
    return {"input_data": inner}
