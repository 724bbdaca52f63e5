"""The schema of resource properties (``properties_schema``).

A plugin declares ``properties_schema``: a mapping of property name to
:class:`Schema`.  The JSON form of a schema (``dict(schema)``) is what the
resource-type API shows.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from keel_heat_core import exception
from keel_heat_core.template import constraints as constr
from keel_heat_core.template import support

SCHEMA_KEYS = (
    REQUIRED,
    IMPLEMENTED,
    DEFAULT,
    TYPE,
    SCHEMA,
    ALLOWED_PATTERN,
    MIN_VALUE,
    MAX_VALUE,
    ALLOWED_VALUES,
    MIN_LENGTH,
    MAX_LENGTH,
    DESCRIPTION,
    UPDATE_ALLOWED,
    IMMUTABLE,
) = (
    "Required",
    "Implemented",
    "Default",
    "Type",
    "Schema",
    "AllowedPattern",
    "MinValue",
    "MaxValue",
    "AllowedValues",
    "MinLength",
    "MaxLength",
    "Description",
    "UpdateAllowed",
    "Immutable",
)


class AnyIndexDict(Mapping[Any, "Schema"]):
    """The item schema of a list: the same schema for every index.

    Written ``{"*": <schema>}`` in JSON.
    """

    ANYTHING = "*"

    def __init__(self, value: Schema) -> None:
        self.value = value

    def __getitem__(self, key: Any) -> Schema:
        if key != self.ANYTHING and not isinstance(key, int):
            raise KeyError(f"Invalid key {key}")
        return self.value

    def __iter__(self) -> Iterator[Any]:
        yield self.ANYTHING

    def __len__(self) -> int:
        return 1


class Schema(Mapping[str, Any]):
    """The schema of one resource property.

    :param data_type: one of :attr:`TYPES`.
    :param description: user documentation of the property.
    :param default: the value used when the template gives none.
    :param schema: for a ``List``, the :class:`Schema` of every item; for a
        ``Map``, a mapping of key to :class:`Schema`.
    :param required: whether the template must give a value.
    :param constraints: constraints from :mod:`.constraints`.
    :param implemented: False for properties kept only for compatibility
        (refused when given, left out of schemas and templates).
    :param update_allowed: whether a change is applied in place
        (``handle_update``) rather than by replacement.
    :param immutable: whether a change is refused altogether.
    :param support_status: HIDDEN properties are left out of schemas.
    :param allow_conversion: accept strings for lists and lists for maps
        (provider templates with ``json`` parameters).
    """

    KEYS = (
        TYPE,
        DESCRIPTION,
        DEFAULT,
        SCHEMA,
        REQUIRED,
        CONSTRAINTS,
        UPDATE_ALLOWED,
        IMMUTABLE,
    ) = (
        "type",
        "description",
        "default",
        "schema",
        "required",
        "constraints",
        "update_allowed",
        "immutable",
    )
    TYPES = (INTEGER, STRING, NUMBER, BOOLEAN, MAP, LIST, ANY) = (
        "Integer",
        "String",
        "Number",
        "Boolean",
        "Map",
        "List",
        "Any",
    )

    def __init__(
        self,
        data_type: str,
        description: str | None = None,
        default: Any = None,
        schema: Schema | Mapping[str, Schema] | None = None,
        required: bool = False,
        constraints: Sequence[constr.Constraint] | None = None,
        implemented: bool = True,
        update_allowed: bool = False,
        immutable: bool = False,
        support_status: support.SupportStatus | None = None,
        allow_conversion: bool = False,
    ) -> None:
        if data_type not in self.TYPES:
            raise exception.InvalidSchemaError(
                message=f"Invalid type ({data_type})"
            )
        self.type = data_type
        self.description = description
        self.required = required
        self.immutable = immutable
        self.implemented = implemented
        self.update_allowed = update_allowed
        self.support_status = support_status or support.SupportStatus()
        self.allow_conversion = allow_conversion
        self.schema: Mapping[Any, Schema] | None
        if isinstance(schema, Schema):
            if data_type != self.LIST:
                raise exception.InvalidSchemaError(
                    message="Single schema valid only for "
                    f"{self.LIST}, not {data_type}"
                )
            self.schema = AnyIndexDict(schema)
        else:
            self.schema = schema
        if self.schema is not None and data_type not in (self.LIST, self.MAP):
            raise exception.InvalidSchemaError(
                message=f"Schema valid only for {self.LIST} or "
                f"{self.MAP}, not {data_type}"
            )
        self.constraints = list(constraints or [])
        self.default = default
        self.validate()

    @property
    def kind(self) -> str:
        """The constraint kind of this type (``"INTEGER"`` ...)."""
        return self.type.upper()

    def validate(self, context: Any = None) -> None:
        """Check the schema itself: constraints, default, nested schemas.

        :raises InvalidSchemaError: with Heat's texts.
        """
        if self.update_allowed and self.immutable:
            raise exception.InvalidSchemaError(
                message=f"Options {UPDATE_ALLOWED} and {IMMUTABLE} "
                "cannot both be True"
            )
        constr.check_kinds(self.constraints, self.kind, self.type)
        if self.default is not None:
            try:
                self.validate_constraints(
                    self.default, context, (constr.CustomConstraint,)
                )
            except (
                ValueError,
                TypeError,
                exception.StackValidationFailed,
            ) as exc:
                raise exception.InvalidSchemaError(
                    message=f"Invalid default {self.default} ({exc})"
                ) from exc

    def validate_constraints(
        self,
        value: Any,
        context: Any = None,
        skipped: tuple[type[constr.Constraint], ...] = (),
    ) -> None:
        """Check ``value`` against the constraints.

        :raises StackValidationFailed: with the first failure's text.
        """
        constr.validate_all(self.constraints, value, self, context, skipped)

    def to_schema_type(self, value: Any) -> Any:
        """Convert ``value`` to this schema's type (for allowed_values).

        :raises ValueError: ``Value "x" is invalid for data type "T".``
        """
        try:
            if self.type == self.INTEGER:
                num = constr.str_to_num(value)
                if isinstance(num, float):
                    raise ValueError(f"{num} is not an integer.")
                return num
            if self.type == self.NUMBER:
                return constr.str_to_num(value)
            if self.type == self.STRING:
                return str(value)
            if self.type == self.BOOLEAN:
                return _bool_from_string(str(value))
        except ValueError as exc:
            raise ValueError(
                f'Value "{value}" is invalid for data type "{self.type}".'
            ) from exc
        return value

    @classmethod
    def from_legacy(cls, schema_dict: Schema | Mapping[str, Any]) -> Schema:
        """Accept a :class:`Schema` or a CFN-style legacy dict.

        :raises InvalidSchemaError: for unknown keys or a missing type.
        """
        if isinstance(schema_dict, Schema):
            return schema_dict
        return _schema_from_legacy(cls, schema_dict)

    def __getitem__(self, key: str) -> Any:
        if key == self.TYPE:
            return self.type.lower()
        if key == self.DESCRIPTION and self.description is not None:
            return self.description
        if key == self.DEFAULT and self.default is not None:
            return self.default
        if key == self.SCHEMA and self.schema is not None:
            return {str(n): dict(s) for n, s in self.schema.items()}
        if key == self.REQUIRED:
            return self.required
        if key == self.CONSTRAINTS and self.constraints:
            return [c.to_dict() for c in self.constraints]
        if key == self.UPDATE_ALLOWED:
            return self.update_allowed
        if key == self.IMMUTABLE:
            return self.immutable
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        for key in self.KEYS:
            if key in self:
                yield key

    def __contains__(self, key: object) -> bool:
        try:
            self[key]  # type: ignore[index]
        except KeyError:
            return False
        return True

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _bool_from_string(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "t", "true", "on", "y", "yes"):
        return True
    if lowered in ("0", "f", "false", "off", "n", "no"):
        return False
    raise ValueError(f"Unrecognized value '{text}'")


def _schema_from_legacy(
    cls: type[Schema], schema_dict: Mapping[str, Any]
) -> Schema:
    unknown = [k for k in schema_dict if k not in SCHEMA_KEYS]
    if unknown:
        raise exception.InvalidSchemaError(message=f"Unknown key(s) {unknown}")

    def number(key: str) -> Any:
        value = schema_dict.get(key)
        return None if value is None else constr.str_to_num(value)

    constraints: list[constr.Constraint] = []
    if MIN_VALUE in schema_dict or MAX_VALUE in schema_dict:
        constraints.append(constr.Range(number(MIN_VALUE), number(MAX_VALUE)))
    if MIN_LENGTH in schema_dict or MAX_LENGTH in schema_dict:
        constraints.append(
            constr.Length(number(MIN_LENGTH), number(MAX_LENGTH))
        )
    if ALLOWED_VALUES in schema_dict:
        constraints.append(constr.AllowedValues(schema_dict[ALLOWED_VALUES]))
    if ALLOWED_PATTERN in schema_dict:
        constraints.append(constr.AllowedPattern(schema_dict[ALLOWED_PATTERN]))
    if TYPE not in schema_dict:
        raise exception.InvalidSchemaError(message=f"No {TYPE} specified")
    data_type = schema_dict[TYPE]
    nested: Schema | dict[str, Schema] | None = None
    if SCHEMA in schema_dict:
        if data_type == Schema.LIST:
            nested = cls.from_legacy(schema_dict[SCHEMA])
        elif data_type == Schema.MAP:
            nested = {
                n: cls.from_legacy(s) for n, s in schema_dict[SCHEMA].items()
            }
        else:
            raise exception.InvalidSchemaError(
                message=f"{SCHEMA} supplied for {TYPE} {data_type}"
            )
    return cls(
        data_type,
        description=schema_dict.get(DESCRIPTION),
        default=schema_dict.get(DEFAULT),
        schema=nested,
        required=schema_dict.get(REQUIRED, False),
        constraints=constraints,
        implemented=schema_dict.get(IMPLEMENTED, True),
        update_allowed=schema_dict.get(UPDATE_ALLOWED, False),
        immutable=schema_dict.get(IMMUTABLE, False),
    )


def schemata(schema_dicts: Mapping[str, Any]) -> dict[str, Schema]:
    """Turn a mapping of legacy or typed schemas into :class:`Schema`."""
    return {n: Schema.from_legacy(s) for n, s in schema_dicts.items()}


def visible_schemata(schema_dicts: Mapping[str, Any]) -> dict[str, Schema]:
    """The implemented, non-HIDDEN property schemas, as users see them."""
    return {
        n: s
        for n, s in schemata(schema_dicts).items()
        if s.implemented and not support.is_hidden(s.support_status)
    }
