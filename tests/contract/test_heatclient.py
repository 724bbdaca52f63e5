"""python-heatclient against the API over real HTTP (fake engine behind).

Checks the client-visible conventions heatclient relies on: redirects
followed by name, ids and links parsed, errors decoded.
"""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from tests.contract.harness import Harness

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "parameters": {"p": {"type": "string", "default": "d"}},
    "resources": {"r": {"type": "OS::Heat::None"}},
    "outputs": {"o": {"value": "v", "description": "an output"}},
}


class _Server(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def heat() -> Iterator[Any]:
    harness = Harness()
    server = make_server(
        "127.0.0.1", 0, harness.app, server_class=_Server, handler_class=_Quiet
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    try:
        yield heat_client.Client(
            "1", endpoint=f"http://127.0.0.1:{port}/v1/embedded", token="t"
        )
    finally:
        server.shutdown()
        server.server_close()
        harness.stop()


def _create_show_list(heat: Any) -> None:
    created = heat.stacks.create(
        stack_name="hc", template=TEMPLATE, parameters={"p": "x"}, tags="a,b"
    )
    stack_id = created["stack"]["id"]
    stack = heat.stacks.get("hc")  # by name, through the 302
    assert stack.id == stack_id
    assert stack.stack_status == "CREATE_COMPLETE"
    assert stack.action == "CREATE"
    assert stack.parameters["p"] == "x"
    assert [s.stack_name for s in heat.stacks.list()] == ["hc"]


def _resources_events_outputs(heat: Any) -> None:
    resources = heat.resources.list("hc")
    assert [r.resource_name for r in resources] == ["r"]
    events = heat.events.list("hc", sort_dir="asc")
    assert events[0].resource_name == "hc"
    assert heat.stacks.output_show("hc", "o")["output"]["output_value"] == "v"
    assert heat.stacks.template("hc")["outputs"]["o"]["value"] == "v"


def _update_and_actions(heat: Any) -> None:
    stack = heat.stacks.get("hc")
    heat.stacks.update(stack.id, existing=True, parameters={"p": "y"})
    assert heat.stacks.get("hc").parameters["p"] == "y"
    heat.actions.suspend("hc")
    assert heat.stacks.get("hc").stack_status == "SUSPEND_COMPLETE"


def _errors_are_decoded(heat: Any) -> None:
    with pytest.raises(heat_exc.HTTPNotFound) as info:
        heat.stacks.get("missing")
    assert "The Stack (missing) could not be found." in str(info.value)
    with pytest.raises(heat_exc.HTTPConflict):
        heat.stacks.create(stack_name="hc", template=TEMPLATE)


def _validate_and_discovery(heat: Any) -> None:
    result = heat.stacks.validate(template=TEMPLATE)
    assert result["Parameters"]["p"]["Type"] == "String"
    versions = [v.version for v in heat.template_versions.list()]
    assert "heat_template_version.2021-04-16" in versions
    assert heat.build_info.build_info()["engine"]["revision"]


def _delete(heat: Any) -> None:
    heat.stacks.delete("hc")
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.get("hc")


def test_heatclient_session(heat: Any) -> None:
    """One session, in order: the steps build on each other (and xdist
    must not split them across processes)."""
    _create_show_list(heat)
    _resources_events_outputs(heat)
    _update_and_actions(heat)
    _errors_are_decoded(heat)
    _validate_and_discovery(heat)
    _delete(heat)
