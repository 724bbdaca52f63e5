"""Heat's AWS error classes and its engine-error map."""

from __future__ import annotations

import oslo_messaging as messaging
import pytest

from keel_heat_api.cfn import aws_errors
from keel_heat_core import exception
from keel_heat_core.rpc.engine_base import rebuild_remote_error

# (class, status, code, type, explanation) from heat/api/aws/exception.py
TABLE = [
    (
        aws_errors.IncompleteSignature,
        400,
        "IncompleteSignature",
        "Sender",
        "The request signature does not conform to AWS standards",
    ),
    (
        aws_errors.InternalFailure,
        500,
        "InternalFailure",
        "Server",
        "The request processing has failed due to an internal error",
    ),
    (
        aws_errors.InvalidAction,
        400,
        "InvalidAction",
        "Sender",
        "The action or operation requested is invalid",
    ),
    (
        aws_errors.InvalidClientTokenId,
        403,
        "InvalidClientTokenId",
        "Sender",
        "The certificate or AWS Key ID provided does not exist",
    ),
    (
        aws_errors.InvalidParameterCombination,
        400,
        "InvalidParameterCombination",
        "Sender",
        "Incompatible parameters were used together",
    ),
    (
        aws_errors.InvalidParameterValue,
        400,
        "InvalidParameterValue",
        "Sender",
        "A bad or out-of-range value was supplied",
    ),
    (
        aws_errors.InvalidQueryParameter,
        400,
        "InvalidQueryParameter",
        "Sender",
        "AWS query string is malformed, does not adhere to AWS spec",
    ),
    (
        aws_errors.MalformedQueryString,
        404,
        "MalformedQueryString",
        "Sender",
        "The query string is malformed",
    ),
    (
        aws_errors.MissingAction,
        400,
        "MissingAction",
        "Sender",
        "The request is missing an action or operation parameter",
    ),
    (
        aws_errors.MissingAuthenticationToken,
        403,
        "MissingAuthenticationToken",
        "Sender",
        "Does not contain a valid AWS Access Key or certificate",
    ),
    (
        aws_errors.MissingParameter,
        400,
        "MissingParameter",
        "Sender",
        "A mandatory input parameter is missing",
    ),
    (
        aws_errors.OptInRequired,
        403,
        "OptInRequired",
        "Sender",
        "The AWS Access Key ID needs a subscription for the service",
    ),
    (
        aws_errors.RequestExpired,
        400,
        "RequestExpired",
        "Sender",
        "Request expired or more than 15mins in the future",
    ),
    (
        aws_errors.ServiceUnavailable,
        503,
        "ServiceUnavailable",
        "Server",
        "Service temporarily unavailable",
    ),
    (
        aws_errors.Throttling,
        400,
        "Throttling",
        "Sender",
        "Request was denied due to request throttling",
    ),
    (
        aws_errors.AlreadyExists,
        400,
        "AlreadyExists",
        "Sender",
        "Resource with the name requested already exists",
    ),
    (
        aws_errors.AccessDenied,
        403,
        "AccessDenied",
        "Sender",
        "User is not authorized to perform action",
    ),
    (
        aws_errors.SignatureDoesNotMatch,
        403,
        "SignatureDoesNotMatch",
        "Sender",
        "The request signature we calculated does not match the signature "
        "you provided",
    ),
    (
        aws_errors.APINotImplemented,
        500,
        "APINotImplemented",
        "Server",
        "The requested action is not yet implemented",
    ),
    (
        aws_errors.ActionInProgress,
        400,
        "InvalidAction",
        "Sender",
        "Cannot perform action on stack while other actions are in progress",
    ),
    (
        aws_errors.RequestLimitExceeded,
        400,
        "RequestLimitExceeded",
        "Sender",
        "Payload exceeds maximum allowed size",
    ),
]


@pytest.mark.parametrize(("cls", "status", "code", "kind", "text"), TABLE)
def test_error_class(
    cls: type[aws_errors.AwsError],
    status: int,
    code: str,
    kind: str,
    text: str,
) -> None:
    err = cls()
    assert (err.status, err.code, err.err_type) == (status, code, kind)
    assert err.message == text
    assert cls("why").message == text + ":why"
    assert err.body() == {
        "ErrorResponse": {
            "Error": {"Type": kind, "Code": code, "Message": text}
        }
    }


def _remote(name: str, message: str) -> Exception:
    return rebuild_remote_error(
        messaging.RemoteError(name, message, "Traceback (most recent...)")
    )


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("EntityNotFound", "InvalidParameterValue"),
        ("StackValidationFailed", "InvalidParameterValue"),
        ("PhysicalResourceIDAmbiguity", "InvalidParameterValue"),
        ("InvalidTenant", "InvalidParameterValue"),
        ("Forbidden", "AccessDenied"),
        ("NotAuthorized", "AccessDenied"),
        ("StackExists", "AlreadyExists"),
        ("ActionInProgress", "InvalidAction"),
        ("RequestLimitExceeded", "RequestLimitExceeded"),
        ("StackResourceLimitExceeded", "InternalFailure"),
        ("Stack", "InternalFailure"),
        ("SomethingElse", "InternalFailure"),
    ],
)
def test_map_remote_error_by_class_name(name: str, code: str) -> None:
    err = aws_errors.map_remote_error(_remote(name, "the message"))
    assert err.code == code


def test_heat_exception_message_is_the_detail_without_traceback() -> None:
    err = aws_errors.map_remote_error(
        _remote("EntityNotFound", "The Stack (foo) could not be found.")
    )
    assert err.message == (
        "A bad or out-of-range value was supplied:"
        "The Stack (foo) could not be found."
    )
    assert "Traceback" not in err.message


def test_local_heat_exception_and_builtins() -> None:
    err = aws_errors.map_remote_error(exception.StackExists(stack_name="s"))
    assert err.message == (
        "Resource with the name requested already exists:"
        "The Stack (s) already exists."
    )
    # Builtins carry no detail (their text may hold anything).
    err = aws_errors.map_remote_error(ValueError("secret detail"))
    assert err.code == "InvalidParameterValue"
    assert err.message == "A bad or out-of-range value was supplied"
    err = aws_errors.map_remote_error(messaging.MessagingTimeout("x"))
    assert (err.status, err.code) == (500, "InternalFailure")
