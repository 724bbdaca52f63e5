"""Support status of a resource type, a property or an attribute.

A :class:`SupportStatus` tells template authors how far they can rely on a
type: since when it exists, whether it is deprecated and what replaces it.
``HIDDEN`` types are refused by the engine and left out of listings;
``HIDDEN`` properties and attributes are left out of the resource-type
schema and of the generated templates.
"""

from __future__ import annotations

from typing import Any

SUPPORT_STATUSES = (UNKNOWN, SUPPORTED, DEPRECATED, UNSUPPORTED, HIDDEN) = (
    "UNKNOWN",
    "SUPPORTED",
    "DEPRECATED",
    "UNSUPPORTED",
    "HIDDEN",
)


class SupportStatus:
    """The status of a type, property or attribute, with its history.

    :param status: one of :data:`SUPPORT_STATUSES`; anything else becomes
        ``UNKNOWN`` with a message saying so.
    :param message: free text shown with the status (for example what to
        use instead).
    :param version: the Heat release in which this status started.
    :param previous_status: the status this one replaced.
    :param substitute_class: for deprecated types, the class that replaces
        this one.
    """

    def __init__(
        self,
        status: str = SUPPORTED,
        message: str | None = None,
        version: str | None = None,
        previous_status: SupportStatus | None = None,
        substitute_class: type | None = None,
    ) -> None:
        self.status = status
        self.message = message
        self.version = version
        self.previous_status = previous_status
        self.substitute_class = substitute_class
        self.validate()

    def validate(self) -> None:
        """Check the fields; an unknown status becomes ``UNKNOWN``.

        :raises ValueError: when ``previous_status`` is not a SupportStatus.
        """
        if self.previous_status is not None and not isinstance(
            self.previous_status, SupportStatus
        ):
            wrong = type(self.previous_status)
            raise ValueError(
                f"previous_status must be SupportStatus instead of {wrong}"
            )
        if self.status not in SUPPORT_STATUSES:
            self.status = UNKNOWN
            self.message = (
                f"Specified status is invalid, defaulting to {UNKNOWN}"
            )
            self.version = None
            self.previous_status = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used in resource-type schemas."""
        previous = self.previous_status
        return {
            "status": self.status,
            "message": self.message,
            "version": self.version,
            "previous_status": (
                previous.to_dict() if previous is not None else None
            ),
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SupportStatus):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.status, self.version, self.message))

    def __repr__(self) -> str:
        return f"SupportStatus({self.status!r}, version={self.version!r})"


def is_valid_status(status: str) -> bool:
    """Whether ``status`` is one of :data:`SUPPORT_STATUSES`."""
    return status in SUPPORT_STATUSES


def is_hidden(status: SupportStatus) -> bool:
    """Whether a support status hides its subject from users."""
    return status.status == HIDDEN
