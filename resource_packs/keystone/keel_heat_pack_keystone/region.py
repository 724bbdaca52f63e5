"""``OS::Keystone::Region``: a Keystone region."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib import parse

from keel_heat_core import plugin_api as api
from keel_heat_pack_keystone import base

Schema = api.properties.Schema


class KeystoneRegion(base.KeystoneResource):
    """A Keystone region, a part of the cloud that endpoints belong to.

    Regions may nest (``parent_region``). The region's id is chosen by the
    template (``id``, URL-encoded before it is sent to Keystone) or by
    Keystone; it cannot change afterwards.
    """

    support_status = base.supported_since("6.0.0")
    entity = "regions"

    PROPERTIES = (ID, PARENT_REGION, DESCRIPTION, ENABLED) = (
        "id",
        "parent_region",
        "description",
        "enabled",
    )

    properties_schema = {
        ID: Schema(
            Schema.STRING,
            "The region's id, unique in the cloud (URL-encoded when the "
            "region is created); Keystone picks one when it is not given.",
        ),
        PARENT_REGION: Schema(
            Schema.STRING,
            "The id of the region this one is part of.",
            update_allowed=True,
            constraints=[api.constraints.CustomConstraint("keystone.region")],
        ),
        DESCRIPTION: Schema(
            Schema.STRING,
            "Free text describing the region.",
            update_allowed=True,
        ),
        ENABLED: Schema(
            Schema.BOOLEAN,
            "Whether the region is in use.",
            default=True,
            update_allowed=True,
        ),
    }

    def translation_rules(self, properties: Any) -> list[Any]:
        return [
            api.translation.TranslationRule(
                properties,
                api.translation.RESOLVE,
                [self.PARENT_REGION],
                client_plugin=self.client_plugin(),
                finder="get_region_id",
            )
        ]

    def handle_create(self) -> None:
        attrs: dict[str, Any] = {"enabled": self.properties[self.ENABLED]}
        if self.properties[self.ID]:
            attrs["id"] = parse.quote(self.properties[self.ID])
        if self.properties[self.PARENT_REGION]:
            attrs["parent_region_id"] = self.properties[self.PARENT_REGION]
        if self.properties[self.DESCRIPTION] is not None:
            attrs["description"] = self.properties[self.DESCRIPTION]
        region = self.identity().create(self.entity, attrs)
        self.resource_id_set(region["id"])

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        self.update_object(
            base.changed_attrs(
                prop_diff,
                {
                    self.DESCRIPTION: "description",
                    self.ENABLED: "enabled",
                    self.PARENT_REGION: "parent_region_id",
                },
            )
        )

    def parse_live_resource_data(
        self,
        resource_properties: Mapping[str, Any],
        resource_data: Mapping[str, Any],
    ) -> dict[str, Any]:
        return {
            self.DESCRIPTION: resource_data.get("description"),
            self.ENABLED: resource_data.get("enabled"),
            self.PARENT_REGION: resource_data.get("parent_region_id"),
        }
