"""``OS::Heat::None``: a placeholder that accepts anything and does nothing."""

from __future__ import annotations

import uuid
from typing import Any

from keel_heat_core import plugin_api as api


class NoneResource(api.Resource):
    """A resource that does nothing, to stub out another one.

    Map any type to ``OS::Heat::None`` in the environment's
    ``resource_registry`` to disable it: the placeholder takes whatever
    properties the original had, ignores them, and answers null for every
    attribute.  It is never replaced or updated when those properties
    change.
    """

    support_status = api.SupportStatus(version="5.0.0")
    properties_schema = {}
    attributes_schema = {}

    IS_PLACEHOLDER = "is_placeholder"

    def _make_properties(self, definition: Any) -> api.properties.Properties:
        # The template may give the stubbed type's properties: ignore them.
        return api.properties.Properties({}, {})

    def _needs_update(
        self,
        after: Any,
        before: Any,
        after_props: Any,
        before_props: Any,
        prev_resource: Any,
        check_init_complete: bool = True,
    ) -> bool:
        return False

    def action_is_local(self, action: str) -> bool:
        return True

    def handle_create(self) -> None:
        self.resource_id_set(str(uuid.uuid4()))
        # Marks a placeholder that replaced an original resource.
        self.data_set(self.IS_PLACEHOLDER, "True")

    def validate(self) -> None:
        return None

    def get_attribute(self, key: str, *path: Any) -> Any:
        return None
