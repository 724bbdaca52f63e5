"""HOT string functions: list_join, str_replace (three kinds), str_split,
digest and make_url."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from keel_heat_core.template import function
from keel_heat_core.template.function import is_sequence


def json_text(value: Any) -> str:
    """Heat's JSON form of a map or list inside a string."""
    return json.dumps(value, sort_keys=True)


class Join(function.Function):
    """``list_join: [delimiter, [strings]]`` (one list of strings)."""

    description = "A function for joining strings."
    _example_tail = "]"
    _skip_empty = False

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        example = f'"{fn_name}" : [ " ", [ "str1", "str2"]{self._example_tail}'
        self._usage = (
            f'Incorrect arguments to "{fn_name}" should be: {example}'
        )
        if not isinstance(args, list):
            raise TypeError(self._usage)
        self._parse(args)

    def _parse(self, args: list[Any]) -> None:
        if len(args) != 2:
            raise ValueError(self._usage)
        self._delim = args[0]
        self._lists = [args[1]]

    def _item(self, item: Any) -> str:
        if item is None:
            return ""
        if not isinstance(item, str):
            raise TypeError(f"Items to join must be strings not {item!r:.200}")
        return item

    def _strings(self) -> list[Any]:
        strings: list[Any] = []
        for joined in function.resolve(self._lists):
            if joined is None and not self._skip_empty:
                joined = []
            if joined or not self._skip_empty:
                if not is_sequence(joined):
                    raise TypeError(f'"{self.fn_name}" must operate on a list')
                strings.extend(joined)
        return strings

    def result(self) -> str:
        strings = self._strings()
        delim = function.resolve(self._delim)
        if not isinstance(delim, str):
            raise TypeError(f'"{self.fn_name}" delimiter must be a string')
        return delim.join(self._item(item) for item in strings)


class JoinMultiple(Join):
    """``list_join`` from 2015-10-15: several lists, maps/lists as JSON."""

    description = "A function for joining one or more lists of strings."
    _example_tail = " ...]"
    _skip_empty = True

    def _parse(self, args: list[Any]) -> None:
        if len(args) < 2:
            raise ValueError(self._usage)
        self._delim = args[0]
        self._lists = list(args[1:])

    def _item(self, item: Any) -> str:
        if item is None:
            return ""
        if isinstance(item, str):
            return item
        if isinstance(item, (Mapping, list, tuple)):
            try:
                return json_text(item)
            except (TypeError, ValueError) as err:
                raise TypeError(
                    "Items to join must be string, map or list. "
                    f"{item!r:.200} failed json serialization"
                ) from err
        raise TypeError(
            f"Items to join must be string, map or list not {item!r:.200}"
        )


class Replace(function.Function):
    """``str_replace: {template, params}`` (scalar values only)."""

    description = "A function for performing string substitutions."
    _strict = False
    _allow_empty = True

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        self._mapping, self._string = self._parse_args()
        if not isinstance(self._mapping, (Mapping, function.Function)):
            raise TypeError(f'"{fn_name}" parameters must be a mapping')

    def _parse_args(self) -> tuple[Any, Any]:
        if not isinstance(self.args, Mapping):
            raise TypeError(f'Arguments to "{self.fn_name}" must be a map')
        try:
            return self.args["params"], self.args["template"]
        except KeyError as err:
            example = (
                f"{self.fn_name}:\n"
                "              template: This is var1 template var2\n"
                "              params:\n"
                "                var1: a\n"
                "                var2: string"
            )
            raise KeyError(
                f'"{self.fn_name}" syntax should be {example}'
            ) from err

    def _replacement(self, value: Any, param: Any) -> str:
        if value is None:
            return ""
        if not isinstance(value, (str, int, float)):
            raise TypeError(
                f'"{self.fn_name}" params must be strings or numbers, '
                f"param {param} is not valid"
            )
        return str(value)

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
        keys = sorted(sorted(mapping), key=len, reverse=True)
        found: set[str] = set()
        values = {key: self._replacement(mapping[key], key) for key in keys}
        text = _replace(template, keys, values, found)
        missing = set(mapping) - found
        if self._strict and missing:
            names = sorted(sorted(missing), key=len, reverse=True)
            raise ValueError(
                "The following params were not found in the template: "
                + ",".join(names)
            )
        return text


