"""HOT functions over maps and lists: map_merge, map_replace, repeat,
list_concat, list_concat_unique, filter and contains."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from keel_heat_core.template import function
from keel_heat_core.template.function import is_sequence


class MapMerge(function.Function):
    """``map_merge: [map, map, ...]``: a shallow merge, later maps win."""

    description = "A function for merging maps."

    def result(self) -> dict[Any, Any]:
        args = function.resolve(self.args)
        if not isinstance(args, Sequence):  # a string too, as in Heat
            raise TypeError(
                f'Incorrect arguments to "{self.fn_name}" should be: '
                f'"{self.fn_name}" : [ {{ "key1": "val1" }}, '
                '{ "key2": "val2" } ]'
            )
        merged: dict[Any, Any] = {}
        for item in args:
            if item is None:
                continue
            if not isinstance(item, Mapping):
                raise TypeError(
                    "Incorrect arguments: Items to merge must be maps. "
                    f"{item} is type {type(item)} instead of a dict"
                )
            merged.update(item)
        return merged


class MapReplace(function.Function):
    """``map_replace: [map, {keys: {...}, values: {...}}]``."""

    description = "A function for performing substitutions on maps."

    def _usage(self) -> str:
        return (
            f'"{self.fn_name}" : [ {{ "key1": "val1" }}, '
            '{"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]'
        )

    def _map(self, value: Any) -> Mapping[Any, Any]:
        if value is None:
            return {}
        if isinstance(value, Mapping):
            return value
        raise TypeError(
            f'Incorrect arguments: to "{self.fn_name}", arguments must be '
            f"a list of maps. Example:  {self._usage()}"
        )

    def result(self) -> dict[Any, Any]:
        args = function.resolve(self.args)
        wrong = (
            f'Incorrect arguments to "{self.fn_name}" should be: '
            f"{self._usage()}"
        )
        if not isinstance(args, list) or len(args) != 2:
            raise TypeError(wrong)
        in_map, repl_map = self._map(args[0]), self._map(args[1])
        for key in repl_map:
            if key not in ("keys", "values"):
                raise ValueError(wrong)
        new_keys = self._map(repl_map.get("keys", {}))
        new_values = self._map(repl_map.get("values", {}))
        out: dict[Any, Any] = {}
        for key, value in in_map.items():
            new_key = _lookup(new_keys, key)
            if new_key is None:
                new_key = key
            elif new_key in in_map and new_key != key:
                raise ValueError(
                    f"key replacement {new_key} collides with a key in the "
                    "input map"
                )
            elif new_key in out:
                raise ValueError(
                    f"key replacement {new_key} collides with a key in the "
                    "output map"
                )
            replaced = _lookup(new_values, value, value)
            out[new_key] = replaced
        return out


def _lookup(table: Mapping[Any, Any], key: Any, default: Any = None) -> Any:
    try:
        return table.get(key, default)
    except TypeError:  # an unhashable value is never replaced
        return default


class Repeat(function.Function):
    """``repeat: {template, for_each}`` over lists (2015-04-30)."""

    description = "A function for iterating over a list of items."
    _list_only_message = (
        'The values of the "for_each" argument to "{}" must be lists'
    )

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        self._parse_args()

    def _parse_args(self) -> None:
        if not isinstance(self.args, Mapping):
            raise TypeError(f'Arguments to "{self.fn_name}" must be a map')
        try:
            self._for_each = self.args["for_each"]
            self._template = self.args["template"]
        except KeyError as err:
            example = (
                "repeat:\n"
                "              template: This is %var%\n"
                "              for_each:\n"
                "                %var%: ['a', 'b', 'c']"
            )
            raise KeyError(f'"repeat" syntax should be {example}') from err
        self._nested_loop = True

    def validate(self) -> None:
        super().validate()
        if not isinstance(self._for_each, (function.Function, Mapping)):
            raise TypeError(
                f'The "for_each" argument to "{self.fn_name}" must contain '
                "a map"
            )

    def _valid_arg(self, arg: Any) -> None:
        if not is_sequence(arg):
            raise TypeError(self._list_only_message.format(self.fn_name))

    def _replace(
        self, keys: Sequence[Any], values: Sequence[Any], tmpl: Any
    ) -> Any:
        if isinstance(tmpl, str):
            for key, value in zip(keys, values, strict=False):
                if not isinstance(key, str) or not isinstance(value, str):
                    # Heat leaks "replace() argument 2 must be str".
                    bad = value if isinstance(key, str) else key
                    raise TypeError(
                        f'The "for_each" argument to "{self.fn_name}" may '
                        f"only hold strings (found {type(bad).__name__} "
                        f"{bad!r})"
                    )
                tmpl = tmpl.replace(key, value)
            return tmpl
        if is_sequence(tmpl):
            return [self._replace(keys, values, item) for item in tmpl]
        if isinstance(tmpl, Mapping):
            return {
                self._replace(keys, values, k): self._replace(keys, values, v)
                for k, v in tmpl.items()
            }
        return tmpl

    def result(self) -> list[Any]:
        for_each = function.resolve(self._for_each)
        if not isinstance(for_each, Mapping):
            raise TypeError(
                f'The "for_each" argument to "{self.fn_name}" must contain '
                "a map"
            )
        if not for_each:
            # Heat fails here with a raw unpacking error.
            raise ValueError(
                f'The "for_each" argument to "{self.fn_name}" must not be '
                "empty"
            )
        keys = list(for_each)
        lengths: list[int] = []
        values: list[Any] = []
        for value in for_each.values():
            if value is None:
                values.append([])
                continue
            self._valid_arg(value)
            values.append(list(value))
            lengths.append(len(value))
        if not self._nested_loop and lengths and len(set(lengths)) != 1:
            raise ValueError(
                f"For {self.fn_name}, the length of for_each values should be "
                "equal if no nested loop."
            )
        template = function.resolve(self._template)
        combos = (
            itertools.product(*values)
            if self._nested_loop
            else zip(*values, strict=False)
        )
        return [self._replace(keys, combo, template) for combo in combos]


class RepeatWithMap(Repeat):
    """``repeat`` from 2016-10-14: a map's keys may be iterated."""

    description = (
        "A function for iterating over a list of items or a dict of keys."
    )

    def _valid_arg(self, arg: Any) -> None:
        if not (is_sequence(arg) or isinstance(arg, Mapping)):
            raise TypeError(
                'The values of the "for_each" argument to '
                f'"{self.fn_name}" must be lists or maps'
            )


