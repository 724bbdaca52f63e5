"""AWS error classes of the CFN API and the engine-error map.

Each class is one of Heat's ``heat.api.aws.exception`` errors: the HTTP
status, the AWS error code (also the status line's reason phrase), the
AWS error type and the fixed explanation are Heat's. The message a
client sees is the explanation, followed by ``:`` and a detail when one
is given.
"""

from __future__ import annotations

from typing import Any, ClassVar

from keel_heat_api import fault


class AwsError(Exception):
    """An error answered in the AWS query API's error format.

    :ivar detail: appended to the explanation after a colon, if any.
    """

    status: ClassVar[int] = 400
    code: ClassVar[str] = "HeatAPIException"
    err_type: ClassVar[str] = "Sender"
    explanation: ClassVar[str] = (
        "Generic HeatAPIException, please use specific subclasses!"
    )

    def __init__(self, detail: str | None = None) -> None:
        self.detail = detail
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The explanation, with ``:detail`` when there is a detail."""
        if self.detail:
            return f"{self.explanation}:{self.detail}"
        return self.explanation

    def body(self) -> dict[str, Any]:
        """Return the ``ErrorResponse`` tree the serializers render."""
        return {
            "ErrorResponse": {
                "Error": {
                    "Type": self.err_type,
                    "Code": self.code,
                    "Message": self.message,
                }
            }
        }


def _error(
    name: str, status: int, code: str, explanation: str, server: bool = False
) -> type[AwsError]:
    attrs = {
        "status": status,
        "code": code,
        "explanation": explanation,
        "err_type": "Server" if server else "Sender",
        "__doc__": f"{status} {code}: {explanation}.",
    }
    return type(name, (AwsError,), attrs)


IncompleteSignature = _error(
    "IncompleteSignature",
    400,
    "IncompleteSignature",
    "The request signature does not conform to AWS standards",
)
InternalFailure = _error(
    "InternalFailure",
    500,
    "InternalFailure",
    "The request processing has failed due to an internal error",
    server=True,
)
InvalidAction = _error(
    "InvalidAction",
    400,
    "InvalidAction",
    "The action or operation requested is invalid",
)
InvalidClientTokenId = _error(
    "InvalidClientTokenId",
    403,
    "InvalidClientTokenId",
    "The certificate or AWS Key ID provided does not exist",
)
InvalidParameterCombination = _error(
    "InvalidParameterCombination",
    400,
    "InvalidParameterCombination",
    "Incompatible parameters were used together",
)
InvalidParameterValue = _error(
    "InvalidParameterValue",
    400,
    "InvalidParameterValue",
    "A bad or out-of-range value was supplied",
)
InvalidQueryParameter = _error(
    "InvalidQueryParameter",
    400,
    "InvalidQueryParameter",
    "AWS query string is malformed, does not adhere to AWS spec",
)
MalformedQueryString = _error(
    "MalformedQueryString",
    404,
    "MalformedQueryString",
    "The query string is malformed",
)
MissingAction = _error(
    "MissingAction",
    400,
    "MissingAction",
    "The request is missing an action or operation parameter",
)
MissingAuthenticationToken = _error(
    "MissingAuthenticationToken",
    403,
    "MissingAuthenticationToken",
    "Does not contain a valid AWS Access Key or certificate",
)
MissingParameter = _error(
    "MissingParameter",
    400,
    "MissingParameter",
    "A mandatory input parameter is missing",
)
OptInRequired = _error(
    "OptInRequired",
    403,
    "OptInRequired",
    "The AWS Access Key ID needs a subscription for the service",
)
RequestExpired = _error(
    "RequestExpired",
    400,
    "RequestExpired",
    "Request expired or more than 15mins in the future",
)
ServiceUnavailable = _error(
    "ServiceUnavailable",
    503,
    "ServiceUnavailable",
    "Service temporarily unavailable",
    server=True,
)
Throttling = _error(
    "Throttling",
    400,
    "Throttling",
    "Request was denied due to request throttling",
)
AlreadyExists = _error(
    "AlreadyExists",
    400,
    "AlreadyExists",
    "Resource with the name requested already exists",
)
AccessDenied = _error(
    "AccessDenied",
    403,
    "AccessDenied",
    "User is not authorized to perform action",
)
SignatureDoesNotMatch = _error(
    "SignatureDoesNotMatch",
    403,
    "SignatureDoesNotMatch",
    "The request signature we calculated does not match the signature "
    "you provided",
)
APINotImplemented = _error(
    "APINotImplemented",
    500,
    "APINotImplemented",
    "The requested action is not yet implemented",
    server=True,
)
ActionInProgress = _error(
    "ActionInProgress",
    400,
    "InvalidAction",
    "Cannot perform action on stack while other actions are in progress",
)
RequestLimitExceeded = _error(
    "RequestLimitExceeded",
    400,
    "RequestLimitExceeded",
    "Payload exceeds maximum allowed size",
)

#: AWS error code Keystone's refusal names -> class (EC2 signatures).
BY_AUTH_CODE: dict[str, type[AwsError]] = {
    "AccessDenied": AccessDenied,
    "InvalidClientTokenId": InvalidClientTokenId,
    "SignatureDoesNotMatch": SignatureDoesNotMatch,
}

_INVALID_PARAMETER = frozenset(
    [
        "AttributeError",
        "ValueError",
        "InvalidTenant",
        "EntityNotFound",
        "ResourceActionNotSupported",
        "ResourceNotFound",
        "ResourceNotAvailable",
        "StackValidationFailed",
        "InvalidSchemaError",
        "InvalidTemplateReference",
        "InvalidTemplateVersion",
        "InvalidTemplateSection",
        "UnknownUserParameter",
        "UserParameterMissing",
        "MissingCredentialError",
        "ResourcePropertyConflict",
        "PropertyUnspecifiedError",
        "NotSupported",
        "InvalidBreakPointHook",
        "PhysicalResourceIDAmbiguity",
        # a signal refused by its handler (Heat: 500 InternalFailure)
        "ResourceFailure",
    ]
)
_BY_NAME: dict[str, type[AwsError]] = {
    **dict.fromkeys(_INVALID_PARAMETER, InvalidParameterValue),
    "Forbidden": AccessDenied,
    "NotAuthorized": AccessDenied,
    "StackExists": AlreadyExists,
    "ActionInProgress": ActionInProgress,
    "RequestLimitExceeded": RequestLimitExceeded,
}


def map_remote_error(exc: BaseException) -> AwsError:
    """Return the AWS error for an exception of an engine call.

    The class name (``_Remote`` removed) decides, as in Heat; anything
    unknown is an internal failure. The detail is the engine's message
    for Heat's own exceptions and nothing for others; unlike Heat, the
    engine's traceback is never part of it.
    """
    cls = _BY_NAME.get(fault.exception_name(exc), InternalFailure)
    detail = None
    if fault._is_heat_exception(exc):  # noqa: SLF001 - shared fault rules
        detail = fault._message_and_trace(exc)[0]  # noqa: SLF001
    return cls(detail)
