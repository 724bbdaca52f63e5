"""Parameter declarations: the schema of each template parameter.

A template's ``parameters`` (HOT) or ``Parameters`` (CFN) section is read
into one :class:`Schema` per parameter by the schema class of the template
version (:func:`schema_class_for`, :func:`param_schemata`).  The values
live in :mod:`keel_heat_core.template.parameters`.  Error texts are
Heat 27's (``Invalid key 'foo' for parameter (p)``, ``Invalid type (x)``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from oslo_utils import strutils

from keel_heat_core import exception
from keel_heat_core.template import constraints as constr

#: CFN parameter keys (also the legacy form of every parameter schema).
CFN_KEYS = (
    TYPE,
    DEFAULT,
    NO_ECHO,
    ALLOWED_VALUES,
    ALLOWED_PATTERN,
    MAX_LENGTH,
    MIN_LENGTH,
    MAX_VALUE,
    MIN_VALUE,
    DESCRIPTION,
    CONSTRAINT_DESCRIPTION,
    LABEL,
) = (
    "Type",
    "Default",
    "NoEcho",
    "AllowedValues",
    "AllowedPattern",
    "MaxLength",
    "MinLength",
    "MaxValue",
    "MinValue",
    "Description",
    "ConstraintDescription",
    "Label",
)


def _check_dict(schema_dict: Any, allowed: tuple[str, ...], what: str) -> None:
    if not isinstance(schema_dict, dict):
        raise exception.InvalidSchemaError(
            message=f"Invalid {what}, expected a mapping"
        )
    for key in schema_dict:
        if key not in allowed:
            raise exception.InvalidSchemaError(
                message=f"Invalid key '{key}' for {what}"
            )


def get_num(key: str, data: Mapping[str, Any]) -> Any:
    """The number under ``key`` (numeric strings converted), or None.

    :raises InvalidSchemaError: ``min/max must be numeric`` for text that
        is not a number (Heat leaks the raw ``ValueError`` here).
    """
    value = data.get(key)
    if value is None:
        return None
    try:
        return constr.str_to_num(value)
    except (ValueError, TypeError) as exc:
        raise exception.InvalidSchemaError(
            message=f"{key} must be numeric: {value!r}"
        ) from exc


class Schema:
    """The schema of one parameter, with CFN type names (the base form).

    :param data_type: the type as the template writes it.
    :raises InvalidSchemaError: ``Invalid type (...)`` for an unknown type.
    """

    TYPES: ClassVar[tuple[str, ...]] = (
        "String",
        "Number",
        "CommaDelimitedList",
        "Json",
        "Boolean",
    )
    #: the template's keys, checked by :meth:`from_dict`
    PARAMETER_KEYS: ClassVar[tuple[str, ...]] = CFN_KEYS
    #: the validate-template API's name for each type (CFN names)
    API_TYPES: ClassVar[tuple[str, ...]] = (
        "String",
        "Number",
        "CommaDelimitedList",
        "Json",
        "Boolean",
    )
    _KINDS: ClassVar[tuple[str, ...]] = (
        constr.STRING,
        constr.NUMBER,
        constr.LIST,
        constr.MAP,
        constr.BOOLEAN,
    )

    def __init__(
        self,
        data_type: Any,
        description: Any = None,
        default: Any = None,
        constraints: list[constr.Constraint] | None = None,
        hidden: Any = False,
        label: Any = None,
        immutable: Any = False,
        tags: Any = None,
    ) -> None:
        if not isinstance(data_type, str) or data_type not in self.TYPES:
            raise exception.InvalidSchemaError(
                message=f"Invalid type ({data_type})"
            )
        self.type = data_type
        self.kind = self._KINDS[self.TYPES.index(data_type)]
        self.description = description
        self.default = default
        self.constraints = list(constraints or [])
        self.hidden = hidden
        self.label = label
        self.immutable = immutable
        self.tags = tags

    @property
    def api_type(self) -> str:
        """The type's CFN name, as the validate-template API shows it."""
        return self.API_TYPES[self.TYPES.index(self.type)]

    @property
    def required(self) -> bool:
        """A parameter is required when it has no default."""
        return self.default is None

    def set_default(self, default: Any = None) -> None:
        """Replace the template default (used for the stack id)."""
        self.default = default

    def to_schema_type(self, value: Any) -> Any:
        """Convert ``value`` to this type (strings, numbers, booleans)."""
        try:
            if self.kind == constr.NUMBER:
                return constr.str_to_num(value)
            if self.kind == constr.STRING:
                return str(value)
            if self.kind == constr.BOOLEAN:
                return strutils.bool_from_string(str(value), strict=True)
        except ValueError as exc:
            raise ValueError(
                f'Value "{value}" is invalid for data type "{self.type}".'
            ) from exc
        return value

    def validate(self, context: Any = None) -> None:
        """Check the constraints fit the type and the default fits them."""
        constr.check_kinds(self.constraints, self.kind, self.type)
        self._validate_default(context)

    def _validate_default(self, context: Any) -> None:
        if self.default is None:
            return
        default = self.default
        if self.kind == constr.LIST:
            if isinstance(default, list):
                default = [str(x) for x in default]
            else:
                try:
                    default = default.split(",")
                except AttributeError as err:
                    raise exception.InvalidSchemaError(
                        message="Default must be a comma-delimited list "
                        f"string: {err}"
                    ) from err
        try:
            self.validate_value(default, context, (constr.CustomConstraint,))
        except (
            ValueError,
            TypeError,
            exception.StackValidationFailed,
        ) as exc:
            raise exception.InvalidSchemaError(
                message=f"Invalid default {self.default} ({exc})"
            ) from exc

    def validate_value(
        self,
        value: Any,
        context: Any = None,
        skipped: tuple[type[constr.Constraint], ...] = (),
    ) -> None:
        """Check ``value`` against the constraints.

        :raises StackValidationFailed: with the constraint's text.
        """
        try:
            constr.validate_all(
                self.constraints, value, self, context, skipped
            )
        except TypeError as exc:
            # Heat lets a TypeError (a pattern checked against a number...)
            # escape; report it as a validation failure instead.
            raise exception.StackValidationFailed(message=str(exc)) from exc

    @classmethod
    def _validate_dict(cls, name: str, schema_dict: Any) -> None:
        _check_dict(schema_dict, cls.PARAMETER_KEYS, f"parameter ({name})")
        if cls.PARAMETER_KEYS[0] not in schema_dict:
            raise exception.InvalidSchemaError(
                message=f"Missing parameter type for parameter: {name}"
            )
        if not isinstance(schema_dict.get("tags", []), list):
            raise exception.InvalidSchemaError(
                message=f"Tags property should be a list for parameter: {name}"
            )

    @classmethod
    def from_dict(cls, name: str, schema_dict: Any) -> Schema:
        """Read a CFN parameter declaration."""
        cls._validate_dict(name, schema_dict)
        desc = schema_dict.get(CONSTRAINT_DESCRIPTION)
        found: list[constr.Constraint] = []
        if MIN_VALUE in schema_dict or MAX_VALUE in schema_dict:
            found.append(
                constr.Range(
                    get_num(MIN_VALUE, schema_dict),
                    get_num(MAX_VALUE, schema_dict),
                    desc,
                )
            )
        if MIN_LENGTH in schema_dict or MAX_LENGTH in schema_dict:
            found.append(
                constr.Length(
                    get_num(MIN_LENGTH, schema_dict),
                    get_num(MAX_LENGTH, schema_dict),
                    desc,
                )
            )
        if ALLOWED_VALUES in schema_dict:
            found.append(
                constr.AllowedValues(schema_dict[ALLOWED_VALUES], desc)
            )
        if ALLOWED_PATTERN in schema_dict:
            found.append(
                constr.AllowedPattern(schema_dict[ALLOWED_PATTERN], desc)
            )
        return cls(
            schema_dict[TYPE],
            description=schema_dict.get(DESCRIPTION),
            default=schema_dict.get(DEFAULT),
            constraints=found,
            hidden=str(schema_dict.get(NO_ECHO, "false")).lower() == "true",
            label=schema_dict.get(LABEL),
        )


