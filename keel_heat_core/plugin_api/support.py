"""Support status of a resource type, a property or an attribute.

The classes belong to the template language (property schemas carry a
status; :mod:`keel_heat_core.template.support`); this module is their
place in the plugin API.
"""

from keel_heat_core.template.support import (
    DEPRECATED,
    HIDDEN,
    SUPPORT_STATUSES,
    SUPPORTED,
    UNKNOWN,
    UNSUPPORTED,
    SupportStatus,
    is_hidden,
    is_valid_status,
)

__all__ = [
    "DEPRECATED",
    "HIDDEN",
    "SUPPORTED",
    "SUPPORT_STATUSES",
    "UNKNOWN",
    "UNSUPPORTED",
    "SupportStatus",
    "is_hidden",
    "is_valid_status",
]
