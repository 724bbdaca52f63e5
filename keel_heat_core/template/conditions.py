"""Named conditions: evaluated once per stack definition, with cycle
detection."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core.template import function


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

    def is_enabled(self, name: Any) -> bool:
        """Whether a condition (a name, a boolean, or None) holds.

        :raises ValueError: for an unknown name, a cycle or a definition
            that does not give a boolean.
        """
        if name is None:
            return True
        if isinstance(name, bool):
            return name
        if not isinstance(name, str) or name not in self._definitions:
            raise ValueError(f'Invalid condition "{name}"')
        if name not in self._resolved:
            if name in self._resolving:
                raise ValueError(f'Circular definition for condition "{name}"')
            self._resolving.add(name)
            try:
                value = function.resolve(self._definitions[name])
            finally:
                self._resolving.discard(name)
            if not isinstance(value, bool):
                raise ValueError(
                    f'The definition of condition "{name}" is invalid: {value}'
                )
            self._resolved[name] = value
        return self._resolved[name]

    def validate(self) -> None:
        """Evaluate every condition.

        :raises ValueError: as :meth:`is_enabled`.
        """
        for name in self._definitions:
            self.is_enabled(name)