CfnParamSchema = Schema


class HOTParamSchema(Schema):
    """HOT parameter schema, 2013-05-23 to 2016-10-14 (no ``modulo``)."""

    TYPES = ("string", "number", "comma_delimited_list", "json", "boolean")
    PARAMETER_KEYS: ClassVar[tuple[str, ...]] = (
        "type",
        "description",
        "default",
        "schema",
        "constraints",
        "hidden",
        "label",
        "immutable",
    )
    CONSTRAINT_KEYS: ClassVar[tuple[str, ...]] = (
        "description",
        "length",
        "range",
        "modulo",
        "allowed_values",
        "allowed_pattern",
        "custom_constraint",
    )
    WITH_MODULO: ClassVar[bool] = False

    @classmethod
    def _constraint_from_def(cls, cdef: dict[str, Any]) -> constr.Constraint:
        desc = cdef.get("description")
        if cls.WITH_MODULO and "modulo" in cdef:
            body = cdef["modulo"]
            _check_dict(body, ("step", "offset"), "modulo constraint")
            return constr.Modulo(
                get_num("step", body), get_num("offset", body), desc
            )
        for key, ctype in (("range", constr.Range), ("length", constr.Length)):
            if key in cdef:
                body = cdef[key]
                _check_dict(body, ("min", "max"), f"{key} constraint")
                return ctype(get_num("min", body), get_num("max", body), desc)
        if "allowed_values" in cdef:
            return constr.AllowedValues(cdef["allowed_values"], desc)
        if "allowed_pattern" in cdef:
            return constr.AllowedPattern(cdef["allowed_pattern"], desc)
        if "custom_constraint" in cdef:
            return constr.CustomConstraint(cdef["custom_constraint"], desc)
        raise exception.InvalidSchemaError(message="No constraint expressed")

    @classmethod
    def _constraints(
        cls, name: str, schema_dict: dict[str, Any]
    ) -> list[constr.Constraint]:
        defs = schema_dict.get("constraints")
        if defs is None:
            return []
        if not isinstance(defs, list):
            raise exception.InvalidSchemaError(
                message=f"Invalid parameter constraints for parameter {name}"
                ", expected a list"
            )
        found = []
        for cdef in defs:
            _check_dict(cdef, cls.CONSTRAINT_KEYS, "parameter constraints")
            found.append(cls._constraint_from_def(cdef))
        return found

    @classmethod
    def from_dict(cls, name: str, schema_dict: Any) -> Schema:
        """Read a HOT parameter declaration."""
        cls._validate_dict(name, schema_dict)
        return cls(
            schema_dict["type"],
            description=schema_dict.get("description"),
            default=schema_dict.get("default"),
            constraints=cls._constraints(name, schema_dict),
            hidden=schema_dict.get("hidden", False),
            label=schema_dict.get("label"),
            immutable=schema_dict.get("immutable", False),
            tags=schema_dict.get("tags"),
        )


