"""``OS::Heat::AutoScalingGroup``: a group resized by scaling policies."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_heat import scaling
from keel_heat_pack_heat.batching import BatchSeries
from keel_heat_pack_heat.group_base import ScalingGroupBase

Schema = api.properties.Schema


class AutoScalingResourceGroup(ScalingGroupBase):
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

    def _size_bounds(self) -> tuple[int, int]:
        return self.properties[self.MIN_SIZE], self.properties[self.MAX_SIZE]

    def _cooldown_value(self) -> Any:
        return self.properties[self.COOLDOWN]

    def _member_definition(self) -> dict[str, Any]:
        return dict(self.properties[self.RESOURCE])

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

    def child_template(self) -> dict[str, Any]:
        desired = self.properties[self.DESIRED_CAPACITY]
        size = desired if desired else self.properties[self.MIN_SIZE]
        return self._create_template(size)

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

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> BatchSeries:
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        series = BatchSeries(self, self.stack.timeout_mins)
        if prop_diff and self.RESOURCE in prop_diff:
            policy = self.properties[self.ROLLING_UPDATES]
            self._rolling_series(
                series,
                policy[self.MIN_IN_SERVICE],
                policy[self.MAX_BATCH_SIZE],
                policy[self.PAUSE_TIME],
            )
        capacity = self.get_size()
        desired = self.properties[self.DESIRED_CAPACITY] or capacity
        new_capacity = self._get_new_capacity(capacity, desired)
        series.add_change(lambda: self._create_template(new_capacity))
        return series

    # -- scaling -----------------------------------------------------------

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
            # members have generated names: the index counts them in the
            # group's order (oldest first), as outputs_list does
            names = [n for n, _ in self._members()]
            try:
                return output[names[int(member)]]
            except (IndexError, KeyError, ValueError):
                raise api.exception.NotFound(
                    f"Member '{member}' not found in group resource "
                    f"'{self.name}'."
                ) from None
        return output
