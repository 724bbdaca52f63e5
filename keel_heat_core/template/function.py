"""The base of the intrinsic functions and the walks over parsed snippets.

A template snippet is parsed into plain data in which every function call
(a one-key map naming a function of the template version) is replaced by a
:class:`Function` object.  The walks here resolve, validate and collect the
resource dependencies of such parsed snippets.

Lifecycle of a function, as in Heat:

* construction (parse time) checks the shape of the arguments and raises
  ``ValueError``/``TypeError``/``KeyError``, which the parser turns into a
  ``StackValidationFailed`` with the dotted path of the call;
* :meth:`Function.validate` (stack validation) runs the deeper checks;
* :meth:`Function.result` computes the value at runtime, reading the stack
  through ``self.stack`` (a :class:`~.stack_definition.StackDefinition`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from keel_heat_core import exception

if TYPE_CHECKING:
    from keel_heat_core.template.stack_definition import StackDefinition


class _Absent:
    """The value of a two-argument ``if`` whose condition is false."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"


#: Marker dropped from the enclosing map or list when resolving.
ABSENT = _Absent()

#: ``get_attr [r]``: every attribute of ``r`` is needed.
ALL_ATTRIBUTES = "0dd8c3fd-all-attributes"


class Function:
    """A parsed function call ``{fn_name: args}``.

    :param stack: the stack definition the function reads, or None.
    :param fn_name: the name the template used.
    :param args: the arguments, already parsed.
    """

    #: Text of ``GET /template_versions/{v}/functions``.
    description = ""

    def __init__(
        self, stack: StackDefinition | None, fn_name: str, args: Any
    ) -> None:
        self._stack = stack
        self.fn_name = fn_name
        self.args = args

    @property
    def stack(self) -> StackDefinition:
        """The stack definition; there is one whenever a result is asked."""
        if self._stack is None:
            raise RuntimeError("No stack definition in function")
        return self._stack

    def validate(self) -> None:
        """Check the arguments without resolving the function."""
        validate(self.args)

    def result(self) -> Any:
        """Compute the value of the function."""
        return {self.fn_name: self.args}

    def dependencies(self, path: str) -> Iterator[str]:
        """Names of the resources this call needs, checked to exist."""
        return dependencies(self.args, f"{path}.{self.fn_name}")

    def dep_attrs(self, resource_name: str) -> Iterator[Any]:
        """Attributes of ``resource_name`` this call reads."""
        return dep_attrs(self.args, resource_name)

    def all_dep_attrs(self) -> Iterator[tuple[str, Any]]:
        """``(resource, attribute)`` pairs this call reads."""
        return all_dep_attrs(self.args)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {{{self.fn_name}: {self.args!r}}}>"

    def __reduce__(self) -> Any:
        return dict, ([(self.fn_name, self.args)],)


class Macro(Function):
    """A function that controls how its own arguments are parsed.

    :param raw_args: the arguments as written (not parsed).
    :param parse_func: parses a snippet at the path of this call.
    :param template: the template doing the parsing.
    """

    def __init__(
        self,
        stack: StackDefinition | None,
        fn_name: str,
        raw_args: Any,
        parse_func: Any,
        template: Any,
    ) -> None:
        super().__init__(stack, fn_name, raw_args)
        self.template = template
        self.parsed = self.parse_args(parse_func)

    def parse_args(self, parse_func: Any) -> Any:
        """Parse the arguments; by default all of them."""
        return parse_func(self.args)

    def validate(self) -> None:
        validate(self.parsed)

    def result(self) -> Any:
        return resolve(self.parsed, nullable=True)

    def dependencies(self, path: str) -> Iterator[str]:
        return dependencies(self.parsed, f"{path}.{self.fn_name}")

    def dep_attrs(self, resource_name: str) -> Iterator[Any]:
        return dep_attrs(self.parsed, resource_name)

    def all_dep_attrs(self) -> Iterator[tuple[str, Any]]:
        return all_dep_attrs(self.parsed)


class Invalid(Function):
    """A function name that may not be used here (e.g. in a condition)."""

    def __init__(
        self, stack: StackDefinition | None, fn_name: str, args: Any
    ) -> None:
        raise ValueError(
            f'The function "{fn_name}" is invalid in this context'
        )


class Removed(Function):
    """A function of an older version: an error only when validated."""

    description = (
        "This function existed in previous versions of HOT, but has been "
        "removed."
    )

    def validate(self) -> None:
        raise exception.InvalidTemplateVersion(
            explanation=(
                f"The function {self.fn_name} is not supported in this "
                "version of HOT."
            )
        )


def _is_list(value: Any) -> bool:
    kind = type(value)
    if kind is list or kind is tuple:
        return True
    if kind is str or kind is dict or value is None:
        return False
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def is_sequence(value: Any) -> bool:
    """A list-like value that is not a string."""
    return _is_list(value)


#: values :func:`resolve` returns as they are, told by their exact type
#: (``isinstance`` against the ABCs costs more than the rest of a resolve)
_PLAIN = frozenset({str, int, float, bool, type(None)})


