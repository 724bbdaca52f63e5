"""Scaling policies: a signal resizes an autoscaling group."""

from __future__ import annotations

import logging
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api import signal_responder as sr
from keel_heat_pack_heat import scaling

LOG = logging.getLogger(__name__)
Schema = api.properties.Schema


class AutoScalingPolicy(scaling.CooldownMixin, sr.SignalResponder):
    """Resizes an ``OS::Heat::AutoScalingGroup`` when signalled.

    Give ``alarm_url`` (a pre-signed URL) or ``signal_url`` (the Heat API)
    to an alarm: each ``alarm`` signal adjusts the group by
    ``scaling_adjustment`` (``change_in_capacity``, ``exact_capacity`` or
    ``percent_change_in_capacity``), unless the policy or the group is in
    its cooldown.
    """

    PROPERTIES = (
        AUTO_SCALING_GROUP_NAME,
        SCALING_ADJUSTMENT,
        ADJUSTMENT_TYPE,
        COOLDOWN,
        MIN_ADJUSTMENT_STEP,
    ) = (
        "auto_scaling_group_id",
        "scaling_adjustment",
        "adjustment_type",
        "cooldown",
        "min_adjustment_step",
    )
    ATTRIBUTES = (ALARM_URL, SIGNAL_URL) = ("alarm_url", "signal_url")

    properties_schema = {
        AUTO_SCALING_GROUP_NAME: Schema(
            Schema.STRING,
            "The id (reference) of the group to resize.",
            required=True,
        ),
        SCALING_ADJUSTMENT: Schema(
            Schema.NUMBER,
            "How much to change the group by.",
            required=True,
            update_allowed=True,
        ),
        ADJUSTMENT_TYPE: Schema(
            Schema.STRING,
            "How to read scaling_adjustment.",
            required=True,
            constraints=[
                api.constraints.AllowedValues(list(scaling.ADJUSTMENT_TYPES))
            ],
            update_allowed=True,
        ),
        COOLDOWN: Schema(
            Schema.NUMBER,
            "Seconds after a scaling before this policy acts again.",
            update_allowed=True,
        ),
        MIN_ADJUSTMENT_STEP: Schema(
            Schema.INTEGER,
            "The fewest members a percent change adds or removes.",
            constraints=[api.constraints.Range(min=0)],
            update_allowed=True,
        ),
    }

    attributes_schema = {
        ALARM_URL: api.attributes.Schema(
            "A pre-signed URL that signals the policy.",
            type=api.attributes.Schema.STRING,
            cache_mode=api.attributes.Schema.CACHE_NONE,
        ),
        SIGNAL_URL: api.attributes.Schema(
            "The Heat API URL that signals the policy.",
            type=api.attributes.Schema.STRING,
            support_status=api.SupportStatus(version="5.0.0"),
        ),
    }

    def signal_transport(self) -> str | None:
        return sr.CFN_SIGNAL

    def _adjustment_type(self) -> str:
        return str(self.properties[self.ADJUSTMENT_TYPE])

    def validate(self) -> None:
        super().validate()
        step = self.properties[self.MIN_ADJUSTMENT_STEP]
        if step is not None and (
            scaling.FROM_CFN.get(
                self._adjustment_type(), self._adjustment_type()
            )
            != scaling.PERCENT_CHANGE_IN_CAPACITY
        ):
            raise api.exception.ResourcePropertyValueDependency(
                prop1=self.MIN_ADJUSTMENT_STEP,
                prop2=self.ADJUSTMENT_TYPE,
                value=self._percent_type(),
            )

    def _percent_type(self) -> str:
        return scaling.PERCENT_CHANGE_IN_CAPACITY

    def handle_create(self) -> None:
        super().handle_create()
        self.resource_id_set(self._get_user_id())

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        if prop_diff:
            self.properties = json_snippet.properties(
                self.properties_schema, self.context
            )

    def handle_signal(self, details: Any = None) -> None:
        if details is None:
            alarm_state = "alarm"
        else:
            alarm_state = str(
                details.get("current", details.get("state", "alarm"))
            ).lower()
        LOG.info("Alarm %s, new state %s", self.name, alarm_state)
        if alarm_state != "alarm":
            raise api.exception.NoActionRequired()
        group_id = self.properties[self.AUTO_SCALING_GROUP_NAME]
        group = self.stack.resource_by_refid(group_id)
        if group is None:
            raise api.exception.NotFound(
                f"Alarm {self.name} could not find scaling group named "
                f'"{group_id}"'
            )
        self._check_scaling_allowed(self.properties[self.COOLDOWN])
        changed = False
        try:
            group.adjust(
                self.properties[self.SCALING_ADJUSTMENT],
                self._adjustment_type(),
                self.properties[self.MIN_ADJUSTMENT_STEP],
            )
            changed = True
        finally:
            self._finished_scaling(
                self.properties[self.COOLDOWN],
                f"{self._adjustment_type()} : "
                f"{self.properties[self.SCALING_ADJUSTMENT]}",
                size_changed=changed,
            )

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == self.ALARM_URL:
            return str(self._get_ec2_signed_url(never_expire=True))
        if name == self.SIGNAL_URL:
            return str(self._get_heat_signal_url())
        return None

    def get_reference_id(self) -> str:
        return api.Resource.get_reference_id(self)


class AWSScalingPolicy(AutoScalingPolicy):
    """A CloudFormation scaling policy (CloudFormation property names).

    Its reference is the pre-signed URL that signals it, so an alarm's
    ``AlarmActions`` can name it directly.
    """

    PROPERTIES = (
        AUTO_SCALING_GROUP_NAME,
        SCALING_ADJUSTMENT,
        ADJUSTMENT_TYPE,
        COOLDOWN,
        MIN_ADJUSTMENT_STEP,
    ) = (
        "AutoScalingGroupName",
        "ScalingAdjustment",
        "AdjustmentType",
        "Cooldown",
        "MinAdjustmentStep",
    )
    ATTRIBUTES = (ALARM_URL,) = ("AlarmUrl",)

    properties_schema = {
        AUTO_SCALING_GROUP_NAME: Schema(
            Schema.STRING,
            "The name (reference) of the group to resize.",
            required=True,
        ),
        SCALING_ADJUSTMENT: Schema(
            Schema.INTEGER,
            "How much to change the group by.",
            required=True,
            update_allowed=True,
        ),
        ADJUSTMENT_TYPE: Schema(
            Schema.STRING,
            "How to read ScalingAdjustment.",
            required=True,
            constraints=[
                api.constraints.AllowedValues(
                    list(scaling.CFN_ADJUSTMENT_TYPES)
                )
            ],
            update_allowed=True,
        ),
        COOLDOWN: Schema(
            Schema.INTEGER,
            "Seconds after a scaling before this policy acts again.",
            update_allowed=True,
        ),
        MIN_ADJUSTMENT_STEP: Schema(
            Schema.INTEGER,
            "The fewest members a percent change adds or removes.",
            constraints=[api.constraints.Range(min=0)],
            update_allowed=True,
        ),
    }

    attributes_schema = {
        ALARM_URL: api.attributes.Schema(
            "A pre-signed URL that signals the policy.",
            type=api.attributes.Schema.STRING,
        ),
    }

    def _percent_type(self) -> str:
        return scaling.CFN_PERCENT_CHANGE_IN_CAPACITY

    def _adjustment_type(self) -> str:
        value = str(self.properties[self.ADJUSTMENT_TYPE])
        return scaling.FROM_CFN.get(value, value)

    def get_reference_id(self) -> str:
        if self.resource_id is not None:
            return str(self._get_ec2_signed_url())
        return str(self.name)
