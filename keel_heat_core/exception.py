"""Heat's exception classes, by the same names, arguments and messages.

The API maps an engine error to an HTTP status by the class name alone
(``keel_heat_api.fault``), and clients match on the message text, so both
are part of the interface: each class here keeps Heat 27's name, its
keyword arguments and its message format.

Each :class:`HeatException` subclass sets ``msg_fmt``, a ``%``-format
string filled from the keyword arguments given to the constructor.  When
the arguments do not fill the format, the generic message is kept (Heat
logs and carries on rather than failing while raising).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

LOG = logging.getLogger(__name__)

#: Numbered errors whose text replaces the class format.
ERROR_CODE_MAP: dict[str, str] = {
    "99001": (
        "Service %(service_name)s is not available for resource "
        "type %(resource_type)s, reason: %(reason)s"
    ),
}


class HeatException(Exception):
    """Base of every Heat error with a formatted message.

    :param kwargs: values for the ``%(name)s`` fields of ``msg_fmt``.
    """

    msg_fmt: str = "An unknown exception occurred."
    message: str = "An unknown exception occurred."
    error_code: ClassVar[str | None] = None
    safe: ClassVar[bool] = True

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        if self.error_code in ERROR_CODE_MAP:
            self.msg_fmt = ERROR_CODE_MAP[self.error_code]
        try:
            self.message = self.msg_fmt % kwargs
        except (KeyError, TypeError, ValueError):
            LOG.exception("Exception in string format operation")
            self.message = HeatException.message
        if self.error_code:
            self.message = f"HEAT-E{self.error_code} {self.message}"
        # No positional args: oslo.messaging rebuilds a remote error as
        # ``cls(*args, **kwargs)``, and only the keyword form is accepted.
        super().__init__()

    def __str__(self) -> str:
        return self.message

    def __deepcopy__(self, memo: dict[int, Any]) -> HeatException:
        return self.__class__(**self.kwargs)


class MissingCredentialError(HeatException):
    msg_fmt = "Missing required credential: %(required)s"


class AuthorizationFailure(HeatException):
    msg_fmt = "Authorization failed.%(failure_reason)s"

    def __init__(self, failure_reason: str = "") -> None:
        if failure_reason != "":
            failure_reason = " " + failure_reason
        super().__init__(failure_reason=failure_reason)


class NotAuthenticated(HeatException):
    msg_fmt = "You are not authenticated."


class Forbidden(HeatException):
    msg_fmt = "You are not authorized to use %(action)s."

    def __init__(self, action: str = "this action") -> None:
        super().__init__(action=action)


class NotAuthorized(Forbidden):
    msg_fmt = "You are not authorized to complete this action."


class Invalid(HeatException):
    msg_fmt = "Data supplied was not valid: %(reason)s"


class UserParameterMissing(HeatException):
    msg_fmt = "The Parameter (%(key)s) was not provided."


class UnknownUserParameter(HeatException):
    msg_fmt = "The Parameter (%(key)s) was not defined in template."


class InvalidTemplateVersion(HeatException):
    msg_fmt = "The template version is invalid: %(explanation)s"


class InvalidTemplateSection(HeatException):
    msg_fmt = "The template section is invalid: %(section)s"


class ImmutableParameterModified(HeatException):
    msg_fmt = (
        "The following parameters are immutable and may not be "
        "updated: %(keys)s"
    )

    def __init__(self, *args: str, **kwargs: Any) -> None:
        if args:
            kwargs["keys"] = ", ".join(args)
        super().__init__(**kwargs)


class InvalidMergeStrategyForParam(HeatException):
    msg_fmt = (
        "Invalid merge strategy '%(strategy)s' for parameter '%(param)s'."
    )


class ConflictingMergeStrategyForParam(HeatException):
    msg_fmt = (
        "Conflicting merge strategy '%(strategy)s' for "
        "parameter '%(param)s' in file '%(env_file)s'."
    )


class InvalidTemplateAttribute(HeatException):
    msg_fmt = "The Referenced Attribute (%(resource)s %(key)s) is incorrect."


class InvalidTemplateReference(HeatException):
    msg_fmt = (
        'The specified reference "%(resource)s" (in %(key)s) is incorrect.'
    )


class TemplateOutputError(HeatException):
    msg_fmt = "Error in %(resource)s output %(attribute)s: %(message)s"


class InvalidEncryptionKey(HeatException):
    msg_fmt = (
        "Can not decrypt data with the auth_encryption_key in heat config."
    )


class InvalidExternalResourceDependency(HeatException):
    msg_fmt = (
        "Invalid dependency with external %(resource_type)s "
        "resource: %(external_id)s"
    )


class EntityNotFound(HeatException):
    msg_fmt = "The %(entity)s (%(name)s) could not be found."

    def __init__(
        self, entity: str | None = None, name: Any = None, **kwargs: Any
    ) -> None:
        self.entity = entity
        self.name = name
        super().__init__(entity=entity, name=name, **kwargs)


class PhysicalResourceExists(HeatException):
    msg_fmt = "The physical resource for (%(name)s) exists."


class PhysicalResourceNameAmbiguity(HeatException):
    msg_fmt = "Multiple physical resources were found with name (%(name)s)."


class PhysicalResourceIDAmbiguity(HeatException):
    msg_fmt = (
        "Multiple resources were found with the physical ID (%(phys_id)s)."
    )


class InvalidTenant(HeatException):
    msg_fmt = "Searching Tenant %(target)s from Tenant %(actual)s forbidden."


class StackExists(HeatException):
    msg_fmt = "The Stack (%(stack_name)s) already exists."


def format_path(path: list[Any]) -> str:
    """Write an error path the way Heat does.

    Items are joined with ``.``; an int, or a string of digits, is written
    ``[n]`` and glued to what comes before it.

    :param path: the path items, outermost first.
    :returns: the path as text, ``''`` for an empty path.
    """
    result = ""
    for item in path:
        if isinstance(item, int) or str(item).isdigit():
            result += f"[{item}]"
        elif result:
            result += f".{item}"
        else:
            result = str(item)
    return result


class HeatExceptionWithPath(HeatException):
    """An error with a kind, a dotted path and a message.

    Written ``"<error>: <path>: <message>"``, leaving out the parts that are
    empty.
    """

    msg_fmt = "%(error)s%(path)s%(message)s"

    def __init__(
        self,
        error: str | None = None,
        path: list[Any] | str | None = None,
        message: str | None = None,
    ) -> None:
        self.error = error or ""
        self.path: list[Any] = []
        if isinstance(path, list):
            self.path = path
        elif isinstance(path, str):
            self.path = [path]
        result_path = format_path(self.path)
        self.error_message = message or ""
        super().__init__(
            error=f"{self.error}: " if self.error else "",
            path=f"{result_path}: " if result_path else "",
            message=self.error_message,
        )


class StackValidationFailed(HeatExceptionWithPath):
    """A validation error; wrapping another error prefixes its path.

    :param error: a kind of error as text, or an exception to wrap (its
        class name becomes the kind, unless it is itself a
        StackValidationFailed whose parts are kept).
    :param path: path items to put before the wrapped error's path.
    :param message: the message when ``error`` is not an exception.
    :param resource: a resource whose ``resources.<name>`` path is used
        when no path is given (anything with ``name`` and
        ``stack.t.get_section_name``).
    """

    def __init__(
        self,
        error: str | BaseException | None = None,
        path: list[Any] | str | None = None,
        message: str | None = None,
        resource: Any = None,
    ) -> None:
        items: list[Any]
        if path is None:
            items = []
        elif isinstance(path, str):
            items = [path]
        else:
            items = list(path)
        if resource is not None and not items:
            section = resource.stack.t.get_section_name("resources")
            items = [section, resource.name]
        str_error: str | None
        if isinstance(error, StackValidationFailed):
            str_error = error.error
            message = error.error_message
            items = items + error.path
        elif isinstance(error, BaseException):
            str_error = type(error).__name__
            message = str(error)
        else:
            str_error = error
        super().__init__(error=str_error, path=items, message=message)


class InvalidSchemaError(HeatException):
    msg_fmt = "%(message)s"


class ResourceNotFound(EntityNotFound):
    msg_fmt = (
        "The Resource (%(resource_name)s) could not be found "
        "in Stack %(stack_name)s."
    )


class SnapshotNotFound(EntityNotFound):
    msg_fmt = (
        "The Snapshot (%(snapshot)s) for Stack (%(stack)s) could not be found."
    )


class InvalidGlobalResource(HeatException):
    msg_fmt = (
        "There was an error loading the definition of the global "
        "resource type %(type_name)s."
    )


class ResourceTypeUnavailable(HeatException):
    error_code = "99001"


class InvalidBreakPointHook(HeatException):
    msg_fmt = "%(message)s"


class InvalidRestrictedAction(HeatException):
    msg_fmt = "%(message)s"


class ResourceNotAvailable(HeatException):
    msg_fmt = "The Resource (%(resource_name)s) is not available."


class ClientNotAvailable(HeatException):
    msg_fmt = "The client (%(client_name)s) is not available."


class ResourceFailure(HeatExceptionWithPath):
    """A resource action failed.

    :param exception_or_error: the exception raised, or a status reason.
    :param resource: the resource (``name``, ``action`` and
        ``stack.t.get_section_name``), or None.
    :param action: the action that failed (default: the resource's).
    :param error: with ``path`` and ``message`` and no
        ``exception_or_error``: the parts of a failure written by another
        process (the keyword arguments oslo.messaging rebuilds a remote
        error from), giving the same text.
    """

    def __init__(
        self,
        exception_or_error: BaseException | str | None = None,
        resource: Any = None,
        action: str | None = None,
        *,
        error: str | None = None,
        path: str | list[Any] | None = None,
        message: str | None = None,
    ) -> None:
        self.resource = resource
        self.action = action
        self.exc: BaseException | None = None
        if exception_or_error is None:
            # rebuilt from HeatExceptionWithPath's formatted keywords
            if isinstance(path, str):
                path = path.removesuffix(": ")
            super().__init__(
                error=(error or "").removesuffix(": ") or None,
                path=path or None,
                message=message,
            )
            return
        if action is None and resource is not None:
            self.action = resource.action
        res_path: list[Any] = []
        if resource is not None:
            section = resource.stack.t.get_section_name("resources")
            res_path = [section, resource.name]
        if isinstance(exception_or_error, ResourceFailure):
            self.exc = exception_or_error.exc
            error = exception_or_error.error
            message = exception_or_error.error_message
            path = exception_or_error.path
        elif isinstance(exception_or_error, BaseException):
            self.exc = exception_or_error
            error = type(exception_or_error).__name__
            message = str(exception_or_error)
            path = res_path
        else:
            self.exc = None
            failed = f"Resource {str(self.action).upper()} failed: "
            if failed in exception_or_error:
                error, message, extra = self._from_status_reason(
                    exception_or_error
                )
                path = res_path + extra
            else:
                error, message, path = None, exception_or_error, res_path
        super().__init__(error=error, path=path, message=message)

    @staticmethod
    def _from_status_reason(reason: str) -> tuple[str, str, list[str]]:
        """Split ``Resource X failed: Kind: path: message`` into parts."""
        parts = [part.strip() for part in reason.split(":")]
        if len(parts) >= 4:
            return parts[1], ": ".join(parts[3:]), parts[2].split(".")
        return "", reason, []


class NotSupported(HeatException):
    msg_fmt = "%(feature)s is not supported."


class ResourceActionNotSupported(HeatException):
    msg_fmt = "%(action)s is not supported for resource."


class ResourceActionRestricted(HeatException):
    msg_fmt = "%(action)s is restricted for resource."


class ResourcePropertyConflict(HeatException):
    msg_fmt = (
        "Cannot define the following properties at the same time: %(props)s."
    )

    def __init__(self, *args: str, **kwargs: Any) -> None:
        if args:
            kwargs["props"] = ", ".join(args)
        super().__init__(**kwargs)


class ResourcePropertyDependency(HeatException):
    msg_fmt = "%(prop1)s cannot be specified without %(prop2)s."


class ResourcePropertyValueDependency(HeatException):
    msg_fmt = (
        "%(prop1)s property should only be specified "
        "for %(prop2)s with value %(value)s."
    )


class PropertyUnspecifiedError(HeatException):
    msg_fmt = (
        "At least one of the following properties must be specified: "
        "%(props)s."
    )

    def __init__(self, *args: str, **kwargs: Any) -> None:
        if args:
            kwargs["props"] = ", ".join(args)
        super().__init__(**kwargs)


class UpdateReplace(Exception):  # noqa: N818 - Heat's name
    """A resource update needs the resource to be replaced."""

    def __init__(self, resource_name: Any = "Unknown") -> None:
        super().__init__(f"The Resource {resource_name} requires replacement.")


class ResourceUnknownStatus(HeatException):
    msg_fmt = (
        '%(result)s - Unknown status %(resource_status)s due to "'
        '%(status_reason)s"'
    )

    def __init__(
        self,
        result: str = "Resource failed",
        status_reason: str = "Unknown",
        **kwargs: Any,
    ) -> None:
        super().__init__(result=result, status_reason=status_reason, **kwargs)


class ResourceInError(HeatException):
    msg_fmt = 'Went to status %(resource_status)s due to "%(status_reason)s"'

    def __init__(self, status_reason: str = "Unknown", **kwargs: Any) -> None:
        super().__init__(status_reason=status_reason, **kwargs)


class UpdateInProgress(Exception):  # noqa: N818 - Heat's name
    """The resource is already being updated."""

    def __init__(self, resource_name: Any = "Unknown") -> None:
        super().__init__(
            f"The resource {resource_name} is already being updated."
        )


class HTTPExceptionDisguise(Exception):  # noqa: N818 - Heat's name
    """Carries an HTTP error through code that only passes exceptions.

    :param exception: the HTTP error (a webob exception).
    """

    safe = True

    def __init__(self, exception: BaseException) -> None:
        super().__init__()
        self.exc = exception
        self.tb = exception.__traceback__


class EgressRuleNotAllowed(HeatException):
    msg_fmt = (
        "Egress rules are only allowed when "
        "Neutron is used and the 'VpcId' property is set."
    )


class Error(HeatException):
    msg_fmt = "%(message)s"

    def __init__(self, msg: str) -> None:
        super().__init__(message=msg)


class NotFound(HeatException):
    def __init__(self, msg_fmt: str = "Not found") -> None:
        self.msg_fmt = msg_fmt
        super().__init__()
        # Kept so the message survives oslo.messaging's rebuild from kwargs.
        self.kwargs = {"msg_fmt": msg_fmt}


class InvalidContentType(HeatException):
    msg_fmt = "Invalid content type %(content_type)s"


class RequestLimitExceeded(HeatException):
    msg_fmt = "Request limit exceeded: %(message)s"


class DownloadLimitExceeded(HeatException):
    msg_fmt = "Permissible download limit exceeded: %(message)s"


class StackResourceLimitExceeded(HeatException):
    msg_fmt = "Maximum resources per stack exceeded."


class ActionInProgress(HeatException):
    msg_fmt = (
        "Stack %(stack_name)s already has an action (%(action)s) in progress."
    )


class ActionNotComplete(HeatException):
    msg_fmt = (
        "Stack %(stack_name)s has an action (%(action)s) "
        "in progress or failed state."
    )


class StopActionFailed(HeatException):
    msg_fmt = (
        "Failed to stop stack (%(stack_name)s) on other engine (%(engine_id)s)"
    )


class EventSendFailed(HeatException):
    msg_fmt = (
        "Failed to send message to stack (%(stack_name)s) "
        "on other engine (%(engine_id)s)"
    )


class InterfaceAttachFailed(HeatException):
    msg_fmt = "Failed to attach interface (%(port)s) to server (%(server)s)"


class InterfaceDetachFailed(HeatException):
    msg_fmt = "Failed to detach interface (%(port)s) from server (%(server)s)"


class UnsupportedObjectError(HeatException):
    msg_fmt = "Unsupported object type %(objtype)s"


class OrphanedObjectError(HeatException):
    msg_fmt = "Cannot call %(method)s on orphaned %(objtype)s object"


class IncompatibleObjectVersion(HeatException):
    msg_fmt = "Version %(objver)s of %(objname)s is not supported"


class ObjectActionError(HeatException):
    msg_fmt = "Object action %(action)s failed because: %(reason)s"


class ReadOnlyFieldError(HeatException):
    msg_fmt = "Cannot modify readonly field %(field)s"


class ConcurrentTransaction(HeatException):
    msg_fmt = "Concurrent transaction for %(action)s"


class ObjectFieldInvalid(HeatException):
    msg_fmt = "Field %(field)s of %(objname)s is not an instance of Field"


class KeystoneServiceNameConflict(HeatException):
    msg_fmt = (
        "Keystone has more than one service with same name "
        "%(service)s. Please use service id instead of name"
    )


class SIGHUPInterrupt(HeatException):
    msg_fmt = "System SIGHUP signal received."


class NoActionRequired(Exception):  # noqa: N818 - Heat's name
    """Nothing needs doing (used to skip an action)."""


class InvalidServiceVersion(HeatException):
    msg_fmt = "Invalid service %(service)s version %(version)s"


class InvalidTemplateVersions(HeatException):
    msg_fmt = (
        "A template version alias %(version)s was added for a "
        "template class that has no official YYYY-MM-DD version."
    )


class UnableToAutoAllocateNetwork(HeatException):
    msg_fmt = "Unable to automatically allocate a network: %(message)s"


class CircularDependencyException(HeatException):
    """A dependency cycle (Heat keeps this in its dependencies module)."""

    msg_fmt = "Circular Dependency Found: %(cycle)s"


class RunLost(Exception):
    """Not one of Heat's: a run of releases sharing one commit was rolled
    back (``keel_heat_core.db.commit_runs``); its nodes run again."""