class HOTParamSchema20170224(HOTParamSchema):
    """HOT parameter schema from 2017-02-24: adds ``modulo``."""

    WITH_MODULO = True


class HOTParamSchema20180302(HOTParamSchema20170224):
    """HOT parameter schema from 2018-03-02: adds ``tags``."""

    PARAMETER_KEYS = (*HOTParamSchema.PARAMETER_KEYS, "tags")


#: HOT release-name aliases and the dated version each stands for.
HOT_ALIASES = {
    "newton": "2016-10-14",
    "ocata": "2017-02-24",
    "pike": "2017-09-01",
    "queens": "2018-03-02",
    "rocky": "2018-08-31",
    "wallaby": "2021-04-16",
}


def schema_class_for(version: str) -> type[Schema]:
    """The parameter schema class of a template version.

    :param version: ``heat_template_version.<date>``, or a CFN version key
        (``AWSTemplateFormatVersion.2010-09-09``,
        ``HeatTemplateFormatVersion.2012-12-12``).
    """
    key, _, date = version.partition(".")
    if key != "heat_template_version":
        return Schema
    date = HOT_ALIASES.get(date, date)
    if date >= "2018-03-02":
        return HOTParamSchema20180302
    if date >= "2017-02-24":
        return HOTParamSchema20170224
    return HOTParamSchema


def param_schemata(
    schema_class: type[Schema],
    section: Any,
    param_defaults: Mapping[str, Any] | None = None,
) -> dict[str, Schema]:
    """Read every declaration of a parameters section.

    :param param_defaults: values that replace the template defaults (for
        the property schema of a template resource).
    :raises StackValidationFailed: when the section is not a map (Heat
        leaks ``AttributeError: 'list' object has no attribute 'items'``).
    """
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise exception.StackValidationFailed(
            message="The parameters section must be a map of parameter "
            f"declarations, not {type(section).__name__}"
        )
    result = {}
    for name, defn in section.items():
        if (
            param_defaults
            and name in param_defaults
            and isinstance(defn, dict)
        ):
            defn = dict(defn)
            default_key = "default" if schema_class is not Schema else DEFAULT
            defn[default_key] = param_defaults[name]
        result[name] = schema_class.from_dict(name, defn)
    return result
