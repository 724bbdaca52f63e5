"""Messages of the Heat exception classes."""

from keel_heat_core import exception as exc


def test_path_error_format() -> None:
    err = exc.StackValidationFailed(
        error="Output validation error",
        path=["outputs", "o"],
        message="Each output definition must contain a value key.",
    )
    assert str(err) == (
        "Output validation error: outputs.o: "
        "Each output definition must contain a value key."
    )


def test_path_indexes_and_wrapping() -> None:
    inner = exc.StackValidationFailed(path=["list_join", 1], message="bad")
    outer = exc.StackValidationFailed(error=inner, path=["resources", "r"])
    assert str(inner) == "list_join[1]: bad"
    assert str(outer) == "resources.r.list_join[1]: bad"
    wrapped = exc.StackValidationFailed(error=KeyError("x"), path="p")
    assert str(wrapped) == "KeyError: p: 'x'"


def test_simple_formats() -> None:
    assert str(exc.InvalidTemplateReference(resource="zz", key="r")) == (
        'The specified reference "zz" (in r) is incorrect.'
    )
    assert str(exc.ImmutableParameterModified("l", "n")) == (
        "The following parameters are immutable and may not be updated: l, n"
    )
    assert str(
        exc.ResourceTypeUnavailable(
            service_name="nova", resource_type="OS::Nova::Server", reason="x"
        )
    ).startswith("HEAT-E99001 Service nova is not available")
    assert str(exc.Forbidden()) == "You are not authorized to use this action."
    assert str(exc.NotFound()) == "Not found"


def test_missing_kwargs_keep_generic_message() -> None:
    assert str(exc.UserParameterMissing()) == "An unknown exception occurred."


def test_resource_failure_from_reason() -> None:
    err = exc.ResourceFailure(
        "Resource CREATE failed: ValueError: resources.r: boom",
        None,
        action="create",
    )
    assert str(err) == "ValueError: resources.r: boom"
