"""Engine API errors that are answers, not faults.

oslo.messaging's RPC server logs every exception an endpoint raises as
"Exception during message handling", with its traceback, unless it
arrives wrapped in ``ExpectedException``. A stack that is not found, a
template that does not validate or a refused action is the engine's
answer to the caller (the API turns it into a 4xx): Heat's engine marks
its own exceptions expected the same way, so an operator's log carries a
traceback only for what went wrong inside the engine. The caller
receives the same exception either way.

Being the one place every engine API call passes, the wrapper also
reports each call's time to the plugins (the ``rpc_call_handled`` hook).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from oslo_messaging.rpc import dispatcher

from keel_heat_core.exception import HeatException
from keel_heat_core.plugins import current_hooks


class ExpectedErrors:
    """An endpoint whose :class:`HeatException` are expected ones.

    :param endpoint: the endpoint object the RPC server dispatches to;
        attributes other than its public methods pass through unchanged
        (``target`` among them).
    """

    def __init__(self, endpoint: object) -> None:
        self._endpoint = endpoint
        self._methods: dict[str, Callable[..., Any]] = {}

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._endpoint, name)
        if name.startswith("_") or not inspect.isroutine(found):
            return found
        wrapped = self._methods.get(name)
        if wrapped is None:
            wrapped = self._methods[name] = _expected(found)
        return wrapped


def _expected(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return current_hooks().rpc_call(
                method.__name__, lambda: method(*args, **kwargs)
            )
        except HeatException:
            # records the exception being handled, which is what the
            # caller gets back
            raise dispatcher.ExpectedException() from None

    return call
