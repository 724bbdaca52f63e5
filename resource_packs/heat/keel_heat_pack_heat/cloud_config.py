"""``OS::Heat::CloudConfig``: a cloud-init cloud-config document."""

from __future__ import annotations

import yaml

from keel_heat_core import plugin_api as api
from keel_heat_pack_heat.software_config import SoftwareConfig

Schema = api.properties.Schema


class CloudConfig(SoftwareConfig):
    """A cloud-config document built from a map, for cloud-init.

    The map is written as YAML after a ``#cloud-config`` line; use the
    resource as a server's ``user_data`` (with ``user_data_format:
    SOFTWARE_CONFIG``) or as a part of an ``OS::Heat::MultipartMime``.
    """

    support_status = api.SupportStatus(version="2014.1")

    PROPERTIES = (CLOUD_CONFIG,) = ("cloud_config",)

    properties_schema = {
        CLOUD_CONFIG: Schema(
            Schema.MAP, "The cloud-config structure, written out as YAML."
        ),
    }

    def handle_create(self) -> None:
        text = yaml.dump(
            self.properties[self.CLOUD_CONFIG], Dumper=yaml.SafeDumper
        )
        self._create_config(
            config=f"#cloud-config\n{text}", group="Heat::Ungrouped"
        )
