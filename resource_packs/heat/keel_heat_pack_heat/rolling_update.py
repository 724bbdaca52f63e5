"""Batch arithmetic of rolling updates (ResourceGroup, scaling groups)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any


def needs_update(
    targ_capacity: int, curr_capacity: int, num_up_to_date: int
) -> bool:
    """Whether another batch is needed to reach the target."""
    return not (num_up_to_date >= curr_capacity == targ_capacity)


def next_batch(
    targ_capacity: int,
    curr_capacity: int,
    num_up_to_date: int,
    batch_size: int,
    min_in_service: int,
) -> tuple[int, int]:
    """The next batch: ``(new group size, members getting the new def)``.

    The group may grow past the target while at least ``min_in_service``
    members stay in service; the last batch brings it back.
    """
    if num_up_to_date > curr_capacity:
        raise ValueError("more members up to date than in the group")
    efft_min_sz = min(min_in_service, targ_capacity, curr_capacity)
    efft_bat_sz = min(batch_size, max(targ_capacity - num_up_to_date, 0))
    new_capacity = efft_bat_sz + max(
        min(curr_capacity, targ_capacity - efft_bat_sz), efft_min_sz
    )
    return new_capacity, efft_bat_sz


def batches(
    targ_cap: int, curr_cap: int, batch_size: int, min_in_service: int
) -> Iterator[tuple[int, int]]:
    """Every batch of an update from ``curr_cap`` members to ``targ_cap``."""
    updated = 0
    while needs_update(targ_cap, curr_cap, updated):
        new_cap, total_new = next_batch(
            targ_cap, curr_cap, updated, batch_size, min_in_service
        )
        yield new_cap, total_new
        updated += total_new - max(new_cap - max(curr_cap, targ_cap), 0)
        curr_cap = new_cap


def member_definitions(
    old_resources: Sequence[tuple[str, Any]],
    new_definition: Any,
    num_resources: int,
    num_new: int,
    get_new_id: Callable[[], str],
    customise: Callable[[str, Any], Any],
) -> Iterator[tuple[str, Any]]:
    """Member ``(name, definition)`` pairs for the next change of a group.

    :param old_resources: existing members, first to replace (or remove)
        first.
    :param num_resources: the group size after this change.
    :param num_new: how many members get the new definition (new members
        included).
    """
    kept = list(old_resources)[-num_resources:] if num_resources else []
    num_create = num_resources - len(kept)
    num_replace = num_new - num_create
    for i in range(num_resources):
        if i < len(kept):
            old_name, old_definition = kept[i]
            custom = customise(old_name, new_definition)
            if old_definition != custom and num_replace > 0:
                num_replace -= 1
                yield old_name, custom
            else:
                yield old_name, old_definition
        else:
            new_name = get_new_id()
            yield new_name, customise(new_name, new_definition)


def unused_names(candidates: Iterator[str], taken: set[str]) -> Iterator[str]:
    """Names from ``candidates`` that are not in ``taken``."""
    return itertools.filterfalse(lambda n: n in taken, candidates)


def with_old_files(group: Any, files: dict[str, Any]) -> dict[str, Any]:
    """``files`` over the files the group's child stack has now.

    A rolling update keeps old members for a while, and their type may
    be a template that only the old files map holds (the member type
    moved to another path): the child stack gets both maps, the new one
    winning.
    """
    identity = group.nested_identifier()
    get_files = getattr(group.rpc_client(), "get_files", None)
    if identity is None or not callable(get_files):
        return files
    try:
        old = get_files(group.context, identity) or {}
    except Exception:  # a child stack gone: only the new files
        return files
    return {**old, **files}
