"""``OS::Heat::AutoScalingGroup``: a group resized by scaling policies."""

from __future__ import annotations

import time
import uuid
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.physical_name import short_id
from keel_heat_core.plugin_api.stack_resource import StackResource
from keel_heat_pack_heat import rolling_update, scaling
from keel_heat_pack_heat.batching import BatchSeries

Schema = api.properties.Schema
CHILD_TEMPLATE_VERSION = "2015-04-30"
DEFAULT_ACTION_TIMEOUT = 3600


def _new_member_name() -> str:
    return short_id(uuid.uuid4())


class AutoScalingResourceGroup(scaling.CooldownMixin, StackResource):
    """A group of identical resources whose size scaling policies change.

    The group starts with ``desired_capacity`` (or ``min_size``) members
    and stays between ``min_size`` and ``max_size``.  An
    ``OS::Heat::ScalingPolicy`` signal adjusts it (outside its
    ``cooldown``); shrinking removes the oldest members first.  A change
    of ``resource`` replaces members in batches as ``rolling_updates``
    says.  ``outputs`` (with an attribute path) maps member names to that
    attribute; ``refs_map`` maps them to their references.
    """

    support_status = api.SupportStatus(version="2014.1")

    PROPERTIES = (
        RESOURCE,
        MAX_SIZE,
        MIN_SIZE,
        COOLDOWN,
        DESIRED_CAPACITY,
        ROLLING_UPDATES,
    ) = (
        "resource",
        "max_size",
        "min_size",
        "cooldown",
        "desired_capacity",
        "rolling_updates",
    )
    _ROLLING_UPDATES_SCHEMA = (MIN_IN_SERVICE, MAX_BATCH_SIZE, PAUSE_TIME) = (
        "min_in_service",
        "max_batch_size",
        "pause_time",
    )
    ATTRIBUTES = (OUTPUTS, OUTPUTS_LIST, CURRENT_SIZE, REFS, REFS_MAP) = (
        "outputs",
        "outputs_list",
        "current_size",
        "refs",
        "refs_map",
    )

    properties_schema = {
        RESOURCE: Schema(
            Schema.MAP,
            "The definition of a member (type, properties...).",
            required=True,
            update_allowed=True,
        ),
        MAX_SIZE: Schema(
            Schema.INTEGER,
            "The most members.",
            required=True,
            update_allowed=True,
            constraints=[api.constraints.Range(min=0)],
        ),
        MIN_SIZE: Schema(
            Schema.INTEGER,
            "The fewest members.",
            required=True,
            update_allowed=True,
            constraints=[api.constraints.Range(min=0)],
        ),
        COOLDOWN: Schema(
            Schema.INTEGER,
            "Seconds after a scaling before the next one may start.",
            update_allowed=True,
        ),
        DESIRED_CAPACITY: Schema(
            Schema.INTEGER,
            "How many members to have now.",
            update_allowed=True,
        ),
        ROLLING_UPDATES: Schema(
            Schema.MAP,
            "How members are replaced when their definition changes.",
            schema={
                MIN_IN_SERVICE: Schema(
                    Schema.INTEGER,
                    "Members kept in service during the replacement.",
                    default=0,
                    constraints=[api.constraints.Range(min=0)],
                ),
                MAX_BATCH_SIZE: Schema(
                    Schema.INTEGER,
                    "The most members replaced at once.",
                    default=1,
                    constraints=[api.constraints.Range(min=1)],
                ),
                PAUSE_TIME: Schema(
                    Schema.NUMBER,
                    "Seconds to wait between batches.",
                    default=0,
                    constraints=[api.constraints.Range(min=0)],
                ),
            },
            default={MIN_IN_SERVICE: 0, MAX_BATCH_SIZE: 1, PAUSE_TIME: 0},
            update_allowed=True,
        ),
    }

    attributes_schema = {
        OUTPUTS: api.attributes.Schema(
            "Member name to the value of the attribute path that follows.",
            type=api.attributes.Schema.MAP,
        ),
        OUTPUTS_LIST: api.attributes.Schema(
            "The values of the attribute path that follows, in member order.",
            type=api.attributes.Schema.LIST,
        ),
        CURRENT_SIZE: api.attributes.Schema(
            "How many members the group has.",
            type=api.attributes.Schema.INTEGER,
        ),
        REFS: api.attributes.Schema(
            "The members' references, in member order.",
            type=api.attributes.Schema.LIST,
        ),
        REFS_MAP: api.attributes.Schema(
            "Member name to its reference.",
            type=api.attributes.Schema.MAP,
        ),
    }

    # -- members -----------------------------------------------------------

    def validate(self) -> None:
        super().validate()
        lower = self.properties[self.MIN_SIZE]
        upper = self.properties[self.MAX_SIZE]
        if upper < lower:
            raise api.exception.StackValidationFailed(
                message="MinSize can not be greater than MaxSize"
            )
        if lower < 0:
            raise api.exception.StackValidationFailed(
                message="The size of AutoScalingGroup can not be less than "
                "zero"
            )
        desired = self.properties[self.DESIRED_CAPACITY]
        if desired is not None and not lower <= desired <= upper:
            raise api.exception.StackValidationFailed(
                message="DesiredCapacity must be between MinSize and MaxSize"
            )

    def _members(self) -> list[tuple[str, Any]]:
        identity = self.nested_identifier()
        if identity is None:
            return []
        tmpl = self.rpc_client().get_template(self.context, identity) or {}
        return list((tmpl.get("resources") or {}).items())

    def get_size(self) -> int:
        """The current number of members."""
        return len(self._members())

    def _member_definition(self) -> dict[str, Any]:
        return dict(self.properties[self.RESOURCE])

    def _referenced_attrs(self) -> list[Any]:
        lookup = getattr(self.stack, "referenced_attrs", None)
        return list(lookup(self.name)) if callable(lookup) else []

    def _output_name(self, *attr_path: Any) -> str:
        return ", ".join(str(a) for a in attr_path)

    def _outputs_for(self, names: list[str]) -> dict[str, Any]:
        outputs: dict[str, Any] = {
            self.REFS_MAP: {"value": {n: {"get_resource": n} for n in names}}
        }
        for attr in self._referenced_attrs():
            key, path = (
                (attr, []) if isinstance(attr, str) else (attr[0], attr[1:])
            )
            if key.startswith("resource."):
                path = key.split(".", 2)[2:] + list(path)
                key = self.OUTPUTS if path else self.REFS_MAP
            elif key == self.OUTPUTS_LIST:
                key = self.OUTPUTS
            if key == self.OUTPUTS and path:
                outputs[self._output_name(key, *path)] = {
                    "value": {n: {"get_attr": [n, *path]} for n in names}
                }
        return outputs

    def _create_template(
        self, num_instances: int, num_replace: int = 0
    ) -> dict[str, Any]:
        members = list(
            rolling_update.member_definitions(
                self._members(),
                self._member_definition(),
                num_instances,
                num_replace,
                _new_member_name,
                lambda name, defn: defn,
            )
        )
        return {
            "heat_template_version": CHILD_TEMPLATE_VERSION,
            "resources": dict(members),
            "outputs": self._outputs_for([n for n, _ in members]),
        }

    def child_template(self) -> dict[str, Any]:
        desired = self.properties[self.DESIRED_CAPACITY]
        size = desired if desired else self.properties[self.MIN_SIZE]
        return self._create_template(size)

    def child_params(self) -> dict[str, Any]:
        return {}

    # -- create and update -------------------------------------------------

    def handle_create(self) -> None:
        self.create_with_template(self.child_template(), {})

    def check_create_complete(self, cookie: Any = None) -> bool:
        done = super().check_create_complete(cookie)
        if done:
            self._finished_scaling(
                self.properties[self.COOLDOWN],
                f"{scaling.CFN_EXACT_CAPACITY} : {self.get_size()}",
            )
        return done

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
            self.properties[self.MIN_SIZE],
            self.properties[self.MAX_SIZE],
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

    def _rolling_series(self, series: BatchSeries) -> None:
        policy = self.properties[self.ROLLING_UPDATES]
        capacity = self.get_size()
        batches = []
        efft_capacity, updated = capacity, 0
        while rolling_update.needs_update(capacity, efft_capacity, updated):
            batch = rolling_update.next_batch(
                capacity,
                efft_capacity,
                updated,
                policy[self.MAX_BATCH_SIZE],
                policy[self.MIN_IN_SERVICE],
            )
            batches.append(batch)
            efft_capacity, num_updates = batch
            updated += num_updates
        series.timeout_mins = (
            self._update_timeout(len(batches), policy[self.PAUSE_TIME]) / 60
        )
        for index, (total, num_new) in enumerate(batches):

            def make(total: int = total, num_new: int = num_new) -> Any:
                return self._create_template(total, num_new)

            series.add_change(make)
            if index < len(batches) - 1:
                series.add_pause(policy[self.PAUSE_TIME])

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> BatchSeries:
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        series = BatchSeries(self, self.stack.timeout_mins)
        if prop_diff and self.RESOURCE in prop_diff:
            self._rolling_series(series)
        capacity = self.get_size()
        desired = self.properties[self.DESIRED_CAPACITY] or capacity
        new_capacity = self._get_new_capacity(capacity, desired)
        series.add_change(lambda: self._create_template(new_capacity))
        return series

    def check_update_complete(self, cookie: Any = None) -> bool:
        return bool(cookie.step())

    # -- scaling -----------------------------------------------------------

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
            self._check_scaling_allowed(self.properties[self.COOLDOWN])
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
                self.properties[self.COOLDOWN],
                f"{adjustment_type} : {adjustment}",
                size_changed=changed,
            )
        return changed

    # -- attributes --------------------------------------------------------

    def get_attribute(self, key: str, *path: Any) -> Any:
        if key == self.CURRENT_SIZE:
            return self.get_size()
        if self.resource_id is None:
            return None
        op_key, op_path = key, tuple(path)
        member = None
        if key == self.OUTPUTS_LIST:
            op_key = self.OUTPUTS
        elif key == self.REFS:
            op_key = self.REFS_MAP
        elif key.startswith("resource."):
            parts = key.split(".", 2)
            member = parts[1]
            op_path = tuple(parts[2:]) + tuple(path)
            op_key = self.OUTPUTS if op_path else self.REFS_MAP
        output = self.get_output(self._output_name(op_key, *op_path))
        if key in (self.OUTPUTS_LIST, self.REFS):
            order = [n for n, _ in self._members()]
            return [output[n] for n in order if n in output]
        if member is not None:
            return output[member]
        return output

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        if self.action == self.INIT:
            return None
        return self.get_attribute(key, *path)
