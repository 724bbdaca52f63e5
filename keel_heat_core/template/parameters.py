"""Template parameters: values, conversion, pseudo parameters, validation.

:class:`HOTParameters` and :class:`CfnParameters` put together, for one
stack, the parameter schemata of its template
(:mod:`~keel_heat_core.template.parameter_schema`), the user values, the
environment's ``parameter_defaults`` and the pseudo parameters
(``OS::stack_id``, ``AWS::Region``...).  ``params[name]`` is the converted
value that ``get_param``/``Ref`` return; ``str(params.params[name])`` is
the text the stack show writes (``******`` when hidden).  Error texts are
Heat 27's, e.g. ``Parameter 'p' is invalid: 5 is out of range (min: 1,
max: 3)``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, Protocol

from oslo_utils import strutils

from keel_heat_core import exception
from keel_heat_core.template import constraints as constr
from keel_heat_core.template.parameter_schema import (
    CfnParamSchema,
    HOTParamSchema,
    HOTParamSchema20170224,
    HOTParamSchema20180302,
    Schema,
    param_schemata,
    schema_class_for,
)

__all__ = [
    "HIDDEN_VALUE",
    "CfnParamSchema",
    "CfnParameters",
    "HOTParamSchema",
    "HOTParamSchema20170224",
    "HOTParamSchema20180302",
    "HOTParameters",
    "Parameter",
    "Parameters",
    "Schema",
    "StackIdentity",
    "format_validate_parameter",
    "make_parameters",
    "template_schemata",
    "param_schemata",
    "schema_class_for",
]

HIDDEN_VALUE = "******"

AWS_REGIONS = (
    "us-east-1",
    "us-west-1",
    "us-west-2",
    "sa-east-1",
    "eu-west-1",
    "ap-southeast-1",
    "ap-northeast-1",
)


class StackIdentity(Protocol):
    """What the pseudo parameters read from a stack's identifier."""

    stack_id: Any
    stack_name: Any
    tenant: Any

    def arn(self) -> str:
        """``arn:openstack:heat::<tenant>:stacks/<name>/<id>``."""


class Parameter:
    """One parameter: its schema, the user value and a default override.

    ``Parameter(name, schema, value)`` makes the subclass for the schema's
    type.  Conversion errors surface from :meth:`validate`, never from the
    constructor.
    """

    def __new__(
        cls, name: str, schema: Schema, value: Any = None
    ) -> Parameter:
        if cls is not Parameter:
            return super().__new__(cls)
        subclass = _PARAM_CLASSES[schema.kind]
        return super().__new__(subclass)

    def __init__(self, name: str, schema: Schema, value: Any = None) -> None:
        self.name = name
        self.schema = schema
        self.user_value = value
        self.user_default: Any = None

    def validate(
        self, validate_value: bool = True, context: Any = None
    ) -> None:
        """Check the schema, then the user value or the default.

        :raises StackValidationFailed: ``Parameter 'p' is invalid: ...``.
        :raises InvalidSchemaError: the same prefix, for schema errors.
        :raises UserParameterMissing: when there is no value at all.
        """
        prefix = f"Parameter '{self.name}' is invalid: "
        try:
            self.schema.validate(context)
            if not validate_value:
                return
            if self.user_value is not None:
                self._validate(self.user_value, context)
            elif self.has_default():
                self._validate(self.default(), context)
            else:
                raise exception.UserParameterMissing(key=self.name)
        except exception.StackValidationFailed as exc:
            raise exception.StackValidationFailed(
                message=prefix + str(exc)
            ) from exc
        except exception.InvalidSchemaError as exc:
            raise exception.InvalidSchemaError(
                message=prefix + str(exc)
            ) from exc

    def _validate(self, value: Any, context: Any) -> None:
        self.schema.validate_value(value, context)

    def raw_value(self) -> Any:
        """The user value, else the default, unconverted."""
        if self.user_value is not None:
            return self.user_value
        if self.has_default():
            return self.default()
        raise exception.UserParameterMissing(key=self.name)

    def value(self) -> Any:
        """The converted value (what ``get_param`` returns)."""
        return self.raw_value()

    def has_value(self) -> bool:
        """Whether there is a user value or a default."""
        return self.user_value is not None or self.has_default()

    def hidden(self) -> bool:
        """Whether the value is shown as ``******``."""
        return bool(self.schema.hidden)

    def description(self) -> Any:
        """The description, ``''`` when there is none."""
        return self.schema.description or ""

    def label(self) -> Any:
        """The label, the parameter name when there is none."""
        return self.schema.label or self.name

    def tags(self) -> Any:
        """The tags (HOT 2018-03-02 and later), ``[]`` when none."""
        return self.schema.tags or []

    def has_default(self) -> bool:
        """Whether the template or ``parameter_defaults`` gives a default."""
        return self.schema.default is not None or self.user_default is not None

    def default(self) -> Any:
        """The ``parameter_defaults`` value, else the template default."""
        if self.user_default is not None:
            return self.user_default
        return self.schema.default

    def set_default(self, value: Any) -> None:
        """Set the default from the environment's ``parameter_defaults``."""
        self.user_default = value

    @classmethod
    def _value_as_text(cls, value: Any) -> str:
        return str(value)

    def __str__(self) -> str:
        value = self.value()
        if self.hidden():
            return HIDDEN_VALUE
        return self._value_as_text(value)


