"""Errors raised by the repositories.

Messages are Heat's, since some of them reach API users unchanged.
"""

from __future__ import annotations


class DBError(Exception):
    """Base of the errors of :mod:`keel_heat_core.db`."""


class NotFound(DBError):
    """A row the caller named does not exist (or is not visible)."""


class EntityNotFound(NotFound):
    """Heat's ``EntityNotFound``.

    Message: ``The <entity> (<name>) could not be found.``
    """

    def __init__(self, entity: str, name: object) -> None:
        self.entity = entity
        self.name = name
        super().__init__(f"The {entity} ({name}) could not be found.")


class StackExists(DBError):
    """Another live stack of the project already has this name."""

    def __init__(self, stack_name: str) -> None:
        self.stack_name = stack_name
        super().__init__(f"The Stack ({stack_name}) already exists.")


class InvalidRestrictedAction(DBError):
    """An operation the current state of the row forbids."""


class Invalid(DBError):
    """A request the database layer refuses (bad sort key, bad marker)."""
