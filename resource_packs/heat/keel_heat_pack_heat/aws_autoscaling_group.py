"""``AWS::AutoScaling::AutoScalingGroup``: CloudFormation scaling group."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_heat import scaling
from keel_heat_pack_heat.instance_group import (
    SCALED_RESOURCE_TYPE,
    InstanceGroup,
)

Schema = api.properties.Schema


class AutoScalingGroup(InstanceGroup):
    """Instances from a launch configuration, resized by scaling policies.

    The group keeps between ``MinSize`` and ``MaxSize`` members
    (``DesiredCapacity`` at first); ``AWS::AutoScaling::ScalingPolicy``
    signals resize it outside its ``Cooldown``.  Instead of a launch
    configuration, ``InstanceId`` copies an existing server's settings.
    The ``AutoScalingRollingUpdate`` policy replaces members in batches
    when the launch configuration changes.
    """

    support_status = api.SupportStatus(version="2014.1")

    PROPERTIES = (
        AVAILABILITY_ZONES,
        LAUNCH_CONFIGURATION_NAME,
        MAX_SIZE,
        MIN_SIZE,
        COOLDOWN,
        DESIRED_CAPACITY,
        HEALTH_CHECK_GRACE_PERIOD,
        HEALTH_CHECK_TYPE,
        LOAD_BALANCER_NAMES,
        VPCZONE_IDENTIFIER,
        TAGS,
        INSTANCE_ID,
    ) = (
        "AvailabilityZones",
        "LaunchConfigurationName",
        "MaxSize",
        "MinSize",
        "Cooldown",
        "DesiredCapacity",
        "HealthCheckGracePeriod",
        "HealthCheckType",
        "LoadBalancerNames",
        "VPCZoneIdentifier",
        "Tags",
        "InstanceId",
    )
    _UPDATE_POLICY_SCHEMA_KEYS = (ROLLING_UPDATE,) = (
        "AutoScalingRollingUpdate",
    )

    properties_schema = {
        AVAILABILITY_ZONES: Schema(
            Schema.LIST, "Not used (availability zones).", required=True
        ),
        LAUNCH_CONFIGURATION_NAME: Schema(
            Schema.STRING,
            "The reference of the launch configuration of the members.",
            update_allowed=True,
        ),
        INSTANCE_ID: Schema(
            Schema.STRING,
            "A server to copy the member settings from.",
            constraints=[api.constraints.CustomConstraint("nova.server")],
        ),
        MAX_SIZE: Schema(
            Schema.INTEGER,
            "The most members.",
            required=True,
            update_allowed=True,
        ),
        MIN_SIZE: Schema(
            Schema.INTEGER,
            "The fewest members.",
            required=True,
            update_allowed=True,
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
        HEALTH_CHECK_GRACE_PERIOD: Schema(
            Schema.INTEGER, "Not implemented.", implemented=False
        ),
        HEALTH_CHECK_TYPE: Schema(
            Schema.STRING,
            "Not implemented.",
            constraints=[api.constraints.AllowedValues(["EC2", "ELB"])],
            implemented=False,
        ),
        LOAD_BALANCER_NAMES: Schema(
            Schema.LIST, "Load balancers to register the members with."
        ),
        VPCZONE_IDENTIFIER: Schema(
            Schema.LIST,
            "The subnet of the members (one only).",
            schema=Schema(Schema.STRING, "A subnet id."),
        ),
        TAGS: Schema(
            Schema.LIST,
            "Tags given to the members.",
            schema=InstanceGroup.tags_schema,
        ),
    }

    update_policy_schema = {
        ROLLING_UPDATE: Schema(
            Schema.MAP, schema=InstanceGroup.rolling_update_schema
        )
    }

    def _size_bounds(self) -> tuple[int, int]:
        return self.properties[self.MIN_SIZE], self.properties[self.MAX_SIZE]

    def _cooldown_value(self) -> Any:
        return self.properties[self.COOLDOWN]

    def validate(self) -> None:
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
        zones = self.properties[self.VPCZONE_IDENTIFIER]
        if zones and len(zones) != 1:
            raise api.exception.NotSupported(
                feature="Anything other than one VPCZoneIdentifier"
            )
        has_instance = self.properties[self.INSTANCE_ID] is not None
        has_conf = self.properties[self.LAUNCH_CONFIGURATION_NAME] is not None
        if has_instance and has_conf:
            raise api.exception.ResourcePropertyConflict(
                self.INSTANCE_ID, self.LAUNCH_CONFIGURATION_NAME
            )
        if not has_instance and not has_conf:
            raise api.exception.StackValidationFailed(
                message=f"Either '{self.INSTANCE_ID}' or "
                f"'{self.LAUNCH_CONFIGURATION_NAME}' must be provided."
            )
        super().validate()

    def get_reference_id(self) -> str:
        return self.physical_resource_name() or str(self.name)

    def _member_definition(self) -> dict[str, Any]:
        instance_id = self.properties[self.INSTANCE_ID]
        if not instance_id:
            return super()._member_definition()
        server = self.client_plugin("nova").get_server(instance_id)
        props = {
            "ImageId": server.image["id"],
            "InstanceType": server.flavor["id"],
            "KeyName": server.key_name,
            "SecurityGroups": [g["name"] for g in server.security_groups],
            "Tags": self._tags(),
        }
        return {"type": SCALED_RESOURCE_TYPE, "properties": props}

    def child_template(self) -> dict[str, Any]:
        desired = self.properties[self.DESIRED_CAPACITY]
        size = desired if desired else self.properties[self.MIN_SIZE]
        return self._create_template(size)

    def check_create_complete(self, cookie: Any = None) -> bool:
        done = super().check_create_complete(cookie)
        if done:
            self._finished_scaling(
                self._cooldown_value(),
                f"{scaling.CFN_EXACT_CAPACITY} : {self.get_size()}",
            )
        return done

    def _target_size(self) -> int | None:
        capacity = self.get_size()
        desired = self.properties[self.DESIRED_CAPACITY] or capacity
        return self._get_new_capacity(capacity, desired)
