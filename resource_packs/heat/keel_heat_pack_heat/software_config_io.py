"""Inputs and outputs of software configs, as stored with a config."""

from __future__ import annotations

from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_pack_heat import software_config as sc

_NO_VALUE = object()
VALUE = "value"


class IOConfig:
    """One declared input or output, checked against its schema."""

    schema: dict[str, Any] = {}

    def __init__(self, **config: Any) -> None:
        self._props = api.properties.Properties(self.schema, config)
        try:
            self._props.validate()
        except api.exception.StackValidationFailed as exc:
            raise ValueError(str(exc)) from exc

    def name(self) -> str:
        return str(self._props[sc.NAME])

    def as_dict(self) -> dict[str, Any]:
        return {k: self._props[k] for k in self._props}


class InputConfig(IOConfig):
    """A config input, with the value a deployment gives it."""

    schema = sc.INPUT_SCHEMA

    def __init__(self, value: Any = _NO_VALUE, **config: Any) -> None:
        config.pop(VALUE, None)
        super().__init__(**config)
        self._value = value

    def default(self) -> Any:
        return self._props[sc.DEFAULT]

    def replace_on_change(self) -> bool:
        return bool(self._props[sc.REPLACE_ON_CHANGE])

    def as_dict(self) -> dict[str, Any]:
        result = super().as_dict()
        if self._value is not _NO_VALUE:
            result[VALUE] = self._value
        return result

    def input_data(self) -> tuple[str, Any]:
        value = None if self._value is _NO_VALUE else self._value
        return self.name(), value


class OutputConfig(IOConfig):
    """A config output."""

    schema = sc.OUTPUT_SCHEMA

    def error_output(self) -> bool:
        return bool(self._props[sc.ERROR_OUTPUT])
