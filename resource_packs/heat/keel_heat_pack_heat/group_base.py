"""What scaling groups share: members in a child stack, resizing, batches.

``OS::Heat::AutoScalingGroup``, ``OS::Heat::InstanceGroup`` and
``AWS::AutoScaling::AutoScalingGroup`` keep their members in a child
stack whose template lists them oldest first; member names are short
random ids.  Subclasses say what a member looks like
(:meth:`ScalingGroupBase._member_definition`), which outputs the child
template needs (:meth:`ScalingGroupBase._outputs_for`) and the size bounds.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.physical_name import short_id
from keel_heat_core.plugin_api.stack_resource import StackResource
from keel_heat_pack_heat import rolling_update, scaling
from keel_heat_pack_heat.batching import BatchSeries

CHILD_TEMPLATE_VERSION = "2015-04-30"
DEFAULT_ACTION_TIMEOUT = 3600


def new_member_name() -> str:
    """A fresh member name (12 random characters)."""
    return short_id(uuid.uuid4())


class ScalingGroupBase(scaling.CooldownMixin, StackResource):
    """Members, templates, resizing and adjustments of scaling groups."""

    def _member_definition(self) -> dict[str, Any]:
        """The HOT snippet of a new member."""
        raise NotImplementedError

    def _outputs_for(self, names: list[str]) -> dict[str, Any]:
        """The child template's outputs for members ``names``."""
        return {}

    def _size_bounds(self) -> tuple[int, int]:
        """``(min, max)`` of the group size."""
        raise NotImplementedError

    def _cooldown_value(self) -> Any:
        return None

    def _members(self) -> list[tuple[str, Any]]:
        identity = self.nested_identifier()
        if identity is None:
            return []
        tmpl = self.rpc_client().get_template(self.context, identity) or {}
        return list((tmpl.get("resources") or {}).items())

    def child_template_files(self) -> dict[str, Any]:
        return rolling_update.with_old_files(
            self, super().child_template_files()
        )

    def get_size(self) -> int:
        """The current number of members."""
        return len(self._members())

    def _referenced_attrs(self) -> list[Any]:
        lookup = getattr(self.stack, "referenced_attrs", None)
        return list(lookup(self.name)) if callable(lookup) else []

    def _output_name(self, *attr_path: Any) -> str:
        return ", ".join(str(a) for a in attr_path)

    def _create_template(
        self, num_instances: int, num_replace: int = 0
    ) -> dict[str, Any]:
        members = list(
            rolling_update.member_definitions(
                self._members(),
                self._member_definition(),
                num_instances,
                num_replace,
                new_member_name,
                lambda name, defn: defn,
            )
        )
        return {
            "heat_template_version": CHILD_TEMPLATE_VERSION,
            "resources": dict(members),
            "outputs": self._outputs_for([n for n, _ in members]),
        }

    def child_params(self) -> dict[str, Any]:
        return {}

    def _get_new_capacity(
        self,
        capacity: int,
        adjustment: float,
        adjustment_type: str = scaling.EXACT_CAPACITY,
        min_adjustment_step: int | None = None,
    ) -> int:
        return scaling.calculate_new_capacity(
            capacity,
            adjustment,
            adjustment_type,
            min_adjustment_step,
            *self._size_bounds(),
        )

    def _update_timeout(self, batch_cnt: int, pause_sec: float) -> float:
        total = self.stack.timeout_secs() or DEFAULT_ACTION_TIMEOUT
        pauses = pause_sec * max(batch_cnt - 1, 0)
        if pauses >= total:
            raise ValueError(
                "The current update policy will result in stack update "
                "timeout."
            )
        return total - pauses

    def _rolling_series(
        self,
        series: BatchSeries,
        min_in_service: int,
        batch_size: int,
        pause_time: float,
    ) -> None:
        capacity = self.get_size()
        batches = []
        efft_capacity, updated = capacity, 0
        while rolling_update.needs_update(capacity, efft_capacity, updated):
            batch = rolling_update.next_batch(
                capacity,
                efft_capacity,
                updated,
                batch_size,
                min_in_service,
            )
            batches.append(batch)
            efft_capacity, num_updates = batch
            updated += num_updates
        series.timeout_mins = (
            self._update_timeout(len(batches), pause_time) / 60
        )
        for index, (total, num_new) in enumerate(batches):

            def make(total: int = total, num_new: int = num_new) -> Any:
                return self._create_template(total, num_new)

            series.add_change(make)
            if index < len(batches) - 1:
                series.add_pause(pause_time)

    def check_update_complete(self, cookie: Any = None) -> bool:
        return bool(cookie.step())

    def resize(self, new_capacity: int) -> None:
        """Resize the child stack now and wait for it (signal thread)."""
        cookie = self.update_with_template(
            self._create_template(new_capacity), {}
        )
        deadline = time.monotonic() + (
            self.stack.timeout_secs() or DEFAULT_ACTION_TIMEOUT
        )
        while not self._check_status_complete(self.UPDATE, cookie):
            if time.monotonic() > deadline:
                raise api.exception.Error(
                    f"Resizing group {self.name} timed out"
                )
            time.sleep(1)

    def _notify(self, suffix: str, **payload: Any) -> None:
        send = getattr(self.stack, "send_notification", None)
        if callable(send):
            send(f"orchestration.autoscaling.{suffix}", payload)

    def adjust(
        self,
        adjustment: float,
        adjustment_type: str = scaling.CHANGE_IN_CAPACITY,
        min_adjustment_step: int | None = None,
        is_update: bool = False,
    ) -> bool:
        """Change the size; True when it changed.

        :raises NoActionRequired: when the group is not COMPLETE, the size
            would not change, or the cooldown forbids scaling.
        """
        if self.status != self.COMPLETE:
            raise api.exception.NoActionRequired(
                f"{self.name} is not COMPLETE"
            )
        capacity = self.get_size()
        new_capacity = self._get_new_capacity(
            capacity, adjustment, adjustment_type, min_adjustment_step
        )
        if new_capacity == capacity:
            raise api.exception.NoActionRequired(
                f"{self.name}: no change in capacity"
            )
        if not is_update:
            self._check_scaling_allowed(self._cooldown_value())
        group = self.get_reference_id()
        payload = {
            "adjustment": adjustment,
            "adjustment_type": adjustment_type,
            "capacity": capacity,
            "groupname": group,
        }
        changed = False
        try:
            self._notify(
                "start", message=f"Start resizing the group {group}", **payload
            )
            try:
                self.resize(new_capacity)
            except Exception as exc:
                self._notify("error", **{**payload, "message": str(exc)})
                raise
            changed = True
            self._notify(
                "end",
                **{
                    **payload,
                    "capacity": new_capacity,
                    "message": f"End resizing the group {group}",
                },
            )
        finally:
            self._finished_scaling(
                self._cooldown_value(),
                f"{adjustment_type} : {adjustment}",
                size_changed=changed,
            )
        return changed

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        if self.action == self.INIT:
            return None
        return self.get_attribute(key, *path)
