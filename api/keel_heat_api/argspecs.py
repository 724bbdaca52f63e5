"""pecan's controller argspecs, worked out once per function.

pecan asks for the argspec of the controller it invokes at every request
(``pecan.core.getargspec``), and its Python 3 path defines a new
``namedtuple`` class each time: about a tenth of the API's CPU for a
``GET /stacks``. A function's argspec never changes, so :func:`install`
puts a memo in front of it, keyed by the function (a bound method is a
new object at every attribute access; its ``__func__`` is not).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pecan.core

_specs: dict[Any, Any] = {}


def _memoized(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def getargspec(method: Any) -> Any:
        key = getattr(method, "__func__", method)
        spec = _specs.get(key)
        if spec is None:
            # two threads may both work it out once: the same value
            spec = _specs[key] = original(method)
        return spec

    getargspec.memoized = True  # type: ignore[attr-defined]
    return getargspec


def install() -> None:
    """Memoize ``pecan.core.getargspec`` (once per process)."""
    current = pecan.core.getargspec
    if not getattr(current, "memoized", False):
        pecan.core.getargspec = _memoized(current)
