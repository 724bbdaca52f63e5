"""Condition functions (equals, not, and, or, their CFN forms) and the
``if`` macros."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from keel_heat_core.template import function
from keel_heat_core.template.function import ABSENT, is_sequence


class Equals(function.Function):
    """``equals: [a, b]``: deep equality of the resolved values."""

    description = "A function for comparing whether two values are equal."

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        if not args or not isinstance(args, list) or len(args) != 2:
            raise ValueError(
                f'Arguments to "{fn_name}" must be of the form: '
                "[value_1, value_2]"
            )
        self.value1, self.value2 = args

    def result(self) -> bool:
        left = function.resolve(self.value1)
        right = function.resolve(self.value2)
        return bool(left == right)


class ConditionBoolean(function.Function):
    """Base of not/and/or: operands are booleans, names or functions."""

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        self._check_args()

    def _check_args(self) -> None:
        if not is_sequence(self.args):
            raise ValueError(
                f'Arguments to "{self.fn_name}" must be a list of conditions'
            )
        if len(self.args) < 2:
            raise ValueError(
                "The minimum number of condition arguments to "
                f'"{self.fn_name}" is 2.'
            )

    def _get_condition(self, arg: Any) -> bool:
        if isinstance(arg, bool):
            return arg
        return self.stack.conditions().is_enabled(arg)


class Not(ConditionBoolean):
    """``not: condition``."""

    description = "A function that acts as a NOT operator on a condition."

    def _check_args(self) -> None:
        self.condition = self.args
        if self.args is None:
            raise ValueError(
                f'Argument to "{self.fn_name}" must be a condition'
            )

    def result(self) -> bool:
        return not self._get_condition(function.resolve(self.condition))


class CfnNot(Not):
    """``Fn::Not: [condition]`` (a one-item list)."""

    def _check_args(self) -> None:
        if not is_sequence(self.args) or len(self.args) != 1:
            raise ValueError(
                f'Arguments to "{self.fn_name}" must be of the form: '
                "[condition]"
            )
        self.condition = self.args[0]


class And(ConditionBoolean):
    """``and: [c1, c2, ...]``."""

    description = "A function that acts as an AND operator on conditions."

    def result(self) -> bool:
        return all(
            self._get_condition(arg) for arg in function.resolve(self.args)
        )


class Or(ConditionBoolean):
    """``or: [c1, c2, ...]``."""

    description = "A function that acts as an OR operator on conditions."

    def result(self) -> bool:
        return any(
            self._get_condition(arg) for arg in function.resolve(self.args)
        )


class If(function.Macro):
    """``if: [condition, value_if_true, value_if_false]``.

    The condition is evaluated while parsing and only the chosen branch is
    parsed, so the other branch is never validated nor a dependency.
    """

    description = (
        "A function to return corresponding value based on condition "
        "evaluation."
    )

    def _read_args(self) -> Sequence[Any]:
        if len(self.args) != 3:
            raise ValueError
        return list(self.args)

    def parse_args(self, parse_func: Any) -> Any:
        try:
            if not self.args or not is_sequence(self.args):
                raise ValueError
            condition, if_true, if_false = self._read_args()
        except ValueError as err:
            raise ValueError(
                f'Arguments to "{self.fn_name}" must be of the form: '
                "[condition_name, value_if_true, value_if_false]"
            ) from err
        cond = self.template.parse_condition(
            self.stack, condition, self.fn_name
        )
        if self._get_condition(function.resolve(cond)):
            return parse_func(if_true)
        return parse_func(if_false)

    def _get_condition(self, cond: Any) -> bool:
        if isinstance(cond, bool):
            return cond
        return self.stack.conditions().is_enabled(cond)


class IfNullable(If):
    """``if`` of 2021-04-16: ``[condition, value_if_true]`` is allowed and
    gives no value at all when the condition is false."""

    def _read_args(self) -> Sequence[Any]:
        if not 2 <= len(self.args) <= 3:
            raise ValueError
        if len(self.args) == 2:
            return [self.args[0], self.args[1], ABSENT]
        return list(self.args)
