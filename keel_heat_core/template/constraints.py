"""Constraints on parameter and property values, as Heat writes them.

The six constraint kinds (``length``, ``range``, ``modulo``,
``allowed_values``, ``allowed_pattern``, ``custom_constraint``) are shared by
template parameters (:mod:`keel_heat_core.template.parameters`) and resource
properties (:mod:`keel_heat_core.template.properties`).  Each constraint:

* knows which schema kinds it may be put on (``valid_kinds``);
* checks a value with :meth:`Constraint.validate`, raising ``ValueError``
  with Heat's exact text (or the constraint's ``description`` when set);
* serialises to Heat's JSON form with :meth:`Constraint.to_dict` (and
  ``dict(c)``), e.g. ``{"range": {"min": 1, "max": 5}}``.

Custom constraints are looked up by name in a
:class:`~keel_heat_core.template.custom_constraints.ConstraintRegistry`
(the ``keel_heat.constraints`` entry-point group).
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Protocol

from keel_heat_core import exception

#: Schema kinds, whatever the name a schema gives its type.
KINDS = (INTEGER, STRING, NUMBER, BOOLEAN, MAP, LIST, ANY) = (
    "INTEGER",
    "STRING",
    "NUMBER",
    "BOOLEAN",
    "MAP",
    "LIST",
    "ANY",
)


class SchemaLike(Protocol):
    """What a constraint needs to know of the schema it checks against."""

    def to_schema_type(self, value: Any) -> Any:
        """Convert ``value`` to the schema's type (for allowed_values)."""


class CustomConstraintLookup(Protocol):
    """Anything that finds a custom constraint class by name."""

    def get_constraint(self, name: str) -> Any:
        """Return the constraint class for ``name`` or ``None``."""


def str_to_num(value: Any) -> Any:
    """Turn a number or numeric string into ``int`` if it can, else float.

    A value that already is a number (``bool`` included, as in Heat) comes
    back as it is.

    :raises ValueError: ``could not convert string to float: ...``.
    :raises TypeError: for values that are neither strings nor numbers.
    """
    if isinstance(value, numbers.Number):
        return value
    try:
        return int(value)
    except ValueError:
        return float(value)


def dumps(value: Any) -> str:
    """JSON text as Heat's ``jsonutils.dumps`` writes it in messages."""
    return json.dumps(value, default=str)


class Constraint(Mapping[str, Any]):
    """Base of the constraints on allowable values.

    :param description: text that replaces the default failure message.
    """

    DESCRIPTION = "description"
    #: the key of the constraint in its JSON form
    name_key: ClassVar[str] = ""
    #: the schema kinds this constraint may be put on
    valid_kinds: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, description: str | None = None) -> None:
        self.description = description

    def validate(
        self,
        value: Any,
        schema: SchemaLike | None = None,
        context: Any = None,
    ) -> None:
        """Check ``value``.

        :raises ValueError: with the description, or Heat's default text.
        """
        if not self._is_valid(value, schema, context):
            if self.description:
                raise ValueError(self.description)
            raise ValueError(self._err_msg(value))

    def _is_valid(
        self, value: Any, schema: SchemaLike | None, context: Any
    ) -> bool:
        raise NotImplementedError

    def _err_msg(self, value: Any) -> str:
        raise NotImplementedError

    def _constraint(self) -> Any:
        raise NotImplementedError

    def _str(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        parts = [self.description] if self.description else []
        parts.append(self._str())
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """Heat's JSON form, with ``description`` when set."""
        return dict(self)

    def __getitem__(self, key: str) -> Any:
        if key == self.DESCRIPTION and self.description is not None:
            return self.description
        if key == self.name_key:
            return self._constraint()
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        if self.description is not None:
            yield self.DESCRIPTION
        yield self.name_key

    def __len__(self) -> int:
        return 2 if self.description is not None else 1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Constraint):
            return NotImplemented
        return type(self) is type(other) and dict(self) == dict(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, json.dumps(dict(self), default=str)))


def _check_bounds_numeric(*values: Any) -> None:
    for value in values:
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int | float)
        ):
            raise exception.InvalidSchemaError(
                message="min/max must be numeric"
            )


class Range(Constraint):
    """Keep a number between ``min`` and ``max`` (either may be absent)."""

    MIN, MAX = "min", "max"
    name_key = "range"
    valid_kinds = frozenset({INTEGER, NUMBER})

    def __init__(
        self,
        min: Any = None,  # noqa: A002 - Heat's argument name
        max: Any = None,  # noqa: A002 - Heat's argument name
        description: str | None = None,
    ) -> None:
        super().__init__(description)
        self.min = min
        self.max = max
        _check_bounds_numeric(min, max)
        if min is None and max is None:
            raise exception.InvalidSchemaError(
                message="A range constraint must have a min value and/or "
                "a max value specified."
            )

    def _str(self) -> str:
        if self.max is None:
            return f"The value must be at least {self.min}."
        if self.min is None:
            return f"The value must be no greater than {self.max}."
        return f"The value must be in the range {self.min} to {self.max}."

    def _err_msg(self, value: Any) -> str:
        return f"{value} is out of range (min: {self.min}, max: {self.max})"

    def _in_bounds(self, value: Any) -> bool:
        if self.min is not None and value < self.min:
            return False
        return not (self.max is not None and value > self.max)

    def _is_valid(
        self, value: Any, schema: SchemaLike | None, context: Any
    ) -> bool:
        return self._in_bounds(str_to_num(value))

    def _constraint(self) -> dict[str, Any]:
        result = {}
        if self.min is not None:
            result[self.MIN] = self.min
        if self.max is not None:
            result[self.MAX] = self.max
        return result


