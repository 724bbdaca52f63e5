"""Exceptions the fake engine raises, named and worded as Heat's.

oslo.messaging rebuilds them in the API process as ``<Name>_Remote``;
the API maps them by class name only.
"""

from __future__ import annotations

from typing import Any


class HeatException(Exception):
    """Base: a message formatted from keyword arguments."""

    msg_fmt = "An unknown exception occurred."

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # oslo.messaging rebuilds with the message as the first argument.
        self.kwargs = kwargs
        self.message = self.msg_fmt % kwargs
        super().__init__(self.message)


class EntityNotFound(HeatException):
    msg_fmt = "The %(entity)s (%(name)s) could not be found."


class ResourceNotFound(EntityNotFound):
    msg_fmt = (
        "The Resource (%(resource_name)s) could not be found in Stack "
        "%(stack_name)s."
    )


class NotFound(HeatException):
    msg_fmt = "%(message)s"


class StackExists(HeatException):
    msg_fmt = "The Stack (%(stack_name)s) already exists."


class StackValidationFailed(HeatException):
    msg_fmt = "%(message)s"


class NotSupported(HeatException):
    msg_fmt = "%(feature)s is not supported."


class ResourceActionNotSupported(HeatException):
    msg_fmt = "%(action)s is not supported for resource."


class ActionInProgress(HeatException):
    msg_fmt = (
        "Stack %(stack_name)s already has an action (%(action)s) in progress."
    )


class InvalidRestrictedAction(HeatException):
    msg_fmt = "%(message)s"


class Invalid(HeatException):
    msg_fmt = "Data supplied was not valid: %(reason)s"
