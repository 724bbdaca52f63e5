"""``OS::Heat::AccessPolicy``: which resources a stack user may read."""

from __future__ import annotations

from keel_heat_core import plugin_api as api

Schema = api.properties.Schema


class AccessPolicy(api.Resource):
    """Lists the resources a user may describe through the CFN API.

    Attach it to an ``AWS::IAM::User`` (its ``Policies``): that user may
    then call ``DescribeStackResource`` on the listed resources only.
    """

    PROPERTIES = (ALLOWED_RESOURCES,) = ("AllowedResources",)

    properties_schema = {
        ALLOWED_RESOURCES: Schema(
            Schema.LIST,
            "Names of the resources the user may describe.",
            required=True,
        ),
    }

    def handle_create(self) -> None:
        return None

    def validate(self) -> None:
        super().validate()
        for name in self.properties[self.ALLOWED_RESOURCES]:
            if self.stack.resource_get(name) is None:
                raise api.exception.StackValidationFailed(
                    message=f"AccessPolicy resource {name} not in stack"
                )

    def access_allowed(self, resource_name: str) -> bool:
        """Whether the policy lets its user see ``resource_name``."""
        return resource_name in self.properties[self.ALLOWED_RESOURCES]