class StringParam(Parameter):
    """A ``string`` parameter: any value, written as text."""

    def value(self) -> Any:
        return self.schema.to_schema_type(self.raw_value())


class NumberParam(Parameter):
    """A ``number`` parameter: ``int`` when it can be, else ``float``."""

    def _validate(self, value: Any, context: Any) -> None:
        try:
            constr.str_to_num(value)
        except (ValueError, TypeError) as exc:
            raise exception.StackValidationFailed(message=str(exc)) from exc
        self.schema.validate_value(value, context)

    def value(self) -> Any:
        return constr.str_to_num(self.raw_value())


class BooleanParam(Parameter):
    """A ``boolean`` parameter, read strictly (``yes``, ``off``, ``1``...)."""

    def _validate(self, value: Any, context: Any) -> None:
        try:
            strutils.bool_from_string(value, strict=True)
        except ValueError as exc:
            raise exception.StackValidationFailed(message=str(exc)) from exc
        self.schema.validate_value(value, context)

    def value(self) -> bool:
        return bool(
            strutils.bool_from_string(str(self.raw_value()), strict=True)
        )


class CommaDelimitedListParam(Parameter):
    """A ``comma_delimited_list``: a list, or a string split on commas."""

    @staticmethod
    def parse(value: Any) -> Any:
        """Split a string on ``,`` (no trimming); stringify list items."""
        if isinstance(value, list):
            return [str(x) for x in value]
        if value is None:
            return None
        if value == "":
            return []
        try:
            return value.split(",")
        except (KeyError, AttributeError) as err:
            raise ValueError(
                f"Value must be a comma-delimited list string: {err}"
            ) from err

    def _validate(self, value: Any, context: Any) -> None:
        try:
            parsed = self.parse(value)
        except ValueError as exc:
            raise exception.StackValidationFailed(message=str(exc)) from exc
        self.schema.validate_value(parsed, context)

    def value(self) -> Any:
        return self.parse(self.raw_value())

    @classmethod
    def _value_as_text(cls, value: Any) -> str:
        return ",".join(value)


class JsonParam(Parameter):
    """A ``json`` parameter: a map or list, or text that parses as JSON."""

    @staticmethod
    def parse(value: Any) -> Any:
        """Parse JSON text; ``''`` stays ``''``."""
        try:
            text = value
            if not isinstance(text, str):
                text = json.dumps(text)
            if text:
                return json.loads(text)
        except (ValueError, TypeError) as err:
            raise ValueError(f"Value must be valid JSON: {err}") from err
        return value

    def _validate(self, value: Any, context: Any) -> None:
        try:
            parsed = self.parse(value)
        except ValueError as exc:
            raise exception.StackValidationFailed(message=str(exc)) from exc
        self.schema.validate_value(parsed, context)

    def value(self) -> Any:
        return self.parse(self.raw_value())

    @classmethod
    def _value_as_text(cls, value: Any) -> str:
        return json.dumps(value)


_PARAM_CLASSES: dict[str, type[Parameter]] = {
    constr.STRING: StringParam,
    constr.NUMBER: NumberParam,
    constr.LIST: CommaDelimitedListParam,
    constr.MAP: JsonParam,
    constr.BOOLEAN: BooleanParam,
}


