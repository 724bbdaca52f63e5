"""The exceptions of the plugin API: what a pack raises and catches.

They are the engine's own classes (the engine recognises them: an
:class:`UpdateReplace` raised by ``handle_update`` replaces the resource,
a :class:`StackValidationFailed` from ``validate`` rejects the template),
and this module names the ones a pack may use. A pack imports no other
exception of the core; one missing here is added to the API (a minor
version) rather than imported from elsewhere.
"""

from __future__ import annotations

from keel_heat_core.exception import (
    AuthorizationFailure,
    DownloadLimitExceeded,
    EntityNotFound,
    Error,
    HeatException,
    InvalidTemplateAttribute,
    InvalidTemplateReference,
    KeystoneServiceNameConflict,
    NoActionRequired,
    NotFound,
    NotSupported,
    PhysicalResourceNameAmbiguity,
    PropertyUnspecifiedError,
    ResourceActionNotSupported,
    ResourceFailure,
    ResourceInError,
    ResourceNotAvailable,
    ResourcePropertyConflict,
    ResourcePropertyDependency,
    ResourcePropertyValueDependency,
    ResourceUnknownStatus,
    StackValidationFailed,
    TemplateOutputError,
    UpdateReplace,
    UserParameterMissing,
)

__all__ = [
    "AuthorizationFailure",
    "DownloadLimitExceeded",
    "EntityNotFound",
    "Error",
    "HeatException",
    "InvalidTemplateAttribute",
    "InvalidTemplateReference",
    "KeystoneServiceNameConflict",
    "NoActionRequired",
    "NotFound",
    "NotSupported",
    "PhysicalResourceNameAmbiguity",
    "PropertyUnspecifiedError",
    "ResourceActionNotSupported",
    "ResourceFailure",
    "ResourceInError",
    "ResourceNotAvailable",
    "ResourcePropertyConflict",
    "ResourcePropertyDependency",
    "ResourcePropertyValueDependency",
    "ResourceUnknownStatus",
    "StackValidationFailed",
    "TemplateOutputError",
    "UpdateReplace",
    "UserParameterMissing",
]
