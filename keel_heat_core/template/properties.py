"""Resolved property values of a resource.

The engine wraps the template's ``properties`` section of a resource in
:class:`Properties`: reading a key resolves its intrinsic functions,
converts the value to the declared type, fills the default and (when
validating) checks the constraints.  Error texts are Heat's.

:class:`Schema` (from :mod:`.property_schema`) is re-exported here, so
plugins write ``properties.Schema(properties.Schema.STRING, ...)`` as in
Heat.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from keel_heat_core import exception
from keel_heat_core.template import translation as trans
from keel_heat_core.template.constraints import str_to_num
from keel_heat_core.template.property_schema import (
    AnyIndexDict,
    Schema,
    schemata,
    visible_schemata,
)

__all__ = [
    "AnyIndexDict",
    "Properties",
    "Property",
    "Schema",
    "schemata",
    "visible_schemata",
]

Resolver = Callable[[Any], Any]


def _identity(value: Any) -> Any:
    return value


class Property:
    """One property: its schema and how to turn a raw value into its type.

    :param schema: a :class:`Schema` or a legacy dict.
    :param name: the property name (or list index).
    :param context: the request context, for custom constraints.
    :param path: the dotted path of the parent, for nested properties.
    """

    def __init__(
        self,
        schema: Schema | Mapping[str, Any],
        name: str | int | None = None,
        context: Any = None,
        path: str | None = None,
    ) -> None:
        self.schema = Schema.from_legacy(schema)
        self.name = name
        self.context = context
        self.path = self.make_path(name, path)

    @staticmethod
    def make_path(name: str | int | None, path: str | None = None) -> str:
        """The dotted path of a (possibly nested) property."""
        parent = path or ""
        own = "" if name is None else str(name)
        delim = "" if not parent or parent.endswith(".") else "."
        return delim.join([parent, own])

    def required(self) -> bool:
        return self.schema.required

    def implemented(self) -> bool:
        return self.schema.implemented

    def update_allowed(self) -> bool:
        return self.schema.update_allowed

    def immutable(self) -> bool:
        return self.schema.immutable

    def has_default(self) -> bool:
        return self.schema.default is not None

    def default(self) -> Any:
        return self.schema.default

    def type(self) -> str:
        return self.schema.type

    def _get_integer(self, value: Any) -> int:
        if value is None:
            value = self.has_default() and self.default() or 0
        try:
            return int(value)
        except ValueError as exc:
            raise TypeError(f"Value '{value}' is not an integer") from exc

    def _get_number(self, value: Any) -> Any:
        if value is None:
            value = self.has_default() and self.default() or 0
        return str_to_num(value)

    def _get_string(self, value: Any) -> str:
        if value is None:
            value = self.has_default() and self.default() or ""
        if not isinstance(value, str):
            if isinstance(value, bool | int):
                return str(value)
            raise ValueError(f"Value must be a string; got {value!r}")
        return value

    def _get_children(
        self,
        child_values: Iterable[tuple[Any, Any]],
        keys: Iterable[Any] | None = None,
        validate: bool = False,
        translation: trans.Translation | None = None,
    ) -> Iterable[tuple[Any, Any]]:
        if self.schema.schema is None:
            return child_values
        key_list = list(self.schema.schema) if keys is None else list(keys)
        nested = {k: self.schema.schema[k] for k in key_list}
        props = Properties(
            nested,
            dict(child_values),
            context=self.context,
            parent_name=self.path,
            translation=translation,
        )
        if validate:
            props.validate()
        return [(k, props[k]) for k in key_list]

    def _get_map(
        self,
        value: Any,
        validate: bool = False,
        translation: trans.Translation | None = None,
    ) -> Any:
        if value is None:
            value = self.default() if self.has_default() else {}
        if not isinstance(value, Mapping):
            if self.schema.allow_conversion:
                if isinstance(value, str):
                    return value
                if isinstance(value, Sequence):
                    return json.dumps(value)
            raise TypeError(f'"{value}" is not a map')
        return dict(
            self._get_children(
                value.items(), validate=validate, translation=translation
            )
        )

    def _get_list(
        self,
        value: Any,
        validate: bool = False,
        translation: trans.Translation | None = None,
    ) -> list[Any]:
        if value is None:
            value = self.has_default() and self.default() or []
        if self.schema.allow_conversion and isinstance(value, str):
            value = [v.strip() for v in value.split(",")] if value else []
        if not isinstance(value, Sequence) or isinstance(value, str):
            raise TypeError(f'"{value!r}" is not a list')
        return [
            v
            for _, v in self._get_children(
                enumerate(value),
                range(len(value)),
                validate=validate,
                translation=translation,
            )
        ]

    def _get_bool(self, value: Any) -> bool:
        if value is None:
            value = self.has_default() and self.default() or False
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            normalised = value.lower()
            if normalised not in ("true", "false"):
                raise ValueError(f'"{normalised}" is not a valid boolean')
            return normalised == "true"
        raise TypeError(f'"{value}" is not a valid boolean')

    def get_value(
        self,
        value: Any,
        validate: bool = False,
        translation: trans.Translation | None = None,
    ) -> Any:
        """Convert ``value`` to the property type (and check it).

        :raises TypeError, ValueError: for a value of the wrong type.
        :raises StackValidationFailed: for a failed constraint.
        """
        kind = self.type()
        result: Any
        if kind == Schema.STRING:
            result = self._get_string(value)
        elif kind == Schema.INTEGER:
            result = self._get_integer(value)
        elif kind == Schema.NUMBER:
            result = self._get_number(value)
        elif kind == Schema.MAP:
            result = self._get_map(value, validate, translation)
        elif kind == Schema.LIST:
            result = self._get_list(value, validate, translation)
        elif kind == Schema.BOOLEAN:
            result = self._get_bool(value)
        else:
            result = value
        if validate:
            self.schema.validate_constraints(result, self.context)
        return result


class Properties(Mapping[str, Any]):
    """The property values of one resource, resolved on read.

    :param schema: property name to :class:`Schema` (or legacy dict).
    :param data: the raw values from the template (may hold functions).
    :param resolver: resolves intrinsic functions in a raw value; the
        engine gives its function resolver, tests may leave the identity.
    :param parent_name: the dotted path of the parent (nested maps/lists).
    :param context: the request context (custom constraints).
    :param section: the error-path prefix (``"Properties"``) for messages.
    :param translation: shared :class:`~.translation.Translation`.
    :param rsrc_description: the resource's description, returned for an
        unset updatable ``description`` property.
    :param in_init: tells whether a raw value depends on resources not yet
        created (those values are not validated).
    """

    def __init__(
        self,
        schema: Mapping[Any, Any],
        data: Mapping[Any, Any] | None,
        resolver: Resolver = _identity,
        parent_name: str | None = None,
        context: Any = None,
        section: str | None = None,
        translation: trans.Translation | None = None,
        rsrc_description: str | None = None,
        in_init: Callable[[Any], bool] | None = None,
    ) -> None:
        self.props = {
            k: Property(s, k, context, path=parent_name)
            for k, s in schema.items()
        }
        self.resolve = resolver
        self.data: Mapping[Any, Any] = data or {}
        self.error_prefix: list[Any] = [section] if section else []
        self.parent_name = parent_name
        self.context = context
        self.translation = (
            trans.Translation(properties=self)
            if translation is None
            else translation
        )
        self.rsrc_description = rsrc_description
        self._in_init = in_init

    def update_translation(
        self,
        rules: Sequence[trans.TranslationRule],
        client_resolve: bool = True,
        ignore_resolve_error: bool = False,
    ) -> None:
        """Install a resource's translation rules."""
        self.translation.set_rules(
            rules,
            client_resolve=client_resolve,
            ignore_resolve_error=ignore_resolve_error,
        )

    def validate(self, with_value: bool = True) -> None:
        """Check every value against its schema.

        :raises StackValidationFailed: ``Property error: <path>: <msg>``.
        """
        try:
            for key in self.data:
                if key not in self.props:
                    raise exception.StackValidationFailed(
                        message=f"Unknown Property {key}"
                    )
            for key, prop in self.props.items():
                self._validate_one(key, prop, with_value)
        except exception.StackValidationFailed as ex:
            path = list(self.error_prefix)
            path.extend(ex.path)
            raise exception.StackValidationFailed(
                error=ex.error or "Property error",
                path=path,
                message=ex.error_message,
            ) from ex

    def _validate_one(
        self, key: Any, prop: Property, with_value: bool
    ) -> None:
        if self.translation.is_deleted(prop.path) or (
            self.translation.is_replaced(prop.path)
        ):
            return
        if with_value:
            try:
                self._get_property_value(key, validate=True)
            except exception.StackValidationFailed as ex:
                raise exception.StackValidationFailed(
                    path=[key, *ex.path], message=ex.error_message
                ) from ex
            except (ValueError, TypeError) as exc:
                path = (
                    [] if prop.required() and key not in self.data else [key]
                )
                raise exception.StackValidationFailed(
                    path=path, message=str(exc)
                ) from exc
        if not prop.implemented() and key in self.data:
            raise exception.StackValidationFailed(
                message=f"Property {key} not implemented yet"
            )

    def _user_value(
        self, key: Any, prop: Property, validate: bool
    ) -> tuple[Any, bool]:
        if self.translation.is_deleted(prop.path) or (
            self.translation.is_replaced(prop.path)
        ):
            return None, False
        if key not in self.data:
            return None, False
        try:
            raw = self.data[key]
            if validate and self._in_init is not None and self._in_init(raw):
                validate = False
            value = self.resolve(raw)
            if self.translation.has_translation(prop.path):
                value = self.translation.translate(prop.path, value, self.data)
            return prop.get_value(value, validate, self.translation), True
        except exception.StackValidationFailed as exc:
            raise exception.StackValidationFailed(
                path=exc.path, message=exc.error_message
            ) from exc
        except Exception as exc:
            raise ValueError(str(exc)) from exc

    def get_user_value(self, key: Any, validate: bool = False) -> Any:
        """The value the template gave (resolved), or None."""
        if key not in self:
            raise KeyError(f"Invalid Property {key}")
        return self._user_value(key, self.props[key], validate)[0]

    def _get_property_value(self, key: Any, validate: bool = False) -> Any:
        if key not in self:
            raise KeyError(f"Invalid Property {key}")
        prop = self.props[key]
        value, found = self._user_value(key, prop, validate)
        if found:
            return value
        if self.translation.has_translation(prop.path):
            value = self.translation.translate(
                prop.path, prop_data=self.data, validate=validate
            )
            if value is not None or prop.has_default():
                return prop.get_value(value)
        if prop.has_default():
            return prop.get_value(None, validate, self.translation)
        if prop.required():
            raise ValueError(f"Property {key} not assigned")
        if key == "description" and prop.update_allowed():
            return self.rsrc_description
        return None

    def __getitem__(self, key: Any) -> Any:
        return self._get_property_value(key)

    def __len__(self) -> int:
        return len(self.props)

    def __contains__(self, key: object) -> bool:
        return key in self.props

    def __iter__(self) -> Iterator[Any]:
        return iter(self.props)
