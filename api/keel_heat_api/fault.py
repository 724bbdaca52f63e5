"""The fault wrapper: Heat's JSON error body and status map.

Every exception escaping the application is rendered as::

    {"code": 404, "title": "Not Found",
     "explanation": "The resource could not be found.",
     "error": {"type": "EntityNotFound", "traceback": null,
               "message": "The Stack (foo) could not be found."}}

The status comes from the exception's class name (``_Remote`` suffix
removed), first in the table of all of Heat's exception names, then along
the class's bases; anything unknown is a 500. ``message`` is given only
for Heat exceptions and the API's own errors; ``traceback`` only with
``debug``.
"""

from __future__ import annotations

import json
import logging
import traceback as tb
from collections.abc import Callable
from typing import Any

import webob
import webob.exc

from keel_heat_api import errors
from keel_heat_core import nesting
from keel_heat_core.rpc.engine_base import messaging

LOG = logging.getLogger(__name__)

_400 = (
    "MissingCredentialError Invalid UserParameterMissing UnknownUserParameter "
    "InvalidTemplateVersion InvalidTemplateSection ImmutableParameterModified "
    "InvalidTemplateReference PhysicalResourceNameAmbiguity "
    "PhysicalResourceIDAmbiguity StackValidationFailed InvalidSchemaError "
    "ResourceTypeUnavailable InvalidBreakPointHook NotSupported "
    "ResourceActionNotSupported ResourcePropertyConflict "
    "PropertyUnspecifiedError RequestLimitExceeded DownloadLimitExceeded "
    "UnsupportedObjectError OrphanedObjectError IncompatibleObjectVersion "
    "ObjectActionError ReadOnlyFieldError ObjectFieldInvalid "
    "CircularDependencyException AttributeError ValueError"
)
_403 = "Forbidden NotAuthorized InvalidTenant"
_404 = "EntityNotFound ResourceNotFound SnapshotNotFound NotFound "
_404 += "ResourceNotAvailable"
_409 = "StackExists ActionInProgress"
_500 = (
    "InvalidGlobalResource InvalidEncryptionKey StopActionFailed "
    "EventSendFailed RevertFailed ServerBuildFailed"
)
# Fixed: Heat answers 500 for these user mistakes (docs/compat.md, Native API).
_FIXED_409 = "InvalidRestrictedAction ResourceActionRestricted "
_FIXED_409 += "ActionNotComplete"
_FIXED_400 = "InvalidTemplateAttribute TemplateOutputError "
_FIXED_400 += "InvalidMergeStrategyForParam ConflictingMergeStrategyForParam "
_FIXED_400 += "InvalidExternalResourceDependency StackResourceLimitExceeded"
# a synchronous signal whose handler refused it (engine resource_signal)
_FIXED_400 += " ResourceFailure"

#: Class name -> status, for names that decide the status themselves.
STATUS_BY_NAME: dict[str, int] = {}
for _names, _code in (
    (_400, 400),
    (_403, 403),
    (_404, 404),
    (_409, 409),
    (_500, 500),
    (_FIXED_409, 409),
    (_FIXED_400, 400),
):
    STATUS_BY_NAME.update(dict.fromkeys(_names.split(), _code))

#: Every exception class name of Heat's exception module: their messages
#: are safe to show.
HEAT_EXCEPTION_NAMES = frozenset(
    (
        _400
        + " "
        + _403
        + " "
        + _404
        + " "
        + _409
        + " "
        + _500
        + " "
        + _FIXED_409
        + " "
        + _FIXED_400
        + " HeatException "
        "AuthorizationFailure NotAuthenticated PhysicalResourceExists "
        "HeatExceptionWithPath ClientNotAvailable ResourceFailure "
        "ResourcePropertyDependency ResourcePropertyValueDependency "
        "ResourceUnknownStatus ResourceInError EgressRuleNotAllowed Error "
        "InvalidContentType InterfaceAttachFailed InterfaceDetachFailed "
        "ConcurrentTransaction KeystoneServiceNameConflict SIGHUPInterrupt "
        "InvalidServiceVersion InvalidTemplateVersions "
        "UnableToAutoAllocateNetwork"
    ).split()
) - {"AttributeError", "ValueError", "RevertFailed", "ServerBuildFailed"}


def _strip(name: str) -> str:
    return name[: -len("_Remote")] if name.endswith("_Remote") else name


def exception_name(exc: BaseException) -> str:
    """Return the class name Heat would report for ``exc``."""
    if isinstance(exc, messaging.RemoteError):
        return _strip(str(exc.exc_type))
    return _strip(type(exc).__name__)


def status_for(exc: BaseException) -> int:
    """Return the HTTP status for an exception, by class name.

    The exception's own name is looked up among all of Heat's exception
    names; then, as Heat does, the chain of first base classes.
    """
    if isinstance(exc, errors.ApiError) and not isinstance(
        exc, errors.HeatError
    ):
        return exc.code
    if isinstance(exc, messaging.MessagingTimeout):
        return 500
    if isinstance(exc, TypeError):
        return 400
    name = exception_name(exc)
    if name in STATUS_BY_NAME:
        return STATUS_BY_NAME[name]
    cls: type[BaseException] = type(exc).__base__ or Exception
    while cls is not Exception and cls is not BaseException:
        name = _strip(cls.__name__)
        if name in STATUS_BY_NAME:
            return STATUS_BY_NAME[name]
        cls = cls.__base__ or Exception
    return 500