def resolve(snippet: Any, nullable: bool = False) -> Any:
    """Compute the value of a parsed snippet.

    Inside maps and lists, entries whose value is :data:`ABSENT` are
    dropped; at the top level the marker becomes None unless ``nullable``.
    """
    kind = type(snippet)
    if kind in _PLAIN:
        return snippet
    if kind is not dict and isinstance(snippet, Function):
        value = snippet.result()
        if value is ABSENT and not nullable:
            return None
        return value
    if kind is dict or isinstance(snippet, Mapping):
        out = {}
        for key, item in snippet.items():
            value = resolve(item, nullable=True)
            if value is not ABSENT:
                out[key] = value
        return out
    if _is_list(snippet):
        items = (resolve(item, nullable=True) for item in snippet)
        return [item for item in items if item is not ABSENT]
    return snippet


def unparse(snippet: Any) -> Any:
    """The template form of a parsed snippet (functions back to one-key
    maps; a macro such as ``if`` gives its chosen branch)."""
    if isinstance(snippet, Macro):
        return unparse(snippet.parsed)
    if isinstance(snippet, Function):
        return {snippet.fn_name: unparse(snippet.args)}
    if isinstance(snippet, Mapping):
        pairs = ((key, unparse(value)) for key, value in snippet.items())
        return {key: value for key, value in pairs if value is not ABSENT}
    if _is_list(snippet):
        items = (unparse(value) for value in snippet)
        return [value for value in items if value is not ABSENT]
    return snippet


def validate(snippet: Any, path: list[Any] | str | None = None) -> None:
    """Validate every function in a parsed snippet.

    :raises StackValidationFailed: naming the path of the failing call.
    """
    items: list[Any]
    if path is None:
        items = []
    elif isinstance(path, str):
        items = [path]
    else:
        items = list(path)
    if isinstance(snippet, Function):
        try:
            snippet.validate()
        except Exception as err:
            # Heat keeps only the text of the inner error: nested paths
            # end up in the message, as in Heat.
            raise exception.StackValidationFailed(
                path=items + [snippet.fn_name], message=str(err)
            ) from err
    elif isinstance(snippet, Mapping):
        for key, value in snippet.items():
            validate(value, items + [key])
    elif _is_list(snippet):
        parent = items.pop() if items else ""
        for index, value in enumerate(snippet):
            validate(value, items + [f"{parent}[{index}]"])


def dependencies(snippet: Any, path: str = "") -> Iterator[str]:
    """Names of the resources a parsed snippet refers to."""
    if isinstance(snippet, Function):
        return snippet.dependencies(path)
    if isinstance(snippet, Mapping):
        return itertools.chain.from_iterable(
            dependencies(value, f"{path}.{key}")
            for key, value in snippet.items()
        )
    if _is_list(snippet):
        return itertools.chain.from_iterable(
            dependencies(value, f"{path}[{index}]")
            for index, value in enumerate(snippet)
        )
    return iter(())


def dep_attrs(snippet: Any, resource_name: str) -> Iterator[Any]:
    """Attributes of one resource that a parsed snippet reads."""
    if isinstance(snippet, Function):
        return snippet.dep_attrs(resource_name)
    return itertools.chain.from_iterable(
        dep_attrs(value, resource_name) for value in _children(snippet)
    )


def all_dep_attrs(snippet: Any) -> Iterator[tuple[str, Any]]:
    """``(resource, attribute)`` pairs a parsed snippet reads."""
    if isinstance(snippet, Function):
        return snippet.all_dep_attrs()
    return itertools.chain.from_iterable(
        all_dep_attrs(value) for value in _children(snippet)
    )


def _children(snippet: Any) -> Iterable[Any]:
    if isinstance(snippet, Mapping):
        return snippet.values()
    if _is_list(snippet):
        items: Iterable[Any] = snippet
        return items
    return ()


def parse_snippet(
    functions: Mapping[str, Any],
    stack: StackDefinition | None,
    snippet: Any,
    path: str = "",
    template: Any = None,
) -> Any:
    """Replace function maps in ``snippet`` by function objects.

    :raises StackValidationFailed: when a function's arguments have the
        wrong shape, with the dotted path of the call.
    """
    recurse = functools.partial(
        parse_snippet, functions, stack, template=template
    )
    if isinstance(snippet, Mapping):
        if len(snippet) == 1:
            fn_name, args = next(iter(snippet.items()))
            factory = (
                functions.get(fn_name) if isinstance(fn_name, str) else None
            )
            if factory is not None:
                fn_path = f"{path}.{fn_name}" if path else fn_name
                try:
                    if isinstance(factory, type) and issubclass(
                        factory, Macro
                    ):
                        return factory(
                            stack,
                            fn_name,
                            args,
                            functools.partial(recurse, path=fn_path),
                            template,
                        )
                    return factory(stack, fn_name, recurse(args, fn_path))
                except (ValueError, TypeError, KeyError) as err:
                    raise exception.StackValidationFailed(
                        path=fn_path, message=str(err)
                    ) from err
        return {
            key: recurse(value, f"{path}.{key}" if path else str(key))
            for key, value in snippet.items()
        }
    if _is_list(snippet):
        return [
            recurse(value, f"{path}[{index}]")
            for index, value in enumerate(snippet)
        ]
    return snippet
