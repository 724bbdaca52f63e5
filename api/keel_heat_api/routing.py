"""The route table of the native API and how a path finds its handler.

Routes are matched like Heat's (registration order, ``[^/]+`` parameters,
the ``arn:`` form of a stack name may contain ``/``), with two fixes: a
URL template with more literal segments wins over a parametrised one
(``GET /stacks/preview`` is a 405, not a lookup of a stack called
"preview"), and a 405 names the allowed methods in ``Allow``. ``OPTIONS``
answers 204 with ``Allow``; ``HEAD`` is never routed to ``GET``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from keel_heat_api.errors import HTTPMethodNotAllowed

Handler = Callable[..., Any]

_PARAM = re.compile(r"\{(\w+)(?::([^}]*))?\}")


@dataclass
class Route:
    """One URL template and method, and the handler serving it."""

    template: str
    method: str
    handler: Handler
    regex: re.Pattern[str] = field(init=False)
    literals: int = field(init=False)

    def __post_init__(self) -> None:
        pattern = ""
        literals = 0
        pos = 0
        for match in _PARAM.finditer(self.template):
            pattern += re.escape(self.template[pos : match.start()])
            custom = match.group(2)
            if custom:
                literals += 1
            pattern += f"(?P<{match.group(1)}>{custom or '[^/]+'})"
            pos = match.end()
        pattern += re.escape(self.template[pos:])
        literals += sum(
            1
            for seg in self.template.split("/")
            if seg and not seg.startswith("{")
        )
        self.regex = re.compile("^" + pattern + "/?$")
        self.literals = literals


class Router:
    """Find the handler for a method and path.

    :param routes: ``(template, methods, handler)`` in registration order.
    """

    def __init__(self, routes: list[tuple[str, str, Handler]]) -> None:
        self.routes = [
            Route(template, method, handler)
            for template, methods, handler in routes
            for method in methods.split()
        ]

    def match(
        self, method: str, path: str
    ) -> tuple[Route, dict[str, str]] | tuple[None, list[str]] | None:
        """Return the route and its parameters for ``method`` and ``path``.

        :returns: ``(route, params)``; ``(None, allowed)`` for a path that
            exists without that method (or for ``OPTIONS``); ``None`` for
            an unknown path.
        """
        matches = []
        for route in self.routes:
            found = route.regex.match(path)
            if found is not None:
                matches.append((route, found.groupdict()))
        if not matches:
            return None
        best = max(route.literals for route, _params in matches)
        candidates = [(r, p) for r, p in matches if r.literals == best]
        if method != "OPTIONS":
            for route, params in candidates:
                if route.method == method:
                    return route, params
        allowed: list[str] = []
        for route, _params in candidates:
            if route.method not in allowed:
                allowed.append(route.method)
        return None, allowed


def method_not_allowed(allowed: list[str]) -> HTTPMethodNotAllowed:
    """Return the 405 error for a URL implementing ``allowed``."""
    return HTTPMethodNotAllowed(allowed)