class Parameters(Mapping[str, Any]):
    """The parameters of one stack; ``params[name]`` is the value.

    :param stack_identifier: the stack's identity, or ``None`` before the
        stack exists.
    :param schemata: the template's declarations (:func:`param_schemata`).
    :param user_params: values from the request and the environment.
    :param param_defaults: the environment's ``parameter_defaults``
        (names the template does not declare are ignored).
    """

    PSEUDO_PARAMETERS: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        stack_identifier: StackIdentity | None,
        schemata: Mapping[str, Schema],
        user_params: Mapping[str, Any] | None = None,
        param_defaults: Mapping[str, Any] | None = None,
    ) -> None:
        self.user_params = dict(user_params or {})
        self.schemata = dict(schemata)
        self.params: dict[str, Parameter] = {}
        for param in self._pseudo_parameters(stack_identifier):
            self.params[param.name] = param
        for name, schema in self.schemata.items():
            self.params[name] = Parameter(
                name, schema, self.user_params.get(name)
            )
        self.non_pseudo_param_keys = [
            p for p in self.params if p not in self.PSEUDO_PARAMETERS
        ]
        for name, value in (param_defaults or {}).items():
            if name in self.params:
                self.params[name].set_default(value)

    def _pseudo_parameters(
        self, stack_identifier: StackIdentity | None
    ) -> Iterator[Parameter]:
        raise NotImplementedError

    def validate(
        self, validate_value: bool = True, context: Any = None
    ) -> None:
        """Refuse unknown user parameters, then check every parameter."""
        for name in self.user_params:
            if name not in self.schemata:
                raise exception.UnknownUserParameter(key=name)
        for param in self.params.values():
            param.validate(validate_value, context)

    def __contains__(self, key: object) -> bool:
        return key in self.params

    def __iter__(self) -> Iterator[str]:
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)

    def __getitem__(self, key: str) -> Any:
        return self.params[key].value()

    def map(
        self,
        func: Callable[[Parameter], Any],
        filter_func: Callable[[Parameter], bool] = lambda p: True,
    ) -> dict[str, Any]:
        """Apply ``func`` to each parameter (that ``filter_func`` keeps)."""
        return {n: func(p) for n, p in self.params.items() if filter_func(p)}

    def shown(self) -> dict[str, str]:
        """The ``parameters`` map of a stack show (hidden as ``******``)."""
        return self.map(str)

    display = shown

    def set_stack_id(self, stack_identifier: StackIdentity | None) -> bool:
        """Give the stack-id pseudo parameter its value once stored."""
        raise NotImplementedError

    def immutable_params_modified(
        self, new_parameters: Parameters, input_params: Mapping[str, Any]
    ) -> list[str] | None:
        """Names of immutable parameters an update would change.

        Compares the old *converted* value with the new *raw* input, as
        Heat does (``'5'`` against ``5`` counts as a change).
        """
        common = set(new_parameters.non_pseudo_param_keys) & set(
            self.non_pseudo_param_keys
        )
        invalid = []
        for name in sorted(common):
            if name in input_params:
                new_value = input_params[name]
            else:
                new_value = new_parameters[name]
            immutable = new_parameters.params[name].schema.immutable
            if immutable and self.params[name].value() != new_value:
                invalid.append(name)
        return invalid or None


def _pseudo(
    name: str, value: Any, description: str | None = None
) -> Parameter:
    return Parameter(name, Schema("String", description, default=value))


class HOTParameters(Parameters):
    """Parameters of a HOT template: ``OS::stack_id``, ``OS::project_id``,
    ``OS::stack_name`` (``OS::region`` is reserved, never defined)."""

    PSEUDO_PARAMETERS = (
        PARAM_STACK_ID,
        PARAM_STACK_NAME,
        PARAM_REGION,
        PARAM_PROJECT_ID,
    ) = ("OS::stack_id", "OS::stack_name", "OS::region", "OS::project_id")

    def _pseudo_parameters(
        self, stack_identifier: StackIdentity | None
    ) -> Iterator[Parameter]:
        stack_id = getattr(stack_identifier, "stack_id", "")
        stack_name = getattr(stack_identifier, "stack_name", "")
        tenant = getattr(stack_identifier, "tenant", "")
        yield _pseudo(self.PARAM_STACK_ID, str(stack_id), "Stack ID")
        yield _pseudo(self.PARAM_PROJECT_ID, str(tenant), "Project ID")
        if stack_name:
            yield _pseudo(self.PARAM_STACK_NAME, stack_name, "Stack Name")

    def set_stack_id(self, stack_identifier: StackIdentity | None) -> bool:
        if stack_identifier is None:
            return False
        self.params[self.PARAM_STACK_ID].schema.set_default(
            stack_identifier.stack_id
        )
        return True


