"""The fault wrapper's status map and body."""

from __future__ import annotations

import pytest

from keel_heat_api import errors, fault
from keel_heat_core import exception as engine_errors
from keel_heat_core.rpc.engine_base import messaging, rebuild_remote_error


class StackValidationFailed(Exception):
    pass


class Custom(StackValidationFailed):
    """Unknown name: mapped through its first base, as Heat does."""


# Heat's fault map: every class of Heat's exception module and its status
# (the 500 fallbacks not listed; three of Heat's 500s are fixed here).
EXPECTED = {
    400: "MissingCredentialError Invalid UserParameterMissing "
    "UnknownUserParameter InvalidTemplateVersion InvalidTemplateSection "
    "ImmutableParameterModified InvalidTemplateReference "
    "PhysicalResourceNameAmbiguity PhysicalResourceIDAmbiguity "
    "StackValidationFailed InvalidSchemaError ResourceTypeUnavailable "
    "InvalidBreakPointHook NotSupported ResourceActionNotSupported "
    "ResourcePropertyConflict PropertyUnspecifiedError RequestLimitExceeded "
    "DownloadLimitExceeded UnsupportedObjectError OrphanedObjectError "
    "IncompatibleObjectVersion ObjectActionError ReadOnlyFieldError "
    "ObjectFieldInvalid CircularDependencyException",
    403: "Forbidden NotAuthorized InvalidTenant",
    404: "EntityNotFound ResourceNotFound SnapshotNotFound NotFound "
    "ResourceNotAvailable",
    409: "StackExists ActionInProgress",
    500: "InvalidGlobalResource InvalidEncryptionKey StopActionFailed "
    "EventSendFailed",
}


@pytest.mark.parametrize("code", sorted(EXPECTED))
def test_heat_exception_statuses(code: int) -> None:
    for name in EXPECTED[code].split():
        remote = messaging.RemoteError(name, "m", [])
        assert fault.status_for(remote) == code, name
        assert name in fault.HEAT_EXCEPTION_NAMES


def test_unmapped_heat_exceptions_are_500_with_message() -> None:
    remote = messaging.RemoteError("ResourceUnknownStatus", "boom", [])
    body = fault.error_body(remote)
    assert body["code"] == 500
    assert body["error"]["message"] == "boom"


def test_a_refused_signal_is_a_400_with_message() -> None:
    # Heat: 500 (docs/compat.md, Native API)
    remote = messaging.RemoteError("ResourceFailure", "boom", [])
    body = fault.error_body(remote)
    assert body["code"] == 400
    assert body["error"]["type"] == "ResourceFailure"
    assert body["error"]["message"] == "boom"


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (engine_errors.EntityNotFound(entity="Stack", name="x"), 404),
        (
            engine_errors.ResourceNotFound(resource_name="r", stack_name="s"),
            404,
        ),
        (engine_errors.StackExists(stack_name="s"), 409),
        (engine_errors.InvalidRestrictedAction(message="m"), 409),
        (Custom(), 400),
        (ValueError("v"), 400),
        (KeyError("k"), 500),
        (TypeError("t"), 400),
        (messaging.MessagingTimeout("slow"), 500),
        (errors.HTTPMethodNotAllowed(["GET"]), 405),
        (errors.Forbidden("stacks:create"), 403),
        (errors.RequestLimitExceeded("too big"), 400),
    ],
)
def test_status(exc: Exception, status: int) -> None:
    assert fault.status_for(exc) == status


def test_body_keys_and_message_for_heat_exceptions() -> None:
    body = fault.error_body(
        engine_errors.EntityNotFound(entity="Stack", name="x")
    )
    assert list(body) == ["code", "title", "explanation", "error"]
    assert body["code"] == 404
    assert body["title"] == "Not Found"
    assert body["explanation"] == "The resource could not be found."
    assert body["error"] == {
        "type": "EntityNotFound",
        "traceback": None,
        "message": "The Stack (x) could not be found.",
    }


def test_builtin_errors_have_no_message() -> None:
    body = fault.error_body(ValueError("secret detail"))
    assert body["code"] == 400
    assert "message" not in body["error"]


def test_type_error_is_a_named_bad_request() -> None:
    body = fault.error_body(TypeError("internal"))
    assert body["error"]["type"] == "HTTPBadRequest"
    assert "internal" not in body["error"]["message"]


def test_traceback_only_with_debug() -> None:
    try:
        raise engine_errors.StackExists(stack_name="s")
    except engine_errors.StackExists as exc:
        assert fault.error_body(exc)["error"]["traceback"] is None
        assert (
            "Traceback"
            in fault.error_body(exc, debug=True)["error"]["traceback"]
        )


def test_remote_error_of_unknown_module_maps_by_name() -> None:
    remote = messaging.RemoteError(
        "StackExists", "The Stack (s) already exists.", ["trace line"]
    )
    rebuilt = rebuild_remote_error(remote)
    assert type(rebuilt).__name__ == "StackExists_Remote"
    body = fault.error_body(rebuilt, debug=True)
    assert body["code"] == 409
    assert body["error"]["type"] == "StackExists"
    assert body["error"]["message"] == "The Stack (s) already exists."
    assert body["error"]["traceback"] == "trace line"


def test_raw_remote_error_maps_by_name() -> None:
    remote = messaging.RemoteError("NotFound", "gone", [])
    assert fault.status_for(remote) == 404
    assert fault.error_body(remote)["error"]["message"] == "gone"


def test_remote_error_of_other_exception_hides_message() -> None:
    remote = messaging.RemoteError("KeyError", "'x'", [])
    body = fault.error_body(rebuild_remote_error(remote))
    assert body["code"] == 500
    assert "message" not in body["error"]


def test_fixed_500s_are_client_errors() -> None:
    for name, code in (
        ("InvalidRestrictedAction", 409),
        ("ResourceActionRestricted", 409),
        ("ActionNotComplete", 409),
        ("InvalidTemplateAttribute", 400),
    ):
        assert fault.STATUS_BY_NAME[name] == code
