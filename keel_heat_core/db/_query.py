"""Filtering, sorting and paging shared by the list operations.

Heat's rules: API sort keys map to columns and unknown ones are dropped;
with no sort key the order is ``created_at`` descending; ``id`` always
ends the sort keys so pages are stable; the marker is the last row of the
previous page; filters match exactly (a list value means ``IN``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from oslo_db.sqlalchemy import utils as oslo_utils
from sqlalchemy.orm import Query

from keel_heat_core.db import exceptions


def sort_columns(
    sort_keys: str | Sequence[str] | None, mapping: Mapping[str, str]
) -> list[str]:
    """Map API sort keys to column names, dropping unknown keys."""
    if isinstance(sort_keys, str):
        sort_keys = [sort_keys]
    return [mapping[key] for key in sort_keys or () if key in mapping]


def exact_filter(
    query: Query[Any], model: type[Any], filters: Mapping[str, Any] | None
) -> Query[Any]:
    """Add ``column = value`` (or ``IN`` for collections) per filter."""
    columns = model.__table__.columns
    for key, value in (filters or {}).items():
        if key not in columns:
            raise exceptions.Invalid(f"Unknown filter key {key!r}")
        column = getattr(model, key)
        if isinstance(value, list | tuple | set | frozenset):
            query = query.filter(column.in_(list(value)))
        else:
            query = query.filter(column == value)
    return query


def paginate(
    query: Query[Any],
    model: type[Any],
    *,
    limit: int | None,
    sort_keys: list[str],
    marker_row: Any,
    sort_dir: str | None,
) -> Query[Any]:
    """Sort and page ``query`` after ``marker_row`` (Heat's defaults)."""
    if not sort_keys:
        sort_keys = ["created_at"]
        sort_dir = sort_dir or "desc"
    keys = [*sort_keys, "id"]
    try:
        paged: Query[Any] = oslo_utils.paginate_query(
            query, model, limit, keys, marker=marker_row, sort_dir=sort_dir
        )
    except (oslo_utils.InvalidSortKey, ValueError) as exc:
        raise exceptions.Invalid(str(exc)) from exc
    return paged