class CfnParameters(Parameters):
    """Parameters of a CFN template: ``AWS::StackId``, ``AWS::StackName``,
    ``AWS::Region`` (always ``ap-southeast-1``)."""

    PSEUDO_PARAMETERS = (
        PARAM_STACK_ID,
        PARAM_STACK_NAME,
        PARAM_REGION,
    ) = ("AWS::StackId", "AWS::StackName", "AWS::Region")

    def _pseudo_parameters(
        self, stack_identifier: StackIdentity | None
    ) -> Iterator[Parameter]:
        stack_id = (
            stack_identifier.arn() if stack_identifier is not None else "None"
        )
        stack_name = getattr(stack_identifier, "stack_name", None)
        yield _pseudo(self.PARAM_STACK_ID, str(stack_id), "Stack ID")
        if stack_name:
            yield _pseudo(self.PARAM_STACK_NAME, stack_name, "Stack Name")
            region = Schema(
                "String",
                default="ap-southeast-1",
                constraints=[constr.AllowedValues(list(AWS_REGIONS))],
            )
            yield Parameter(self.PARAM_REGION, region)

    def set_stack_id(self, stack_identifier: StackIdentity | None) -> bool:
        if stack_identifier is None:
            return False
        self.params[self.PARAM_STACK_ID].schema.set_default(
            stack_identifier.arn()
        )
        return True


class TemplateLike(Protocol):
    """What :func:`make_parameters` reads from a template."""

    family: str
    version: tuple[str, str]

    def parameters_section(self) -> Any:
        """The raw parameters section."""


def template_schemata(
    tmpl: TemplateLike, param_defaults: Mapping[str, Any] | None = None
) -> dict[str, Schema]:
    """The parameter schemata of a template (its version's schema class)."""
    key, value = tmpl.version
    schema_class = schema_class_for(f"{key}.{value}")
    return param_schemata(
        schema_class, tmpl.parameters_section(), param_defaults
    )


def make_parameters(
    tmpl: TemplateLike,
    user_params: Mapping[str, Any] | None = None,
    param_defaults: Mapping[str, Any] | None = None,
    stack_identifier: StackIdentity | None = None,
) -> Parameters:
    """The parameters of a template, HOT or CFN by ``tmpl.family``.

    :raises InvalidSchemaError: for a bad declaration.
    """
    cls = HOTParameters if tmpl.family == "hot" else CfnParameters
    return cls(
        stack_identifier,
        template_schemata(tmpl),
        user_params,
        param_defaults,
    )


def format_validate_parameter(param: Parameter) -> dict[str, Any]:
    """One entry of the validate-template API's ``Parameters`` map.

    The type is written with its CFN name; hidden values are *not* masked
    (Heat only sets ``NoEcho``); constraints become CFN keys.
    """
    res: dict[str, Any] = {
        "Type": param.schema.api_type,
        "Description": param.description(),
        "NoEcho": "true" if param.hidden() else "false",
        "Label": param.label(),
    }
    if param.has_default():
        res["Default"] = param.default()
    if param.user_value:
        res["Value"] = param.user_value
    if param.tags():
        res["Tags"] = param.tags()
    descriptions = []
    for c in param.schema.constraints:
        res.update(_constraint_keys(c))
        if c.description:
            descriptions.append(c.description)
    if descriptions:
        res["ConstraintDescription"] = " ".join(descriptions)
    return res


def _constraint_keys(c: constr.Constraint) -> dict[str, Any]:
    keys: dict[str, Any] = {}
    pairs: tuple[tuple[str, Any], ...]
    if isinstance(c, constr.Length):
        pairs = (("MinLength", c.min), ("MaxLength", c.max))
    elif isinstance(c, constr.Range):
        pairs = (("MinValue", c.min), ("MaxValue", c.max))
    elif isinstance(c, constr.Modulo):
        pairs = (("Step", c.step), ("Offset", c.offset))
    elif isinstance(c, constr.AllowedValues):
        pairs = (("AllowedValues", list(c.allowed)),)
    elif isinstance(c, constr.AllowedPattern):
        pairs = (("AllowedPattern", c.pattern),)
    elif isinstance(c, constr.CustomConstraint):
        pairs = (("CustomConstraint", c.name),)
    else:
        pairs = ()
    for key, value in pairs:
        if value is not None:
            keys[key] = value
    return keys
