"""The HOT ``yaql`` function, run by the yaql library with Heat's limits.

The limits are Heat's ``[yaql]`` options: ``limit_iterators`` (200) and
``memory_quota`` (10000); :func:`configure` changes them.
"""

from __future__ import annotations

import collections.abc  # noqa: F401 - yaql 3.2 uses it without importing
from collections.abc import Mapping
from typing import Any

import yaql
from yaql.language import exceptions as yaql_exceptions

from keel_heat_core.template import function

_LIMITS = {"limit_iterators": 200, "memory_quota": 10000}
_parser: Any = None
_context: Any = None


def configure(limit_iterators: int = 200, memory_quota: int = 10000) -> None:
    """Set the yaql limits (from the ``[yaql]`` configuration group)."""
    global _parser
    _LIMITS.update(limit_iterators=limit_iterators, memory_quota=memory_quota)
    _parser = None


def _get_parser() -> Any:
    global _parser, _context
    if _parser is None:
        options = {
            "yaql.limitIterators": _LIMITS["limit_iterators"],
            "yaql.memoryQuota": _LIMITS["memory_quota"],
        }
        _parser = yaql.YaqlFactory().create(options)
        _context = yaql.create_context()
    return _parser


class Yaql(function.Function):
    """``yaql: {expression: str, data: any}``."""

    description = "A function for executing a yaql expression."

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        if not isinstance(args, Mapping):
            raise TypeError(f'Arguments to "{fn_name}" must be a map.')
        if set(args) - {"expression", "data"}:
            example = (
                f"{fn_name}:\n"
                "              expression: $.data.var1.sum()\n"
                "              data:\n"
                "                var1: [3, 2, 1]"
            )
            raise KeyError(f'"{fn_name}" syntax should be {example}')
        self._expression = args.get("expression")
        self._data = args.get("data", {})

    def validate(self) -> None:
        super().validate()
        if not isinstance(self._expression, function.Function):
            self._parse(self._expression)

    def _parse(self, expression: Any) -> Any:
        if not isinstance(expression, str):
            raise TypeError(
                f'The "expression" argument to {self.fn_name} must contain '
                "a string."
            )
        parse = _get_parser()
        try:
            return parse(expression)
        except yaql_exceptions.YaqlException as err:
            raise ValueError(f"Bad expression {err}.") from err

    def result(self) -> Any:
        statement = self._parse(function.resolve(self._expression))
        data = function.resolve(self._data)
        context = _context.create_child_context()
        try:
            return statement.evaluate({"data": data}, context)
        except yaql_exceptions.YaqlException as err:
            raise ValueError(str(err)) from err
