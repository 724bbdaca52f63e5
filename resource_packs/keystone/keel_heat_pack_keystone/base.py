"""What every Keystone type shares: the client, ``show``, delete.

Each type talks to Keystone through the ``keystone`` client plugin
(keel-heat-client-keystone): its finders turn names into ids and its
``identity_api()`` sends Keystone's v3 JSON. ``entity`` is the Keystone
collection (``projects``, ``users`` …): the ``show`` attribute is
Keystone's own view of the object and the default delete removes it,
ignoring an object that is already gone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from keel_heat_core import plugin_api as api

#: Every Keystone type needs Keystone's v3 API.
SUPPORT_MESSAGE = "Supported versions: keystone v3"


def supported_since(version: str) -> api.SupportStatus:
    """The support status of a type added to Heat in ``version``."""
    return api.SupportStatus(version=version, message=SUPPORT_MESSAGE)


class KeystoneResource(api.Resource):
    """Base of the ``OS::Keystone::*`` types."""

    default_client_name: ClassVar[str | None] = "keystone"
    entity: ClassVar[str | None] = None

    def identity(self) -> Any:
        """Keystone v3 as JSON calls (the client plugin's IdentityAPI)."""
        return self.client_plugin().identity_api()

    def physical_name_or(self, name: str | None) -> str:
        """``name``, or the physical resource name when it is empty."""
        return name or str(self.physical_resource_name())

    def _show_resource(self) -> Any:
        if self.entity is None or self.resource_id is None:
            return None
        return self.identity().show(self.entity, self.resource_id)

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        shown = self._show_resource() or {}
        return shown.get(name)

    def update_object(self, attrs: Mapping[str, Any]) -> None:
        """PATCH the object with the attributes that are set."""
        if attrs and self.entity and self.resource_id is not None:
            self.identity().update(self.entity, self.resource_id, attrs)

    def handle_delete(self) -> None:
        if self.entity is None or self.resource_id is None:
            return None
        with self.client_plugin().ignore_not_found:
            self.identity().delete(self.entity, self.resource_id)
        return None


def changed_attrs(
    prop_diff: Mapping[str, Any], mapping: Mapping[str, str]
) -> dict[str, Any]:
    """Keystone attributes for the changed properties.

    :param prop_diff: changed property name -> new value.
    :param mapping: property name -> Keystone attribute name.
    """
    return {
        attr: prop_diff[prop]
        for prop, attr in mapping.items()
        if prop in prop_diff
    }
