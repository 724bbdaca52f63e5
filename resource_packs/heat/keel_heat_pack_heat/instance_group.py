"""``OS::Heat::InstanceGroup``: a fixed-size group of instances."""

from __future__ import annotations

import re
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_heat.batching import BatchSeries
from keel_heat_pack_heat.group_base import ScalingGroupBase

Schema = api.properties.Schema

#: The member type of instance-based groups.
SCALED_RESOURCE_TYPE = "AWS::EC2::Instance"

_DURATION = re.compile(
    r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$"
)


def parse_isoduration(text: str) -> float:
    """Seconds in an ISO 8601 duration such as ``PT1M30S``.

    :raises ValueError: ``Only ISO 8601 duration format of the form
        PT#H#M#S is supported.``
    """
    match = _DURATION.match(text or "")
    if not match or text in ("P", "PT"):
        raise ValueError(
            "Only ISO 8601 duration format of the form PT#H#M#S is supported."
        )
    days, hours, minutes, seconds = (float(g or 0) for g in match.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


class InstanceGroup(ScalingGroupBase):
    """``Size`` identical instances made from a launch configuration.

    Members are ``AWS::EC2::Instance`` resources (the Nova pack) built
    from the ``AWS::AutoScaling::LaunchConfiguration`` named by
    ``LaunchConfigurationName``.  With the ``RollingUpdate`` update policy
    a new launch configuration replaces members in batches.
    ``InstanceList`` is the comma-separated list of member IP addresses.
    """

    PROPERTIES = (
        AVAILABILITY_ZONES,
        LAUNCH_CONFIGURATION_NAME,
        SIZE,
        LOAD_BALANCER_NAMES,
        TAGS,
    ) = (
        "AvailabilityZones",
        "LaunchConfigurationName",
        "Size",
        "LoadBalancerNames",
        "Tags",
    )
    _TAG_KEYS = (TAG_KEY, TAG_VALUE) = ("Key", "Value")
    _UPDATE_POLICY_SCHEMA_KEYS = (ROLLING_UPDATE,) = ("RollingUpdate",)
    _ROLLING_UPDATE_SCHEMA_KEYS = (
        MIN_INSTANCES_IN_SERVICE,
        MAX_BATCH_SIZE,
        PAUSE_TIME,
    ) = ("MinInstancesInService", "MaxBatchSize", "PauseTime")
    ATTRIBUTES = (INSTANCE_LIST,) = ("InstanceList",)

    tags_schema = Schema(
        Schema.MAP,
        schema={
            TAG_KEY: Schema(Schema.STRING, required=True),
            TAG_VALUE: Schema(Schema.STRING, required=True),
        },
    )

    properties_schema = {
        AVAILABILITY_ZONES: Schema(
            Schema.LIST, "Not used (availability zones).", required=True
        ),
        LAUNCH_CONFIGURATION_NAME: Schema(
            Schema.STRING,
            "The reference of the launch configuration of the members.",
            required=True,
            update_allowed=True,
        ),
        SIZE: Schema(
            Schema.INTEGER,
            "How many instances.",
            required=True,
            update_allowed=True,
        ),
        LOAD_BALANCER_NAMES: Schema(
            Schema.LIST, "Load balancers to register the members with."
        ),
        TAGS: Schema(
            Schema.LIST, "Tags given to the members.", schema=tags_schema
        ),
    }

    attributes_schema = {
        INSTANCE_LIST: api.attributes.Schema(
            "Comma-separated IP addresses of the members.",
            type=api.attributes.Schema.STRING,
        ),
    }

    rolling_update_schema = {
        MIN_INSTANCES_IN_SERVICE: Schema(Schema.INTEGER, default=0),
        MAX_BATCH_SIZE: Schema(Schema.INTEGER, default=1),
        PAUSE_TIME: Schema(Schema.STRING, default="PT0S"),
    }
    update_policy_schema = {
        ROLLING_UPDATE: Schema(Schema.MAP, schema=rolling_update_schema)
    }

    def _size_bounds(self) -> tuple[int, int]:
        size = self.properties[self.SIZE]
        return 0, max(size, 0)

    def _launch_config(self) -> Any:
        ref = self.properties[self.LAUNCH_CONFIGURATION_NAME]
        conf = self.stack.resource_by_refid(ref) if ref else None
        if ref and conf is None:
            raise ValueError(
                f"{self.LAUNCH_CONFIGURATION_NAME} ({ref}) reference can "
                "not be found."
            )
        return conf

    def validate(self) -> None:
        self._launch_config()
        super().validate()
        rolling = self.update_policy.get(self.ROLLING_UPDATE)
        if rolling and parse_isoduration(rolling[self.PAUSE_TIME]) > 3600:
            raise ValueError(f"Maximum {self.PAUSE_TIME} is 1 hour.")

    def _tags(self) -> list[dict[str, str]]:
        tags = list(self.properties[self.TAGS] or [])
        if any(t[self.TAG_KEY].startswith("metering.") for t in tags):
            return tags
        return tags + [
            {
                self.TAG_KEY: "metering.groupname",
                self.TAG_VALUE: self.get_reference_id(),
            }
        ]

    def _conf_properties(self) -> tuple[Any, dict[str, Any]]:
        conf = self._launch_config()
        # Only what the configuration's template set (not the defaults).
        given = conf.properties.data
        props = {
            k: conf.properties[k]
            for k in given
            if k in conf.properties and k != "InstanceId"
        }
        props["Tags"] = self._tags()
        return conf, props

    def _member_definition(self) -> dict[str, Any]:
        conf, props = self._conf_properties()
        member: dict[str, Any] = {
            "type": SCALED_RESOURCE_TYPE,
            "properties": props,
        }
        metadata = conf.t.metadata()
        if metadata:
            member["metadata"] = metadata
        return member

    def _outputs_for(self, names: list[str]) -> dict[str, Any]:
        for attr in self._referenced_attrs():
            key = attr if isinstance(attr, str) else attr[0]
            if key == self.INSTANCE_LIST:
                return {
                    key: {
                        "value": {
                            n: {"get_attr": [n, "PublicIp"]} for n in names
                        }
                    }
                }
        return {}

    def child_template(self) -> dict[str, Any]:
        return self._create_template(self.properties[self.SIZE])

    def handle_create(self) -> None:
        self.create_with_template(self.child_template(), {})

    def _rolling_policy(self) -> tuple[int, int, float] | None:
        rolling = self.update_policy.get(self.ROLLING_UPDATE)
        if not rolling:
            return None
        return (
            int(rolling[self.MIN_INSTANCES_IN_SERVICE]),
            int(rolling[self.MAX_BATCH_SIZE]),
            parse_isoduration(rolling[self.PAUSE_TIME]),
        )

    def _target_size(self) -> int | None:
        return self.properties[self.SIZE]

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> BatchSeries:
        if tmpl_diff and tmpl_diff.update_policy_changed():
            self.update_policy = json_snippet.update_policy(
                self.update_policy_schema, self.context
            )
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        series = BatchSeries(self, self.stack.timeout_mins)
        policy = self._rolling_policy()
        if (
            policy
            and prop_diff
            and (self.LAUNCH_CONFIGURATION_NAME in prop_diff)
        ):
            self._rolling_series(series, *policy)
        size = self._target_size()
        if size is not None:
            series.add_change(lambda: self._create_template(size))
        return series

    def get_attribute(self, key: str, *path: Any) -> Any:
        if key != self.INSTANCE_LIST:
            raise api.exception.InvalidTemplateAttribute(
                resource=self.name, key=key
            )
        if self.resource_id is None:
            return None
        output = self.get_output(key)
        order = [n for n, _ in self._members()]
        ips = [output[n] for n in order if n in output]
        return ",".join(ips) or None
