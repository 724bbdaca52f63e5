"""CloudFormation functions (AWS 2010-09-09, Heat 2012-12-12, and HOT
2013-05-23 for some of them)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core.template import function, hot_functions
from keel_heat_core.template.function import is_sequence
from keel_heat_core.template.string_functions import Join as _HotJoin


class ParamRef(function.Function):
    """``Ref`` to a parameter (pseudo parameters included)."""

    description = "A function for resolving parameter references."

    def result(self) -> Any:
        name = function.resolve(self.args)
        try:
            return self.stack.parameters[name]
        except (KeyError, TypeError) as err:
            raise exception.InvalidTemplateReference(
                resource=name, key="unknown"
            ) from err


class ResourceRef(hot_functions.GetResource):
    """``Ref`` to a resource: its reference ID."""


def Ref(stack: Any, fn_name: str, args: Any) -> function.Function:  # noqa: N802
    """``Ref``: a resource reference when ``args`` names a resource of the
    template, otherwise a parameter reference (decided at parse time)."""
    if not isinstance(args, Hashable):
        raise TypeError(f"unhashable type: '{type(args).__name__}'")
    if stack is not None and stack.t.has_resource_named(args):
        return ResourceRef(stack, fn_name, args)
    return ParamRef(stack, fn_name, args)


Ref.description = (  # type: ignore[attr-defined]
    "A function for resolving parameters or resource references."
)


class GetAtt(hot_functions.GetAtt):
    """``Fn::GetAtt: [resource, attribute]``."""

    def _parse(self) -> tuple[Any, Any, list[Any]]:
        if not is_sequence(self.args) or len(self.args) != 2:
            raise ValueError(
                f'Arguments to "{self.fn_name}" must be of the form '
                "[resource_name, attribute]"
            )
        return self.args[0], self.args[1], []


class Select(function.Function):
    """``Fn::Select: [index, collection]``."""

    description = "A function for selecting an item from a list or map."

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        if not is_sequence(args) or len(args) != 2:
            raise ValueError(
                f'Arguments to "{fn_name}" must be of the form '
                "[index, collection]"
            )
        self._lookup, self._strings = args

    def result(self) -> Any:
        index = function.resolve(self._lookup)
        strings = function.resolve(self._strings)
        if strings == "" or strings is None:
            return ""
        if isinstance(strings, str):
            try:
                strings = json.loads(strings)
            except ValueError as err:
                raise ValueError(f'"{self.fn_name}": {err}') from err
        if isinstance(strings, Mapping):
            if not isinstance(index, str):
                raise TypeError(f'Index to "{self.fn_name}" must be a string')
            return strings.get(index, "")
        try:
            index = int(index)
        except (ValueError, TypeError) as err:
            if is_sequence(strings):
                raise TypeError(
                    f'Index to "{self.fn_name}" must be an integer'
                ) from err
        if is_sequence(strings) and isinstance(index, int):
            try:
                return strings[index]
            except (IndexError, TypeError):
                return ""
        raise TypeError(f'Arguments to "{self.fn_name}" not fully resolved')


class Join(_HotJoin):
    """``Fn::Join: [delimiter, [strings]]``."""


class Split(function.Function):
    """``Fn::Split: [delimiter, string]``."""

    description = "A function for splitting strings."

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        usage = (
            f'Incorrect arguments to "{fn_name}" should be: '
            f'"{fn_name}" : [ ",", "str1,str2"]]'
        )
        if not is_sequence(args):
            raise TypeError(usage)
        if len(args) != 2:
            raise ValueError(usage)
        self._delim, self._strings = args

    def result(self) -> list[str]:
        strings = function.resolve(self._strings)
        if not isinstance(self._delim, str):
            raise TypeError(f"Delimiter for {self.fn_name} must be string")
        if not isinstance(strings, str):
            raise TypeError(
                f"String to split must be string; got {type(strings)}"
            )
        return strings.split(self._delim)


class Replace(function.Function):
    """``Fn::Replace: [{placeholder: value}, template]``."""

    description = "A function for performing string substitutions."

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        example = (
            f'{{"{fn_name}": [ {{"$var1": "foo", "%var2%": "bar"}}, '
            '"$var1 is %var2%"]}'
        )
        usage = f'Incorrect arguments to "{fn_name}" should be: {example}'
        if not is_sequence(args):
            raise TypeError(usage)
        if len(args) != 2:
            raise ValueError(usage)
        self._mapping, self._string = args
        if not isinstance(self._mapping, (Mapping, function.Function)):
            raise TypeError(f'"{fn_name}" parameters must be a mapping')

    def result(self) -> str:
        template = function.resolve(self._string)
        mapping = function.resolve(self._mapping)
        if not isinstance(template, str):
            raise TypeError(f'"{self.fn_name}" template must be a string')
        if not isinstance(mapping, Mapping):
            raise TypeError(f'"{self.fn_name}" params must be a map')
        for key in mapping:
            if not isinstance(key, str):
                raise TypeError(
                    f'"{self.fn_name}" param placeholders must be strings'
                )
        for key in sorted(mapping, key=len, reverse=True):
            value = mapping[key]
            if value is None:
                value = ""
            if not isinstance(value, (str, int, float)):
                raise TypeError(
                    f'"{self.fn_name}" params must be strings or numbers'
                )
            template = template.replace(key, str(value))
        return template


class Base64(function.Function):
    """``Fn::Base64: string``: the string itself (no encoding)."""

    description = "A placeholder function for converting to base64."

    def result(self) -> str:
        value = function.resolve(self.args)
        if not isinstance(value, str):
            raise TypeError(f'"{self.fn_name}" argument must be a string')
        return value


_MEMBER_EXAMPLE = (
    '{"Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=key", '
    '".member.0.Value=door"]]}'
)
_MEMBER_RE = re.compile(r"\.member\.([0-9]+)\.(.*)")


class MemberListToMap(function.Function):
    """``Fn::MemberListToMap: [keyname, valuename, [".member.N.k=v"]]``."""

    description = (
        "A function to convert lists with enumerated keys and values to "
        "mapping."
    )

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        if not is_sequence(args) or len(args) != 3:
            raise TypeError(f'Wrong Arguments try: "{_MEMBER_EXAMPLE}"')
        self._keyname, self._valuename, self._list = args
        if not isinstance(self._keyname, str) or not isinstance(
            self._valuename, str
        ):
            raise TypeError(f'Wrong Arguments try: "{_MEMBER_EXAMPLE}"')

    def result(self) -> dict[str, Any]:
        members = function.resolve(self._list)
        if not isinstance(members, Iterable) or isinstance(members, str):
            raise TypeError("Member list must be a list")
        partials: dict[str, str] = {}
        for item in members:
            if not isinstance(item, str):
                raise TypeError("Member list items must be strings")
            name, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"Member list item {item} has no '='")
            partials[name] = value
        found = []
        for name, value in partials.items():
            match = _MEMBER_RE.match(name)
            if match:
                found.append((int(match.group(1)), match.group(2), value))
        found.sort(key=lambda entry: entry[0])
        out: dict[str, Any] = {}
        for _index, group in itertools.groupby(found, lambda e: e[0]):
            fields = {key: value for _i, key, value in group}
            if self._keyname in fields and self._valuename in fields:
                out[fields[self._keyname]] = fields[self._valuename]
        return out


class ResourceFacade(hot_functions.ResourceFacade):
    """``Fn::ResourceFacade: Metadata|DeletionPolicy|UpdatePolicy``."""

    KINDS = ("Metadata", "DeletionPolicy", "UpdatePolicy")


class FindInMap(function.Function):
    """``Fn::FindInMap: [map, key, value]`` over the Mappings section."""

    description = "A function for resolving keys in the template mappings."

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        try:
            self._map, self._key, self._value = args
        except (ValueError, TypeError) as err:
            raise KeyError(str(err)) from err

    def result(self) -> Any:
        names = [
            function.resolve(self._map),
            function.resolve(self._key),
            function.resolve(self._value),
        ]
        value: Any = self.stack.t.mappings()
        for depth, name in enumerate(names):
            try:
                value = value[name]
            except (KeyError, TypeError, IndexError) as err:
                # Heat raises a bare KeyError here ("'zz'").
                level = ("mapping", "key", "value")[depth]
                where = _path_text(names[:depth])
                raise ValueError(
                    f'"{self.fn_name}" found no {level} {name!r} in {where}'
                ) from err
        return value


def _path_text(names: list[Any]) -> str:
    if not names:
        return "Mappings"
    return "Mappings." + ".".join(str(name) for name in names)


class GetAZs(function.Function):
    """``Fn::GetAZs: region``: the availability zone names."""

    description = "A function for retrieving the availability zones."

    def result(self) -> list[str]:
        if self._stack is None:
            return ["nova"]
        return self.stack.availability_zones()
