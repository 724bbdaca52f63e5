"""HOT functions that read the stack: parameters, resources, files.

``get_param``, ``get_resource``, the three forms of ``get_attr`` and
``get_file``, ``resource_facade``.  The values come from
``self.stack`` (:class:`~.stack_definition.StackDefinition`), which asks
the engine's :class:`~.protocols.StackView` for runtime data.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core.template import function
from keel_heat_core.template.function import is_sequence

LOG = logging.getLogger(__name__)


def _path_value(fn_name: str, value: Any, path: list[Any]) -> Any:
    for key in path:
        if not isinstance(value, (Mapping, list, tuple, str)):
            raise TypeError(f'"{fn_name}" can\'t traverse path')
        if not isinstance(key, (str, int)):
            raise TypeError(f'Path components in "{fn_name}" must be strings')
        if not isinstance(value, Mapping) and isinstance(key, str):
            try:
                key = int(key)
            except ValueError as err:
                raise TypeError(
                    f"Path components in '{fn_name}' must be a string "
                    "that can be parsed into an integer."
                ) from err
        value = value[key]
    return value


class GetParam(function.Function):
    """``get_param: name`` or ``get_param: [name, path...]``."""

    description = "A function for resolving parameter references."

    def result(self) -> Any:
        args = function.resolve(self.args)
        if not args:
            raise ValueError(f'Function "{self.fn_name}" must have arguments')
        if isinstance(args, str):
            name, path = args, []
        elif is_sequence(args):
            name, path = args[0], list(args[1:])
        else:
            raise TypeError(
                f'Argument to "{self.fn_name}" must be string or list'
            )
        if not isinstance(name, str):
            raise TypeError(
                f'Parameter name in "{self.fn_name}" must be string'
            )
        try:
            value = self.stack.parameters[name]
        except KeyError as err:
            raise exception.UserParameterMissing(key=name) from err
        try:
            return _path_value(self.fn_name, value, path)
        except (KeyError, IndexError, TypeError):
            return ""


class GetResource(function.Function):
    """``get_resource: name``: the reference ID of a resource."""

    description = "A function for resolving resource references."

    def _name(self, path: str = "unknown") -> str:
        name = function.resolve(self.args)
        if not self.stack.has_resource(name):
            raise exception.InvalidTemplateReference(resource=name, key=path)
        return str(name)

    def validate(self) -> None:
        super().validate()
        name = function.resolve(self.args)
        if not isinstance(name, str):
            # Heat fails with a raw "unhashable type" TypeError (500).
            raise exception.InvalidTemplateReference(
                resource=name, key="unknown"
            )

    def dependencies(self, path: str) -> Iterator[str]:
        return itertools.chain(super().dependencies(path), [self._name(path)])

    def result(self) -> Any:
        return self.stack.reference_id(self._name())


class GetAttThenSelect(function.Function):
    """``get_attr`` of HOT 2013-05-23: the path applies to the value."""

    description = "A function for resolving resource attributes."
    _needs_attribute = True

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        self._resource_name, self._attribute, self._path = self._parse()

    def _parse(self) -> tuple[Any, Any, list[Any]]:
        if not is_sequence(self.args):
            raise TypeError(f'Argument to "{self.fn_name}" must be a list')
        if len(self.args) < 2:
            raise ValueError(
                f'Arguments to "{self.fn_name}" must be of the form '
                "[resource_name, attribute, (path), ...]"
            )
        return self.args[0], self.args[1], list(self.args[2:])

    def _res_name(self) -> Any:
        return function.resolve(self._resource_name)

    def _resource(self, path: str = "unknown") -> str:
        name = self._res_name()
        if not self.stack.has_resource(name):
            raise exception.InvalidTemplateReference(resource=name, key=path)
        return str(name)

    def _attr_path(self) -> Any:
        return function.resolve(self._attribute)

    def dependencies(self, path: str) -> Iterator[str]:
        return itertools.chain(
            super().dependencies(path), [self._resource(path)]
        )

    def dep_attrs(self, resource_name: str) -> Iterator[Any]:
        attrs: list[Any] = []
        try:
            if self._res_name() == resource_name:
                attrs = [self._attr_path()]
        except Exception as err:  # Heat ignores errors here too
            LOG.debug("Ignoring error computing attributes: %s", err)
        return itertools.chain(super().dep_attrs(resource_name), attrs)

    def all_dep_attrs(self) -> Iterator[tuple[str, Any]]:
        try:
            attrs = [(self._res_name(), self._attr_path())]
        except Exception:
            attrs = []
        return itertools.chain(function.all_dep_attrs(self.args), attrs)

    def validate(self) -> None:
        super().validate()
        name = self._resource()
        if self._attribute is None and not self._needs_attribute:
            return
        if isinstance(self._attribute, function.Function):
            # A computed name is only known once the resources exist (Heat
            # fails with a raw TypeError here).
            return
        attr = function.resolve(self._attribute)
        names = self.stack.attribute_names(name)
        if names is not None and not _known_attribute(attr, names):
            raise exception.InvalidTemplateAttribute(
                resource=self._resource_name, key=attr
            )

    def result(self) -> Any:
        attr = function.resolve(self._attribute)
        value = self.stack.attribute_value(self._resource(), attr, [])
        if value is None:
            return None
        path = function.resolve(self._path)
        return select_from_attribute(value, path)


def _known_attribute(attr: Any, names: Any) -> bool:
    try:
        return attr in names
    except TypeError:
        return False


def select_from_attribute(value: Any, path: list[Any]) -> Any:
    """Follow ``path`` into an attribute value; None for any miss."""
    try:
        for key in path:
            if not isinstance(value, (Mapping, list, tuple, str)):
                return None
            if not isinstance(key, (str, int)):
                return None
            container: Any = value
            value = container[key]
    except (KeyError, IndexError, TypeError):
        return None
    return value


class GetAtt(GetAttThenSelect):
    """``get_attr`` of HOT 2014-10-16 and 2015-04-30 (path to resource)."""

    def _attr_path(self) -> Any:
        attr = function.resolve(self._attribute)
        if self._path_reads_resources():
            # the path is only known once the resources it reads exist,
            # not when the template is parsed: the whole attribute is
            # published and the path followed into it
            return attr
        path = function.resolve(self._path)
        if path:
            return (attr, *path)
        return attr

    def _path_reads_resources(self) -> bool:
        try:
            return (
                next(function.dependencies(self._path, ""), None) is not None
            )
        except Exception:  # a missing resource: validation reports it
            return False

    def result(self) -> Any:
        path = function.resolve(self._path)
        attr = function.resolve(self._attribute)
        return self.stack.attribute_value(self._resource(), attr, path)


class GetAttAllAttributes(GetAtt):
    """``get_attr`` from 2015-10-15: ``[resource]`` gives every attribute."""

    _needs_attribute = False

    def _parse(self) -> tuple[Any, Any, list[Any]]:
        if not self.args:
            raise ValueError(
                f'Arguments to "{self.fn_name}" can be of the next forms: '
                "[resource_name] or [resource_name, attribute, (path), ...]"
            )
        if is_sequence(self.args):
            if len(self.args) > 1:
                return super()._parse()
            return self.args[0], None, []
        raise TypeError(f'Argument to "{self.fn_name}" must be a list')

    def _attr_path(self) -> Any:
        if self._attribute is None:
            return function.ALL_ATTRIBUTES
        return super()._attr_path()

    def result(self) -> Any:
        if self._attribute is None:
            return self.stack.all_attributes(self._resource())
        return super().result()


class GetFile(function.Function):
    """``get_file: key``: the content of ``files[key]``."""

    description = "A function for including a file inline."

    def result(self) -> Any:
        key = function.resolve(self.args)
        if not isinstance(key, str):
            raise TypeError(f'Argument to "{self.fn_name}" must be a string')
        content = self.stack.t.files.get(key)
        if content is None:
            raise ValueError(
                'No content found in the "files" section for '
                f"{self.fn_name} path: {key}"
            )
        return content


class ResourceFacade(function.Function):
    """``resource_facade: metadata|deletion_policy|update_policy``."""

    description = (
        "A function for retrieving data in a parent provider template."
    )
    KINDS: tuple[str, ...] = ("metadata", "deletion_policy", "update_policy")

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        if not isinstance(args, str) or args not in self.KINDS:
            allowed = ", ".join(self.KINDS)
            raise ValueError(
                f'Incorrect arguments to "{fn_name}" should be one of: '
                f"{allowed}"
            )

    def result(self) -> Any:
        kind = self.KINDS.index(function.resolve(self.args))
        return self.stack.resource_facade(
            ("metadata", "deletion_policy", "update_policy")[kind]
        )
