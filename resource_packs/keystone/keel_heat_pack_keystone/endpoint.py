"""``OS::Keystone::Endpoint``: a URL of a service in the catalog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_keystone import base

Schema = api.properties.Schema

INTERFACES = ("public", "internal", "admin")


class KeystoneEndpoint(base.KeystoneResource):
    """A URL at which a catalog service answers.

    Each endpoint belongs to one ``OS::Keystone::Service`` (by name or
    id), is offered on one interface (``public`` for everyone,
    ``internal`` for the cloud's own network, ``admin``) and optionally in
    one region. Without ``name`` the endpoint is named after the stack and
    resource.
    """

    support_status = base.supported_since("5.0.0")
    entity = "endpoints"

    PROPERTIES = (NAME, REGION, SERVICE, INTERFACE, SERVICE_URL, ENABLED) = (
        "name",
        "region",
        "service",
        "interface",
        "url",
        "enabled",
    )

    properties_schema = {
        NAME: Schema(
            Schema.STRING,
            "The endpoint's name (default: a name made from the stack and "
            "resource names).",
            update_allowed=True,
        ),
        REGION: Schema(
            Schema.STRING,
            "The region the endpoint serves, by id.",
            update_allowed=True,
            constraints=[api.constraints.CustomConstraint("keystone.region")],
        ),
        SERVICE: Schema(
            Schema.STRING,
            "The catalog service the URL belongs to, by name or id.",
            update_allowed=True,
            required=True,
            constraints=[api.constraints.CustomConstraint("keystone.service")],
        ),
        INTERFACE: Schema(
            Schema.STRING,
            "Who the URL is for: public, internal or admin.",
            update_allowed=True,
            required=True,
            constraints=[api.constraints.AllowedValues(list(INTERFACES))],
        ),
        SERVICE_URL: Schema(
            Schema.STRING,
            "The URL itself.",
            update_allowed=True,
            required=True,
        ),
        ENABLED: Schema(
            Schema.BOOLEAN,
            "Whether the endpoint appears in the catalog.",
            default=True,
            update_allowed=True,
            support_status=api.SupportStatus(version="6.0.0"),
        ),
    }

    #: property -> Keystone attribute
    _ATTRS = {
        REGION: "region_id",
        SERVICE: "service_id",
        INTERFACE: "interface",
        SERVICE_URL: "url",
        ENABLED: "enabled",
    }

    def translation_rules(self, props: Any) -> list[Any]:
        rule = api.translation.TranslationRule
        return [
            rule(
                props,
                api.translation.RESOLVE,
                [self.SERVICE],
                client_plugin=self.client_plugin(),
                finder="get_service_id",
            ),
            rule(
                props,
                api.translation.RESOLVE,
                [self.REGION],
                client_plugin=self.client_plugin(),
                finder="get_region_id",
            ),
        ]

    def handle_create(self) -> None:
        attrs = {
            attr: self.properties[prop]
            for prop, attr in self._ATTRS.items()
            if self.properties[prop] is not None
        }
        attrs["name"] = self.physical_name_or(self.properties[self.NAME])
        endpoint = self.identity().create(self.entity, attrs)
        self.resource_id_set(endpoint["id"])

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        attrs = base.changed_attrs(prop_diff, self._ATTRS)
        if self.NAME in prop_diff:
            attrs["name"] = self.physical_name_or(prop_diff[self.NAME])
        self.update_object(attrs)

    def parse_live_resource_data(
        self,
        resource_properties: Mapping[str, Any],
        resource_data: Mapping[str, Any],
    ) -> dict[str, Any]:
        live = {
            prop: resource_data.get(attr) for prop, attr in self._ATTRS.items()
        }
        live[self.NAME] = resource_data.get("name")
        return live