class Length(Range):
    """Keep the length of a string, list or map between min and max."""

    name_key = "length"
    valid_kinds = frozenset({STRING, LIST, MAP})

    def __init__(
        self,
        min: Any = None,  # noqa: A002 - Heat's argument name
        max: Any = None,  # noqa: A002 - Heat's argument name
        description: str | None = None,
    ) -> None:
        if min is None and max is None:
            raise exception.InvalidSchemaError(
                message="A length constraint must have a min value and/or "
                "a max value specified."
            )
        super().__init__(min, max, description)
        for bound in (min, max):
            if bound is not None and not isinstance(bound, int):
                raise exception.InvalidSchemaError(
                    message="min/max length must be integral"
                )

    def _str(self) -> str:
        if self.max is None:
            return f"The length must be at least {self.min}."
        if self.min is None:
            return f"The length must be no greater than {self.max}."
        return f"The length must be in the range {self.min} to {self.max}."

    def _err_msg(self, value: Any) -> str:
        return (
            f"length ({len(value)}) is out of range "
            f"(min: {self.min}, max: {self.max})"
        )

    def _is_valid(
        self, value: Any, schema: SchemaLike | None, context: Any
    ) -> bool:
        return self._in_bounds(len(value))


class Modulo(Constraint):
    """Keep a number at ``offset`` from a multiple of ``step``."""

    STEP, OFFSET = "step", "offset"
    name_key = "modulo"
    valid_kinds = frozenset({INTEGER, NUMBER})

    def __init__(
        self,
        step: Any = None,
        offset: Any = None,
        description: str | None = None,
    ) -> None:
        super().__init__(description)
        self.step = step
        self.offset = offset
        if step is None or offset is None:
            raise exception.InvalidSchemaError(
                message="A modulo constraint must have a step value and "
                "an offset value specified."
            )
        for param in (step, offset):
            if isinstance(param, bool) or not isinstance(param, int | float):
                raise exception.InvalidSchemaError(
                    message="step/offset must be numeric"
                )
            if int(param) != param:
                raise exception.InvalidSchemaError(
                    message="step/offset must be integer"
                )
        istep, ioffset = int(step), int(offset)
        if istep == 0:
            raise exception.InvalidSchemaError(message="step cannot be 0.")
        if abs(ioffset) >= abs(istep):
            raise exception.InvalidSchemaError(
                message="offset must be smaller (by absolute value) than step."
            )
        if istep * ioffset < 0:
            raise exception.InvalidSchemaError(
                message="step and offset must be both positive or both "
                "negative."
            )

    def _str(self) -> str:
        return (
            f"The value must be a multiple of {self.step} "
            f"with an offset of {self.offset}."
        )

    def _err_msg(self, value: Any) -> str:
        return (
            f"{value} is not a multiple of {self.step} "
            f"with an offset of {self.offset}"
        )

    def _is_valid(
        self, value: Any, schema: SchemaLike | None, context: Any
    ) -> bool:
        return bool(str_to_num(value) % self.step == self.offset)

    def _constraint(self) -> dict[str, Any]:
        return {self.STEP: self.step, self.OFFSET: self.offset}


class AllowedValues(Constraint):
    """Keep a value (or every item of a list) within a fixed set."""

    name_key = "allowed_values"
    valid_kinds = frozenset({STRING, INTEGER, NUMBER, BOOLEAN, LIST})

    def __init__(self, allowed: Any, description: str | None = None) -> None:
        super().__init__(description)
        if not isinstance(allowed, Sequence) or isinstance(
            allowed, str | bytes
        ):
            raise exception.InvalidSchemaError(
                message="AllowedValues must be a list"
            )
        self.allowed = tuple(allowed)

    def _str(self) -> str:
        return "Allowed values: {}".format(
            ", ".join(str(a) for a in self.allowed)
        )

    def _err_msg(self, value: Any) -> str:
        allowed = dumps(list(self.allowed))
        return f"{dumps(value)} is not an allowed value {allowed}"

    def _is_valid(
        self, value: Any, schema: SchemaLike | None, context: Any
    ) -> bool:
        if isinstance(value, list):
            return all(item in self.allowed for item in value)
        if schema is not None:
            allowed = [schema.to_schema_type(a) for a in self.allowed]
            return bool(schema.to_schema_type(value) in allowed)
        return value in self.allowed

    def _constraint(self) -> list[Any]:
        return list(self.allowed)


