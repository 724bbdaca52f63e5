"""Exceptions the API raises itself, named as Heat names them.

The fault wrapper maps exceptions by class name, so these carry the names
of Heat's classes (``HTTPBadRequest``, ``RequestLimitExceeded``,
``Forbidden`` ...) without importing the engine's exception module.
"""

from __future__ import annotations


class ApiError(Exception):
    """An error raised by API code, rendered by the fault wrapper.

    :ivar code: the HTTP status to answer.
    :ivar message: the text shown as ``error.message``.
    :ivar safe: whether ``message`` may be shown to the caller.
    """

    code = 500
    safe = True
    default_message = ""

    def __init__(self, message: str | None = None) -> None:
        self.message = message if message is not None else self.default_message
        super().__init__(self.message)


class HTTPBadRequest(ApiError):
    """400 raised by API code."""

    code = 400
    default_message = (
        "The server could not comply with the request since it is either "
        "malformed or otherwise incorrect."
    )


class HTTPForbidden(ApiError):
    """403 raised by API code."""

    code = 403
    default_message = "Access was denied to this resource."


class HTTPNotFound(ApiError):
    """404 raised by API code."""

    code = 404
    default_message = "The resource could not be found."


class HTTPMethodNotAllowed(ApiError):
    """405 for a method the URL does not implement.

    :ivar allow: the methods the URL implements, for the ``Allow`` header.
    """

    code = 405
    default_message = "The method is not allowed for this resource."

    def __init__(self, allow: list[str]) -> None:
        self.allow = allow
        super().__init__(
            "The method is not allowed for this resource. "
            "Allowed methods: " + ", ".join(allow) + "."
        )


class HTTPUnsupportedMediaType(ApiError):
    """415 for a request body of a content type the API cannot read."""

    code = 415
    default_message = "The request media type is not supported."


class HTTPServiceUnavailable(ApiError):
    """503, for example when no engine answers the service list."""

    code = 503
    default_message = (
        "The server is currently unavailable. Please try again at a later "
        "time."
    )


class HeatError(ApiError):
    """Base of the API-side copies of Heat's exceptions (status by name)."""


class RequestLimitExceeded(HeatError):
    """A request or template is larger than the configured limit."""

    code = 400

    def __init__(self, message: str) -> None:
        super().__init__("Request limit exceeded: " + message)


class Forbidden(HeatError):
    """A policy rule refused the request."""

    code = 403

    def __init__(self, action: str = "this action") -> None:
        super().__init__(f"You are not authorized to use {action}.")


class NotFound(HeatError):
    """Something named in the request does not exist."""

    code = 404


class Invalid(HeatError):
    """Data supplied was not valid."""

    code = 400

    def __init__(self, reason: str) -> None:
        super().__init__("Data supplied was not valid: " + reason)
