"""Payloads of RPC messages: JSON-shaped data, copied without a detour.

oslo.messaging's ``JsonPayloadSerializer`` runs every argument and every
result through ``jsonutils.to_primitive``, which asks each value of a
nested structure a dozen type questions: for a show of a stack with 100
outputs that was about a tenth of the engine's CPU. Almost every payload
here is already JSON-shaped (dicts with string keys, lists, strings,
numbers, booleans, ``None``): :class:`PayloadSerializer` copies such a
payload in one tight walk and hands anything else (datetimes, tuples,
objects, other keys) to ``to_primitive`` as before, so what arrives is
the same. It copies, as ``to_primitive`` does: on the in-process bus a
result is not shared between the engine and the API.
"""

from __future__ import annotations

from typing import Any

import oslo_messaging
from oslo_serialization import jsonutils

_SCALARS = frozenset({str, int, float, bool, type(None)})


class _NotPlain(Exception):  # noqa: N818 - control flow, never escapes
    """A value that is not plain JSON data."""


def plain_copy(value: Any) -> Any:
    """A copy of JSON-shaped ``value``.

    :raises _NotPlain: for anything else (a subclass of a plain type too).
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain()
            out[key] = plain_copy(item)
        return out
    if kind is list:
        return [plain_copy(item) for item in value]
    raise _NotPlain()


def to_payload(entity: Any) -> Any:
    """What oslo.messaging's JSON payload serializer makes of ``entity``."""
    try:
        return plain_copy(entity)
    except (_NotPlain, RecursionError):
        return jsonutils.to_primitive(entity, convert_instances=True)


class PayloadSerializer(oslo_messaging.NoOpSerializer):  # type: ignore[misc]
    """``JsonPayloadSerializer`` with the fast path of :func:`to_payload`."""

    def serialize_entity(self, ctxt: Any, entity: Any) -> Any:
        return to_payload(entity)