def _replace(
    text: str, keys: list[str], values: dict[str, str], found: set[str]
) -> str:
    """Split on the first key, replace the rest in each piece, rejoin."""
    if not keys:
        return text
    key, rest = keys[0], keys[1:]
    pieces = text.split(key)
    if len(pieces) > 1:
        found.add(key)
    return values[key].join(_replace(p, rest, values, found) for p in pieces)


class ReplaceJson(Replace):
    """``str_replace`` from 2015-10-15: maps and lists become JSON."""

    def _empty(self, param: Any) -> ValueError:
        return ValueError(
            f"{self.fn_name} has an undefined or empty value for param "
            f"{param}, must be a defined non-empty value"
        )

    def _replacement(self, value: Any, param: Any) -> str:
        if value is None:
            if self._allow_empty:
                return ""
            raise self._empty(param)
        if not isinstance(value, (str, int, float)):
            if isinstance(value, (Mapping, list, tuple)):
                if not self._allow_empty and len(value) == 0:
                    raise self._empty(param)
                try:
                    return json_text(value)
                except (TypeError, ValueError) as err:
                    raise TypeError(
                        f'"{self.fn_name}" params must be strings, numbers, '
                        f"list or map. Failed to json serialize {value}"
                    ) from err
            raise TypeError(
                f'"{self.fn_name}" params must be strings, numbers, '
                "list or map."
            )
        text = str(value)
        if not self._allow_empty and not text:
            raise self._empty(param)
        return text


class ReplaceJsonStrict(ReplaceJson):
    """``str_replace_strict``: every param must occur in the template."""

    _strict = True


class ReplaceJsonVeryStrict(ReplaceJsonStrict):
    """``str_replace_vstrict``: strict, and no empty values."""

    _allow_empty = False


class StrSplit(function.Function):
    """``str_split: [delimiter, string, (index)]``."""

    description = "A function for splitting delimited strings into a list."

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        example = f'"{fn_name}" : [ ",", "apples,pears", <index>]'
        self._usage = (
            f'Incorrect arguments to "{fn_name}" should be: {example}'
        )
        self._bad_index = (
            f'Incorrect index to "{fn_name}" should be: {example}'
        )
        if isinstance(args, (str, Mapping)):
            raise TypeError(self._usage)

    def result(self) -> Any:
        args = function.resolve(self.args)
        if not isinstance(args, list) or len(args) < 2:
            raise ValueError(self._usage)
        delim, text = args[0], args[1]
        if text is None:
            return None
        if not isinstance(text, str):
            # Heat's own (raw) message for a value that is not a string.
            raise TypeError(
                f"'{type(text).__name__}' object has no attribute 'split'"
            )
        if delim is not None and not isinstance(delim, str):
            raise TypeError(f"must be str or None, not {type(delim).__name__}")
        if delim == "":
            raise ValueError("empty separator")
        parts = text.split(delim)
        if len(args) < 3:
            return parts
        try:
            index = int(args[2])
        except (ValueError, TypeError) as err:
            raise ValueError(self._bad_index) from err
        try:
            return parts[index]
        except IndexError as err:
            raise ValueError(
                f'Incorrect index to "{self.fn_name}" should be between 0 '
                f"and {len(parts) - 1}"
            ) from err


class Digest(function.Function):
    """``digest: [algorithm, value]``: a hex digest of Latin-1 text."""

    description = "A function for performing digest operations."

    def _check(self, args: Any) -> None:
        if not (
            isinstance(args, list) and all(isinstance(a, str) for a in args)
        ):
            raise TypeError(
                f'Argument to function "{self.fn_name}" must be a list of '
                "strings"
            )
        if len(args) != 2:
            raise ValueError(
                f'Function "{self.fn_name}" usage: ["<algorithm>", "<value>"]'
            )
        algorithms = hashlib.algorithms_available
        if args[0].lower() not in algorithms:
            raise ValueError(f"Algorithm must be one of {algorithms}")

    def result(self) -> str:
        args = function.resolve(self.args)
        self._check(args)
        algorithm, value = args
        try:
            data = value.encode("latin-1")
        except UnicodeEncodeError as err:
            # Heat leaks the codec error; say what is wrong instead.
            raise ValueError(
                f'Value to "{self.fn_name}" must be Latin-1 text: '
                f"{value[err.start : err.end]!r} can not be encoded"
            ) from err
        digest = hashlib.new(algorithm.lower(), data)
        if algorithm.lower().startswith("shake_"):
            raise ValueError(
                f"Algorithm {algorithm} needs a length and is not supported"
            )
        return digest.hexdigest()