class RepeatWithNestedLoop(RepeatWithMap):
    """``repeat`` from 2017-09-01, with ``permutations``."""

    def _parse_args(self) -> None:
        super()._parse_args()
        self._nested_loop = self.args.get("permutations", True)
        if not isinstance(self._nested_loop, bool):
            raise TypeError(
                '"permutations" should be boolean type for '
                f"{self.fn_name} function."
            )

    def _valid_arg(self, arg: Any) -> None:
        if self._nested_loop:
            super()._valid_arg(arg)
        else:
            Repeat._valid_arg(self, arg)


class ListConcat(function.Function):
    """``list_concat: [list, list, ...]``."""

    description = "A function for extending lists."
    _unique = False

    def result(self) -> list[Any]:
        args = function.resolve(self.args)
        if not is_sequence(args):
            raise TypeError(
                f'Incorrect arguments to "{self.fn_name}" should be: '
                f'"{self.fn_name}" : [ [ <value 1>, <value 2> ], '
                "[ <value 3>, <value 4> ] ]"
            )
        out: list[Any] = []
        for item in args:
            if item is None:
                continue
            if not is_sequence(item):
                raise TypeError(
                    "Incorrect arguments: Items to concat must be lists. "
                    f"{_dump(args)} contains an item that is not a list: "
                    f"{_dump(item)}"
                )
            out.extend(item)
        if self._unique:
            unique: list[Any] = []
            for item in out:
                if item not in unique:
                    unique.append(item)
            return unique
        return out


def _dump(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)


class ListConcatUnique(ListConcat):
    """``list_concat_unique``: the first occurrence of each item."""

    description = "A function for extending lists with unique items."
    _unique = True


class Filter(function.Function):
    """``filter: [values, list]``: the list without the values."""

    description = "A function for filtering out values from lists."

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        if not is_sequence(args):
            raise TypeError(f'Argument to "{fn_name}" must be a list')
        if len(args) != 2:
            raise ValueError(
                f'"{fn_name}" expected 2 arguments of the form '
                f"[values, sequence] but got {len(args)} arguments instead"
            )
        self._values, self._sequence = args[0], args[1]

    def result(self) -> Any:
        sequence = function.resolve(self._sequence)
        if not sequence:
            return sequence
        if not isinstance(sequence, list):
            raise TypeError(f'"{self.fn_name}" only works with lists')
        values = function.resolve(self._values)
        if not values:
            return sequence
        if not isinstance(values, list):
            raise TypeError(f'"{self.fn_name}" filters a list of values')
        return [item for item in sequence if item not in values]


class Contains(function.Function):
    """``contains: [value, sequence]`` (a string is a sequence)."""

    description = (
        "A function for checking whether specific value is in sequence."
    )

    def __init__(self, stack: Any, fn_name: str, args: Any) -> None:
        super().__init__(stack, fn_name, args)
        if not args or not isinstance(args, list):
            raise TypeError(
                f'Incorrect arguments to "{fn_name}" should be: '
                f'"{fn_name}" : [ "value1", [ "value1", "value2"]]'
            )
        if len(args) != 2:
            raise ValueError(
                f'Arguments to "{fn_name}" must be of the form: '
                "[value1, [value1, value2]]"
            )
        self._value, self._sequence = args

    def result(self) -> bool:
        value = function.resolve(self._value)
        sequence = function.resolve(self._sequence)
        if not isinstance(sequence, Sequence):
            raise TypeError(
                f'Second argument to "{self.fn_name}" should be a sequence.'
            )
        if isinstance(sequence, str) and not isinstance(value, str):
            return False
        return value in sequence
