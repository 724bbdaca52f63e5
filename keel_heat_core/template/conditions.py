"""Named conditions: evaluated lazily, once each per stack definition."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core.template import function

_ERROR = "Condition validation error"


class Conditions:
    """The parsed ``conditions`` section of a template.

    :param definitions: condition name -> parsed definition (a boolean or a
        condition function).
    """

    def __init__(self, definitions: Mapping[str, Any]) -> None:
        self._definitions = dict(definitions)
        self._resolved: dict[str, bool] = {}
        self._resolving: set[str] = set()

    def __contains__(self, name: object) -> bool:
        return name in self._definitions

    def names(self) -> list[str]:
        return list(self._definitions)

    @staticmethod
    def _check_type(name: str, definition: Any) -> None:
        if not isinstance(definition, (bool, function.Function)):
            raise exception.StackValidationFailed(
                error=_ERROR,
                message=(
                    f'The definition of condition "{name}" is invalid: '
                    f"{definition}"
                ),
            )

    def validate(self) -> None:
        """Check each definition is a boolean or a condition function and
        validate its functions (nothing is evaluated here).

        :raises StackValidationFailed: for a definition of another kind.
        """
        for name, definition in self._definitions.items():
            self._check_type(name, definition)
            function.validate(definition)

    def is_enabled(self, name: Any) -> bool:
        """Whether a condition (a name, a boolean, or None) holds.

        :raises ValueError: for an unknown name.
        :raises StackValidationFailed: for a cycle or a definition that
            does not give a boolean.
        """
        if name is None:
            return True
        if isinstance(name, bool):
            return name
        if not isinstance(name, str) or name not in self._definitions:
            raise ValueError(f'Invalid condition "{name}"')
        if name not in self._resolved:
            if name in self._resolving:
                raise exception.StackValidationFailed(
                    error=_ERROR,
                    message=f'Circular definition for condition "{name}"',
                )
            self._resolving.add(name)
            try:
                value = function.resolve(self._definitions[name])
            finally:
                self._resolving.discard(name)
            self._check_type(name, value)
            self._resolved[name] = bool(value)
        return self._resolved[name]
