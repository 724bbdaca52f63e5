"""What the engine-path type tests read and write over the native API.

:class:`Stacks` of :mod:`tests.functional.features.client` (create,
update, show, wait, resources, events, signals) plus what these tests
add: waits for a finished create, update or delete, output values and
nested resource lists; and the fake Keystone the engine's signal
responders need for their stack users.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from keel_heat_core.testing.fake_clients import install_fake_clients
from keel_heat_core.testing.fakes import FakeContext
from tests.functional.features.client import Stacks as _Stacks
from tests.functional.software.harness import wait_for

HOT = "2021-04-16"


@contextlib.contextmanager
def fake_keystone(cloud: Any) -> Iterator[Any]:
    """The testing kit's ``keystone`` and ``heat`` client plugins for the
    engine's resources (stack users of signal responders; there is no
    Keystone here); the ``heat`` plugin's signal URLs are the cloud's."""
    context = FakeContext(project_id="embedded")
    keystone = install_fake_clients(context)
    context.clients.client_plugin("heat").heat_url = cloud.url()
    factory = cloud.engine.engine_endpoints[0]._api.deps.plugins
    factory.clients = context.clients
    try:
        yield keystone
    finally:
        factory.clients = None


def template(
    resources: dict[str, Any], outputs: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A HOT template of ``resources`` with outputs ``{key: value}``."""
    tmpl: dict[str, Any] = {
        "heat_template_version": HOT,
        "resources": resources,
    }
    if outputs:
        tmpl["outputs"] = {k: {"value": v} for k, v in outputs.items()}
    return tmpl


class Stacks(_Stacks):
    """Stack operations and reads as a user of the API sees them."""

    def create_complete(
        self,
        tmpl: dict[str, Any],
        files: dict[str, str] | None = None,
        env: dict[str, Any] | None = None,
    ) -> str:
        """Create a stack and wait for CREATE_COMPLETE."""
        ident = self.create(tmpl, env=env, files=files, prefix="types")
        self.wait_status(ident, "CREATE_COMPLETE")
        return ident

    def update_complete(
        self,
        ident: str,
        tmpl: dict[str, Any],
        files: dict[str, str] | None = None,
        env: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Update the stack and wait for UPDATE_COMPLETE (the API answers
        once the stack is UPDATE_IN_PROGRESS)."""
        self.update(ident, tmpl, env=env, files=files)
        return self.wait_status(ident, "UPDATE_COMPLETE")

    def delete_complete(self, ident: str) -> None:
        """Delete the stack and wait until the API no longer finds it."""
        self.delete(ident)

        def gone() -> bool:
            status, body = self.cloud.request("GET", f"/stacks/{ident}")
            if status == 404:
                return True
            shown = body["stack"]
            assert shown["stack_status"] != "DELETE_FAILED", shown
            return shown["stack_status"] == "DELETE_COMPLETE"

        wait_for(gone, what=f"{ident} deleted")

    def output(self, ident: str, key: str) -> Any:
        """The resolved value of output ``key``."""
        status, body = self.cloud.request(
            "GET", f"/stacks/{ident}/outputs/{key}"
        )
        assert status == 200, body
        out = body["output"]
        assert "output_error" not in out, out
        return out["output_value"]

    def resources(
        self, ident: str, nested_depth: int = 0
    ) -> list[dict[str, Any]]:
        """The resource list (with ``nested_depth``)."""
        path = f"/stacks/{ident}/resources"
        if nested_depth:
            path += f"?nested_depth={nested_depth}"
        status, body = self.cloud.request("GET", path)
        assert status == 200, body
        return list(body["resources"])

    def by_name(self, ident: str) -> dict[str, dict[str, Any]]:
        """The top-level resources by name."""
        return {r["resource_name"]: r for r in self.resources(ident)}

    def settle(self, seconds: float = 1.5) -> None:
        """Give a background signal the time it needs to act, when the
        test checks that it did nothing."""
        time.sleep(seconds)
