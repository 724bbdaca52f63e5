"""Query-parameter parsing with Heat's rules and messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webob.multidict import MultiDict

from keel_heat_api.errors import HTTPBadRequest

SINGLE = "single"
MULTI = "multi"
MIXED = "mixed"


def extract_bool(name: str, value: Any) -> bool:
    """Parse ``true``/``false`` in any case.

    :raises HTTPBadRequest: for any other value, with Heat's message.
    """
    if isinstance(value, bool):
        return value
    text = str(value).lower()
    if text not in ("true", "false"):
        raise HTTPBadRequest(
            f'Unrecognized value "{value}" for "{name}", acceptable values '
            "are: true, false."
        )
    return text == "true"


#: the largest integer a parameter may be: the database's INTEGER (a
#: limit, a timeout or a depth beyond it means nothing more)
MAX_INT = 2**31 - 1


def extract_int(
    name: str,
    value: Any,
    allow_zero: bool = True,
    allow_negative: bool = False,
) -> int | None:
    """Parse an integer parameter; ``None`` stays ``None``.

    :raises HTTPBadRequest: for non-integers and refused values, and for
        values beyond :data:`MAX_INT` either way.
    """
    if value is None:
        return None
    try:
        result = int(str(value))
    except ValueError:
        raise HTTPBadRequest(
            f"Only integer is acceptable by '{name}'."
        ) from None
    if (not allow_zero and result == 0) or (not allow_negative and result < 0):
        kind = "non-negative" if allow_zero else "positive"
        raise HTTPBadRequest(
            f"Value '{value}' is invalid for '{name}' which only accepts "
            f"{kind} integer."
        )
    if abs(result) > MAX_INT:
        raise HTTPBadRequest(
            f"Value '{value}' is invalid for '{name}', which accepts "
            f"integers up to {MAX_INT}."
        )
    return result


def extract_name(name: str, value: Any, maximum: int = 255) -> str | None:
    """A name-like string of the body (``None`` stays ``None``), no
    longer than its database column.

    :raises HTTPBadRequest: for a value that is not a string or too long.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise HTTPBadRequest(f"'{name}' must be a string.")
    if len(value) > maximum:
        raise HTTPBadRequest(
            f"'{name}' is {len(value)} characters long, more than the "
            f"{maximum} allowed."
        )
    return value


def extract_tags(value: str) -> list[str]:
    """Split a comma-separated tag list; no tag may exceed 80 chars.

    :raises HTTPBadRequest: naming the first tag that is too long.
    """
    tags = value.split(",")
    for tag in tags:
        if len(tag) > 80:
            raise HTTPBadRequest(
                f'Invalid tag, "{tag}" is longer than 80 characters'
            )
    return tags


def allowed_params(
    query: MultiDict, whitelist: Mapping[str, str]
) -> dict[str, Any]:
    """Pick the whitelisted keys of a query, dropping empty values.

    ``single`` keeps the first value, ``multi`` all values as a list and
    ``mixed`` a list only when the key is repeated.
    """
    result: dict[str, Any] = {}
    for key, kind in whitelist.items():
        values = [v for v in query.getall(key) if v != ""]
        if not values:
            continue
        if kind == SINGLE:
            result[key] = values[0]
        elif kind == MULTI:
            result[key] = values
        else:
            result[key] = values if len(values) > 1 else values[0]
    return result