class AllowedPattern(Constraint):
    """Make a string match a regular expression over its whole length."""

    name_key = "allowed_pattern"
    valid_kinds = frozenset({STRING})

    def __init__(self, pattern: Any, description: str | None = None) -> None:
        super().__init__(description)
        if not isinstance(pattern, str):
            raise exception.InvalidSchemaError(
                message="AllowedPattern must be a string"
            )
        self.pattern = pattern
        try:
            self._regex = re.compile(pattern)
        except re.error as exc:
            # Heat lets re.error escape as a 500; say what is wrong instead.
            raise exception.InvalidSchemaError(
                message=f'Invalid AllowedPattern "{pattern}": {exc}'
            ) from exc

    def _str(self) -> str:
        return f"Value must match pattern: {self.pattern}"

    def _err_msg(self, value: Any) -> str:
        return f'"{value}" does not match pattern "{self.pattern}"'

    def _is_valid(
        self, value: Any, schema: SchemaLike | None, context: Any
    ) -> bool:
        match = self._regex.match(value)
        return match is not None and match.end() == len(value)

    def _constraint(self) -> str:
        return self.pattern


class CustomConstraint(Constraint):
    """Delegate the check to a named custom constraint.

    :param name: the constraint's registered name (``ip_addr``,
        ``nova.flavor``, ...).
    :param environment: where to look the name up (anything with
        ``get_constraint(name)``); the default registry when ``None``.
    """

    name_key = "custom_constraint"
    valid_kinds = frozenset({STRING, INTEGER, NUMBER, BOOLEAN, LIST})

    def __init__(
        self,
        name: str,
        description: str | None = None,
        environment: CustomConstraintLookup | None = None,
    ) -> None:
        super().__init__(description)
        self.name = name
        self._environment = environment
        self._custom: Any = None

    @property
    def custom_constraint(self) -> Any:
        """The constraint object, or ``None`` when the name is unknown."""
        if self._custom is None:
            env = self._environment
            if env is None:
                from keel_heat_core.template import custom_constraints

                env = custom_constraints.default_registry()
            constraint_class = env.get_constraint(self.name)
            if constraint_class is not None:
                self._custom = constraint_class()
        return self._custom

    def _str(self) -> str:
        message = getattr(self.custom_constraint, "message", None)
        return message or f"Value must be of type {self.name}"

    def _err_msg(self, value: Any) -> str:
        constraint = self.custom_constraint
        if constraint is None:
            return (
                f'"{value}" does not validate {self.name} '
                "(constraint not found)"
            )
        error = getattr(constraint, "error", None)
        if error is not None:
            return str(error(value))
        return f'"{value}" does not validate {self.name}'

    def _is_valid(
        self, value: Any, schema: SchemaLike | None, context: Any
    ) -> bool:
        constraint = self.custom_constraint
        if constraint is None:
            return False
        return bool(constraint.validate(value, context))

    def _constraint(self) -> str:
        return self.name


def check_kinds(
    constraints: Iterable[Constraint], kind: str, type_name: str
) -> None:
    """Refuse constraints put on a schema type they do not support.

    :param kind: the schema's kind (one of :data:`KINDS`).
    :param type_name: the type as the schema writes it, for the message.
    :raises InvalidSchemaError: ``Length constraint invalid for number``.
    """
    for c in constraints:
        if kind not in c.valid_kinds:
            raise exception.InvalidSchemaError(
                message=f"{type(c).__name__} constraint invalid for "
                f"{type_name}"
            )


def validate_all(
    constraints: Iterable[Constraint],
    value: Any,
    schema: SchemaLike | None = None,
    context: Any = None,
    skipped: tuple[type[Constraint], ...] = (),
) -> None:
    """Check ``value`` against each constraint, in order.

    :param skipped: constraint classes not to check (Heat skips custom
        constraints for defaults).
    :raises StackValidationFailed: with the first failure's text.
    """
    try:
        for c in constraints:
            if type(c) not in skipped:
                c.validate(value, schema, context)
    except ValueError as exc:
        raise exception.StackValidationFailed(message=str(exc)) from exc


def from_dict(
    data: Mapping[str, Any], environment: CustomConstraintLookup | None = None
) -> Constraint:
    """Build a constraint from its JSON form (the inverse of ``to_dict``).

    :raises InvalidSchemaError: for a form with no known constraint key.
    """
    desc = data.get(Constraint.DESCRIPTION)
    if "range" in data:
        return Range(**dict(data["range"]), description=desc)
    if "length" in data:
        return Length(**dict(data["length"]), description=desc)
    if "modulo" in data:
        return Modulo(**dict(data["modulo"]), description=desc)
    if "allowed_values" in data:
        return AllowedValues(data["allowed_values"], desc)
    if "allowed_pattern" in data:
        return AllowedPattern(data["allowed_pattern"], desc)
    if "custom_constraint" in data:
        return CustomConstraint(data["custom_constraint"], desc, environment)
    raise exception.InvalidSchemaError(message="No constraint expressed")
