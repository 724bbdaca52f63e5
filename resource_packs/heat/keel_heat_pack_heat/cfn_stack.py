"""``AWS::CloudFormation::Stack``: a child stack from a template URL."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.stack_resource import StackResource
from keel_heat_core.plugin_api.templates import parse_template

Schema = api.properties.Schema


class NestedStack(StackResource):
    """A child stack whose template is fetched from ``TemplateURL``.

    Outputs of the child are read as ``Fn::GetAtt: [res, Outputs.<name>]``.
    Any property change, or a change of the template at the URL, updates
    the child stack in place.
    """

    PROPERTIES = (TEMPLATE_URL, TIMEOUT_IN_MINS, PARAMETERS) = (
        "TemplateURL",
        "TimeoutInMinutes",
        "Parameters",
    )

    properties_schema = {
        TEMPLATE_URL: Schema(
            Schema.STRING,
            "Where to fetch the child stack's template.",
            required=True,
            update_allowed=True,
        ),
        TIMEOUT_IN_MINS: Schema(
            Schema.INTEGER,
            "Minutes to wait for the child stack.",
            update_allowed=True,
        ),
        PARAMETERS: Schema(
            Schema.MAP,
            "Parameter values for the child stack.",
            update_allowed=True,
        ),
    }

    def _fetch(self) -> dict[str, Any]:
        url = self.properties[self.TEMPLATE_URL]
        try:
            text = self.stack.fetch_url(url)
        except Exception as exc:
            raise api.exception.Error(
                f"Could not fetch remote template '{url}': {exc}"
            ) from exc
        return parse_template(text, url)

    def child_template(self) -> dict[str, Any]:
        return self._fetch()

    def child_params(self) -> dict[str, Any]:
        return dict(self.properties[self.PARAMETERS] or {})

    def handle_create(self) -> None:
        self.create_with_template(
            self.child_template(),
            self.child_params(),
            self.properties[self.TIMEOUT_IN_MINS],
        )

    def handle_adopt(self, resource_data: Any) -> None:
        self.create_with_template(
            self.child_template(),
            self.child_params(),
            self.properties[self.TIMEOUT_IN_MINS],
            adopt_data=resource_data,
        )

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> Any:
        # The template behind the URL may have changed even when no
        # property did: always fetch it again.
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        return self.update_with_template(
            self._fetch(),
            self.child_params(),
            self.properties[self.TIMEOUT_IN_MINS],
        )

    def get_attribute(self, key: str, *path: Any) -> Any:
        if key and not key.startswith("Outputs."):
            raise api.exception.InvalidTemplateAttribute(
                resource=self.name, key=key
            )
        output = self.get_output(key.partition(".")[-1])
        return api.attributes.select_from_attribute(output, path)

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        if self.action == self.INIT:
            return None
        return self.get_attribute(key, *path)
