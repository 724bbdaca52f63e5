"""The engine API's own errors reach the caller without a logged
traceback; anything else is still a fault."""

from __future__ import annotations

from typing import Any

import oslo_messaging
import pytest
from oslo_messaging.rpc import dispatcher

from keel_heat_core import exception
from keel_heat_core.service.expected import ExpectedErrors


class Endpoint:
    target = oslo_messaging.Target(version="1.36")

    def __init__(self) -> None:
        self.calls: list[Any] = []

    def show_stack(self, ctxt: Any, stack_identity: Any) -> Any:
        self.calls.append(stack_identity)
        if stack_identity == "missing":
            raise exception.EntityNotFound(entity="Stack", name="missing")
        if stack_identity == "broken":
            raise ValueError("a bug")
        return {"stack_name": stack_identity}

    def _private(self) -> str:
        return "private"


def test_heat_exceptions_are_expected_others_are_not() -> None:
    inner = Endpoint()
    served = ExpectedErrors(inner)
    assert served.show_stack({}, "s") == {"stack_name": "s"}
    with pytest.raises(dispatcher.ExpectedException) as err:
        served.show_stack({}, "missing")
    kind, value, _ = err.value.exc_info
    assert kind is exception.EntityNotFound
    assert str(value) == "The Stack (missing) could not be found."
    with pytest.raises(ValueError, match="a bug"):
        served.show_stack({}, "broken")
    assert inner.calls == ["s", "missing", "broken"]
    assert served.target is inner.target
    assert served._private() == "private"
    assert served.show_stack is served.show_stack  # wrapped once


def test_the_rpc_server_logs_no_traceback_for_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Dispatched through a real RPC server on oslo.messaging's fake bus,
    the caller gets the engine's exception back either way."""
    from oslo_config import cfg

    from keel_heat_core.rpc.engine_base import register_tracing_opts

    conf = cfg.ConfigOpts()
    conf([])
    register_tracing_opts(conf)
    transport = oslo_messaging.get_rpc_transport(conf, url="fake://")
    target = oslo_messaging.Target(topic="expected_test", server="one")
    server = oslo_messaging.get_rpc_server(
        transport,
        target,
        [ExpectedErrors(Endpoint())],
        executor="threading",
        access_policy=oslo_messaging.DefaultRPCAccessPolicy,
    )
    server.start()
    try:
        client = oslo_messaging.get_rpc_client(
            transport, oslo_messaging.Target(topic="expected_test"), timeout=10
        )
        caplog.set_level("DEBUG", logger="oslo_messaging.rpc.server")
        with pytest.raises(exception.EntityNotFound):
            client.call({}, "show_stack", stack_identity="missing")
        with pytest.raises(ValueError):
            client.call({}, "show_stack", stack_identity="broken")
    finally:
        server.stop()
        server.wait()
        transport.cleanup()
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert errors == ["Exception during message handling"]  # the bug only
