"""``OS::Heat::StructuredDeployment``: inputs substituted in the config."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_heat.software_deployment import SoftwareDeployment

Schema = api.properties.Schema


class StructuredDeployment(SoftwareDeployment):
    """A software deployment that fills inputs into a structured config.

    For tools without a notion of inputs (cfn-init metadata, for one), the
    deployment replaces every ``{get_input: <name>}`` of the
    ``OS::Heat::StructuredConfig`` structure with the input's value.  Use
    ``input_key`` to look for another key than ``get_input``;
    ``input_values_validate: STRICT`` refuses inputs that have no value.
    """

    support_status = api.SupportStatus(version="2014.1")

    INPUT_KEY = "input_key"
    INPUT_VALUES_VALIDATE = "input_values_validate"
    PROPERTIES = (
        *SoftwareDeployment.PROPERTIES,
        INPUT_KEY,
        INPUT_VALUES_VALIDATE,
    )

    properties_schema = {
        **SoftwareDeployment.properties_schema,
        INPUT_KEY: Schema(
            Schema.STRING,
            "The key marking an input to substitute.",
            default="get_input",
        ),
        INPUT_VALUES_VALIDATE: Schema(
            Schema.STRING,
            "STRICT refuses a substituted input without a value; LAX "
            "leaves it null.",
            default="LAX",
            constraints=[api.constraints.AllowedValues(["LAX", "STRICT"])],
        ),
    }

    def empty_config(self) -> Any:
        return {}

    def _build_derived_config(
        self, action: str, source: dict[str, Any], inputs: Any, options: Any
    ) -> Any:
        values = dict(i.input_data() for i in inputs)
        return self.parse(
            values,
            self.properties[self.INPUT_KEY],
            source.get("config"),
            self.properties[self.INPUT_VALUES_VALIDATE],
        )

    @staticmethod
    def get_input_key_arg(snippet: Mapping[str, Any], input_key: str) -> Any:
        if len(snippet) != 1:
            return None
        fn_name, fn_arg = next(iter(snippet.items()))
        if fn_name == input_key and isinstance(fn_arg, str):
            return fn_arg
        return None

    @staticmethod
    def get_input_key_value(
        fn_arg: str, inputs: Mapping[str, Any], check: str = "LAX"
    ) -> Any:
        if check == "STRICT" and fn_arg not in inputs:
            raise api.exception.UserParameterMissing(key=fn_arg)
        return inputs.get(fn_arg)

    @classmethod
    def parse(
        cls,
        inputs: Mapping[str, Any],
        input_key: str,
        snippet: Any,
        check: str = "LAX",
    ) -> Any:
        """``snippet`` with its ``{input_key: name}`` markers replaced."""
        if isinstance(snippet, Mapping):
            fn_arg = cls.get_input_key_arg(snippet, input_key)
            if fn_arg is not None:
                return cls.get_input_key_value(fn_arg, inputs, check)
            return {
                k: cls.parse(inputs, input_key, v, check)
                for k, v in snippet.items()
            }
        if isinstance(snippet, Iterable) and not isinstance(snippet, str):
            return [cls.parse(inputs, input_key, v, check) for v in snippet]
        return snippet