def _is_heat_exception(exc: BaseException) -> bool:
    """Whether the message may be shown (Heat's "safe" exceptions)."""
    if isinstance(exc, errors.ApiError):
        return exc.safe
    if isinstance(exc, messaging.RemoteError):
        return exception_name(exc) in HEAT_EXCEPTION_NAMES
    if getattr(exc, "exc_type", None) and hasattr(exc, "remote_traceback"):
        return str(getattr(exc, "exc_type", "")) in HEAT_EXCEPTION_NAMES
    return any(c.__name__ == "HeatException" for c in type(exc).__mro__)


def _message_and_trace(exc: BaseException) -> tuple[str, str | None]:
    """Split a remote exception's text into message and engine trace."""
    if isinstance(exc, messaging.RemoteError):
        trace = exc.traceback or ""
        if isinstance(trace, list | tuple):
            trace = "\n".join(str(line) for line in trace)
        return str(exc.value or ""), str(trace) or None
    text = str(exc)
    remote_trace = getattr(exc, "remote_traceback", None)
    if remote_trace is not None:
        return str(getattr(exc, "message", text)), remote_trace or None
    message = getattr(exc, "message", None)
    if type(exc).__name__.endswith("_Remote") and "\n" in text:
        first, trace = text.split("\n", 1)
        return (message if isinstance(message, str) else first), trace
    if isinstance(message, str):
        return message, None
    return text, None


def error_body(exc: BaseException, debug: bool = False) -> dict[str, Any]:
    """Return Heat's fault body for ``exc``, keys in Heat's order.

    :param exc: the exception that escaped the application.
    :param debug: include the traceback (engine or local).
    """
    code = status_for(exc)
    if isinstance(exc, TypeError):
        # Heat answers any TypeError with a bare 400; we name the error.
        exc = errors.HTTPBadRequest()
    http = webob.exc.status_map.get(code, webob.exc.HTTPInternalServerError)
    message, trace = _message_and_trace(exc)
    if debug and trace is None:
        trace = "".join(tb.format_exception(exc))
    error: dict[str, Any] = {
        "type": exception_name(exc),
        "traceback": trace if debug else None,
    }
    if _is_heat_exception(exc):
        error["message"] = message
    return {
        "code": code,
        "title": http.title,
        "explanation": http.explanation,
        "error": error,
    }


StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Any]

#: the API's own errors by status, for pages it did not write itself
_REFUSALS: dict[int, type[errors.ApiError]] = {
    cls.code: cls
    for cls in (
        errors.HTTPBadRequest,
        errors.HTTPForbidden,
        errors.HTTPNotFound,
        errors.HTTPUnsupportedMediaType,
        errors.HTTPServiceUnavailable,
    )
}


def _heat_fault(data: bytes) -> bool:
    """Whether an error body is JSON (Heat's fault, or webob's JSON page
    that Heat itself answers for a path no route takes), or empty (a
    HEAD's)."""
    if not data:
        return True
    try:
        return isinstance(json.loads(data), dict)
    except ValueError:
        return False


def _refusal(code: int) -> errors.ApiError:
    cls = _REFUSALS.get(code)
    if cls is not None:
        return cls()
    found = errors.ApiError(
        webob.exc.status_map.get(code, webob.exc.HTTPBadRequest).explanation
    )
    found.code = code
    return found


class FaultWrapper:
    """WSGI middleware rendering escaped exceptions as Heat's fault body.

    :param app: the wrapped application.
    :param debug: a callable telling whether ``debug`` is on now.
    """

    def __init__(self, app: WSGIApp, debug: Callable[[], bool]) -> None:
        self.app = app
        self.debug = debug

    def __call__(
        self, environ: dict[str, Any], start_response: StartResponse
    ) -> Any:
        held: list[tuple[str, list[tuple[str, str]]]] = []

        def capture(
            status: str, headers: list[tuple[str, str]], *exc_info: Any
        ) -> Any:
            if status[:1] in "45" and not status.startswith("405"):
                # an error: looked at below, once the application returned
                held.append((status, headers))
                return lambda data: None
            return start_response(status, headers, *exc_info)

        try:
            body = self.app(environ, capture)
        except RecursionError:
            # in the API only a request nested too deeply recurses this
            # far: pecan reads a JSON body (for its own routing) before
            # our code can refuse it with its own message
            refused = errors.HTTPBadRequest(
                str(nesting.too_deep("The request body"))
            )
            return self.render(refused)(environ, start_response)
        except Exception as exc:  # noqa: BLE001 - this is the fault barrier
            return self.render(exc)(environ, start_response)
        if not held:
            return body
        try:
            data = b"".join(body)
        finally:
            if hasattr(body, "close"):
                body.close()
        status, headers = held[0]
        if _heat_fault(data):
            start_response(status, headers)
            return [data]
        # an error page of the framework or the server (an undecodable
        # body, a path no route takes): Heat's JSON fault instead
        page = _refusal(int(status.split(" ", 1)[0]))
        return self.render(page)(environ, start_response)

    def render(self, exc: BaseException) -> webob.Response:
        """Return the fault response for ``exc``."""
        body = error_body(exc, self.debug())
        if body["code"] >= 500:
            LOG.error(
                "Request failed: %s",
                "".join(tb.format_exception(exc)),
            )
        resp = webob.Response(
            status=body["code"],
            content_type="application/json",
            charset="UTF-8",
        )
        resp.text = json.dumps(body)
        if isinstance(exc, errors.HTTPMethodNotAllowed):
            resp.headers["Allow"] = ",".join(exc.allow)
        return resp
