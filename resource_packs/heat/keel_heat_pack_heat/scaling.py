"""Capacity arithmetic and cooldown of scaling groups and policies."""

from __future__ import annotations

import contextlib
import datetime
import logging
import math
from typing import Any

from keel_heat_core import plugin_api as api

LOG = logging.getLogger(__name__)

ADJUSTMENT_TYPES = (
    CHANGE_IN_CAPACITY,
    EXACT_CAPACITY,
    PERCENT_CHANGE_IN_CAPACITY,
) = ("change_in_capacity", "exact_capacity", "percent_change_in_capacity")
CFN_ADJUSTMENT_TYPES = (
    CFN_CHANGE_IN_CAPACITY,
    CFN_EXACT_CAPACITY,
    CFN_PERCENT_CHANGE_IN_CAPACITY,
) = ("ChangeInCapacity", "ExactCapacity", "PercentChangeInCapacity")
#: CloudFormation adjustment type -> Heat's.
FROM_CFN = dict(zip(CFN_ADJUSTMENT_TYPES, ADJUSTMENT_TYPES, strict=True))


def calculate_new_capacity(
    current: int,
    adjustment: float,
    adjustment_type: str,
    min_adjustment_step: int | None,
    minimum: int,
    maximum: int,
) -> int:
    """The group size after an adjustment, kept within the bounds.

    A percent change smaller than one member still moves by one; a
    ``min_adjustment_step`` larger than the computed change replaces it.
    """
    adjustment_type = FROM_CFN.get(adjustment_type, adjustment_type)
    if adjustment_type == CHANGE_IN_CAPACITY:
        new_capacity = current + int(adjustment)
    elif adjustment_type == EXACT_CAPACITY:
        new_capacity = int(adjustment)
    else:
        delta = current * adjustment / 100.0
        if math.fabs(delta) < 1.0:
            rounded = int(
                math.ceil(delta) if delta > 0.0 else math.floor(delta)
            )
        else:
            rounded = int(
                math.floor(delta) if delta > 0.0 else math.ceil(delta)
            )
        if min_adjustment_step and min_adjustment_step > abs(rounded):
            rounded = (
                min_adjustment_step if rounded > 0 else -min_adjustment_step
            )
        new_capacity = current + rounded
    if new_capacity > maximum:
        return maximum
    if new_capacity < minimum:
        return minimum
    return new_capacity


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def _is_older_than(stamp: str, seconds: float) -> bool:
    then = datetime.datetime.fromisoformat(stamp).replace(tzinfo=None)
    return _utcnow() - then > datetime.timedelta(seconds=seconds)


class CooldownMixin:
    """Cooldown and scaling-in-progress bookkeeping in the metadata.

    The metadata holds ``scaling_in_progress`` (true during a resize) and
    ``cooldown_end: {<ISO time>: <reason>}``.
    """

    def _sanitize_cooldown(self, cooldown: Any) -> float:
        return 0 if cooldown is None else max(0, cooldown)

    def _no_action(self: Any, reason: str) -> None:
        LOG.info("Can not perform scaling action: %s %s", self.name, reason)
        raise api.exception.NoActionRequired(
            f"The resource {self.name} does not need action {reason}"
        )

    def _check_scaling_allowed(self: Any, cooldown: Any) -> None:
        """Refuse a scaling during another one or within the cooldown.

        :raises NoActionRequired: then (no event is written).
        """
        metadata = self.metadata_get()
        if metadata.get("scaling_in_progress"):
            self._no_action("due to scaling activity")
        cooldown = self._sanitize_cooldown(cooldown)
        if "cooldown_end" in metadata:
            cooldown_end = next(iter(metadata["cooldown_end"]))
            if _utcnow().isoformat() < cooldown_end:
                self._no_action(f"due to cooldown, cooldown {cooldown}")
        elif "cooldown" in metadata and cooldown != 0:
            last = next(iter(metadata["cooldown"]))
            if not _is_older_than(last, cooldown):
                self._no_action(f"due to cooldown, cooldown {cooldown}")
        metadata["scaling_in_progress"] = True
        self.metadata_set(metadata)

    def _finished_scaling(
        self: Any, cooldown: Any, reason: str, size_changed: bool = True
    ) -> None:
        metadata = self.metadata_get()
        if size_changed:
            secs = self._sanitize_cooldown(cooldown)
            end = (_utcnow() + datetime.timedelta(seconds=secs)).isoformat()
            if "cooldown_end" in metadata:
                end = max(next(iter(metadata["cooldown_end"])), end)
            metadata["cooldown_end"] = {end: reason}
        metadata["scaling_in_progress"] = False
        with contextlib.suppress(
            api.exception.NotFound, api.exception.ResourceNotAvailable
        ):
            self.metadata_set(metadata)

    def handle_metadata_reset(self: Any) -> None:
        """Clear a stuck ``scaling_in_progress``."""
        metadata = self.metadata_get()
        if "scaling_in_progress" in metadata:
            metadata["scaling_in_progress"] = False
            self.metadata_set(metadata)
