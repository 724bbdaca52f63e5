"""``AWS::AutoScaling::LaunchConfiguration``: how group instances look."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api

Schema = api.properties.Schema
Custom = api.constraints.CustomConstraint


class LaunchConfiguration(api.Resource):
    """The instance definition of a CloudFormation autoscaling group.

    It creates nothing: groups read its properties to build their
    instances.  Without ``InstanceId``, ``ImageId`` and ``InstanceType``
    are required; with it, the missing ones are copied from that server.
    """

    PROPERTIES = (
        IMAGE_ID,
        INSTANCE_TYPE,
        KEY_NAME,
        USER_DATA,
        SECURITY_GROUPS,
        KERNEL_ID,
        RAM_DISK_ID,
        BLOCK_DEVICE_MAPPINGS,
        NOVA_SCHEDULER_HINTS,
        INSTANCE_ID,
    ) = (
        "ImageId",
        "InstanceType",
        "KeyName",
        "UserData",
        "SecurityGroups",
        "KernelId",
        "RamDiskId",
        "BlockDeviceMappings",
        "NovaSchedulerHints",
        "InstanceId",
    )
    _NOVA_SCHEDULER_HINT_KEYS = (HINT_KEY, HINT_VALUE) = ("Key", "Value")
    _BDM_KEYS = (DEVICE_NAME, EBS, NO_DEVICE, VIRTUAL_NAME) = (
        "DeviceName",
        "Ebs",
        "NoDevice",
        "VirtualName",
    )
    _EBS_KEYS = (
        DELETE_ON_TERMINATION,
        IOPS,
        SNAPSHOT_ID,
        VOLUME_SIZE,
        VOLUME_TYPE,
    ) = (
        "DeleteOnTermination",
        "Iops",
        "SnapshotId",
        "VolumeSize",
        "VolumeType",
    )

    properties_schema = {
        IMAGE_ID: Schema(
            Schema.STRING,
            "Glance image of the instances.",
            constraints=[Custom("glance.image")],
        ),
        INSTANCE_TYPE: Schema(
            Schema.STRING,
            "Nova flavor of the instances.",
            constraints=[Custom("nova.flavor")],
        ),
        KEY_NAME: Schema(
            Schema.STRING,
            "Nova keypair of the instances.",
            constraints=[Custom("nova.keypair")],
        ),
        USER_DATA: Schema(Schema.STRING, "User data of the instances."),
        SECURITY_GROUPS: Schema(
            Schema.LIST, "Security groups of the instances."
        ),
        KERNEL_ID: Schema(
            Schema.STRING, "Not implemented.", implemented=False
        ),
        RAM_DISK_ID: Schema(
            Schema.STRING, "Not implemented.", implemented=False
        ),
        BLOCK_DEVICE_MAPPINGS: Schema(
            Schema.LIST,
            "Volumes to attach, made from snapshots.",
            schema=Schema(
                Schema.MAP,
                schema={
                    DEVICE_NAME: Schema(
                        Schema.STRING, "Device name (vda...).", required=True
                    ),
                    EBS: Schema(
                        Schema.MAP,
                        "The volume to attach.",
                        schema={
                            DELETE_ON_TERMINATION: Schema(
                                Schema.BOOLEAN,
                                "Delete the volume with the instance.",
                                default=True,
                            ),
                            IOPS: Schema(Schema.NUMBER, "Not used."),
                            SNAPSHOT_ID: Schema(
                                Schema.STRING,
                                "The snapshot to make the volume from.",
                                constraints=[Custom("cinder.snapshot")],
                            ),
                            VOLUME_SIZE: Schema(
                                Schema.STRING, "Size of the volume in GB."
                            ),
                            VOLUME_TYPE: Schema(Schema.STRING, "Not used."),
                        },
                    ),
                    NO_DEVICE: Schema(Schema.MAP, "Not used."),
                    VIRTUAL_NAME: Schema(Schema.STRING, "Not used."),
                },
            ),
        ),
        NOVA_SCHEDULER_HINTS: Schema(
            Schema.LIST,
            "Scheduler hints for the instances.",
            schema=Schema(
                Schema.MAP,
                schema={
                    HINT_KEY: Schema(Schema.STRING, required=True),
                    HINT_VALUE: Schema(Schema.STRING, required=True),
                },
            ),
        ),
        INSTANCE_ID: Schema(
            Schema.STRING,
            "A server to copy the missing settings from.",
            constraints=[Custom("nova.server")],
        ),
    }

    def rebuild_lc_properties(self, instance_id: str) -> dict[str, Any]:
        """The properties completed from server ``instance_id``."""
        server = self.client_plugin("nova").get_server(instance_id)
        from_server = {
            self.IMAGE_ID: server.image["id"],
            self.INSTANCE_TYPE: server.flavor["id"],
            self.KEY_NAME: server.key_name,
            self.SECURITY_GROUPS: [g["name"] for g in server.security_groups],
        }
        props = {
            k: self.properties.resolve(v)
            for k, v in self.properties.data.items()
        }
        for key, value in from_server.items():
            props.setdefault(key, value)
        return props

    def handle_create(self) -> None:
        instance_id = self.properties[self.INSTANCE_ID]
        if instance_id:
            props = self.rebuild_lc_properties(instance_id)
            self.properties = api.properties.Properties(
                self.properties_schema, props, context=self.context
            )

    def needs_replace_with_tmpl_diff(self, tmpl_diff: Any) -> bool:
        return bool(tmpl_diff.metadata_changed())

    def get_reference_id(self) -> str:
        return self.physical_resource_name() or super().get_reference_id()

    def validate(self) -> None:
        super().validate()
        for mapping in self.properties[self.BLOCK_DEVICE_MAPPINGS] or []:
            ebs = mapping.get(self.EBS)
            if not ebs:
                raise api.exception.StackValidationFailed(
                    message="Ebs is missing, this is required when "
                    "specifying BlockDeviceMappings."
                )
            if not ebs.get(self.SNAPSHOT_ID):
                raise api.exception.StackValidationFailed(
                    message="SnapshotId is missing, this is required when "
                    "specifying BlockDeviceMappings."
                )
        if not self.properties[self.INSTANCE_ID] and not (
            self.properties[self.IMAGE_ID]
            and self.properties[self.INSTANCE_TYPE]
        ):
            raise api.exception.StackValidationFailed(
                message="If without InstanceId, ImageId and InstanceType "
                "are required."
            )
