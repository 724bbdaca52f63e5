"""Engine errors survive oslo.messaging's remote-exception round trip."""

import sys

from oslo_messaging._drivers import common

from keel_heat_core import exception
from keel_heat_core.rpc.engine_base import _as_rebuilt


def _round_trip(exc: Exception) -> Exception:
    try:
        raise exc
    except Exception:
        data = common.serialize_remote_exception(sys.exc_info())
    return common.deserialize_remote_exception(
        data, ["keel_heat_core.exception"]
    )


def test_rebuilt_with_its_own_class_and_message() -> None:
    err = exception.EntityNotFound(entity="Stack", name="missing")
    rebuilt = _round_trip(err)
    assert isinstance(rebuilt, exception.EntityNotFound)
    assert type(rebuilt).__name__ == "EntityNotFound_Remote"
    assert str(rebuilt).startswith("The Stack (missing) could not be found.")


def test_error_with_path_keeps_heat_api_message() -> None:
    err = exception.StackValidationFailed(
        path=["outputs", "o", "value"], message="boom"
    )
    rebuilt = _round_trip(err)
    assert isinstance(rebuilt, exception.StackValidationFailed)
    assert "boom" in str(rebuilt)


class _Resource:
    name = "up"
    action = "SIGNAL"

    class stack:  # noqa: N801
        class t:  # noqa: N801
            @staticmethod
            def get_section_name(section: str) -> str:
                return section


def test_resource_failure_is_rebuilt_with_the_same_text() -> None:
    cause = exception.NotFound("Alarm up could not find scaling group")
    err = exception.ResourceFailure(cause, _Resource())
    text = "NotFound: resources.up: Alarm up could not find scaling group"
    assert str(err) == text
    rebuilt = _round_trip(err)
    assert isinstance(rebuilt, exception.ResourceFailure)
    assert str(rebuilt).splitlines()[0] == text
    assert str(exception.ResourceFailure(**err.kwargs)) == text


def test_path_error_is_rebuilt_once_on_every_transport() -> None:
    """Heat's text (one doubled ``": "``) whether the broker rebuilt the
    error (``_Remote``) or the in-process transport handed it over."""
    err = exception.StackValidationFailed(
        error="Property error",
        path=["resources", "two", "properties", "value"],
        message="The Parameter (missing) was not provided.",
    )
    heat = (
        "Property error: : resources.two.properties.value: : "
        "The Parameter (missing) was not provided."
    )
    over_broker = _as_rebuilt(_round_trip(err))  # type: ignore[arg-type]
    assert over_broker.message == heat
    assert _as_rebuilt(err).message == heat
