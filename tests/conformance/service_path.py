"""One vector through the service: create, wait, show; validate.

All vectors create a stack of the same name in the same project, and a
name is unique in a project while its stack lives. A create that meets
``StackExists`` therefore waits until the stack holding the name is
deleted, then tries again; creates that fail validation never hold the
name, so they run alongside.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from keel_heat_core.db import stack as stack_repo
from tests.conformance.outcome import Outcome
from tests.conformance.service import InProcessHeat, Response

#: Seconds between two looks at a stack in progress.
POLL = 0.02
#: Seconds a stack may stay in progress, or a name stay taken.
TIMEOUT = 60.0


class StackTimeout(AssertionError):
    """A stack stayed in progress (or a name stayed taken) too long."""


class NameGate:
    """Lets creates that met ``StackExists`` retry one at a time, each time
    a stack is deleted (so that waiting creates do not all validate their
    template again for every free name)."""

    def __init__(self) -> None:
        self._freed = threading.Condition()
        self._generation = 0
        self.turn = threading.Lock()

    def generation(self) -> int:
        with self._freed:
            return self._generation

    def wait(self, seen: int) -> None:
        """Wait until a stack was deleted after generation ``seen``."""
        with self._freed:
            if not self._freed.wait_for(
                lambda: self._generation != seen, TIMEOUT
            ):
                raise StackTimeout("the stack name stayed taken")

    def freed(self) -> None:
        with self._freed:
            self._generation += 1
            self._freed.notify_all()


def request_body(vector: dict[str, Any]) -> dict[str, Any]:
    """The ``POST /stacks`` body a vector describes."""
    body: dict[str, Any] = {
        "stack_name": vector.get("stack_name") or "vecstack",
        "template": vector["template"],
        "parameters": vector.get("params") or {},
    }
    if vector.get("env") is not None:
        body["environment"] = vector["env"]
    if vector.get("files"):
        body["files"] = vector["files"]
    return body


def _error(answer: Response) -> Outcome:
    kind = answer.error.get("type")
    return Outcome(
        False,
        "api" if kind == "HTTPBadRequest" else "validate",
        kind,
        answer.error.get("message"),
        answer.status,
    )


class ServicePath:
    """Runs vectors against one :class:`InProcessHeat`."""

    def __init__(self, heat: InProcessHeat) -> None:
        self.heat = heat
        self.gate = NameGate()

    def validate(self, vector: dict[str, Any]) -> Outcome:
        """``POST /validate`` with the vector's body."""
        body = request_body(vector)
        del body["stack_name"]
        answer = self.heat.request("POST", "/validate", body)
        if answer.status != 200:
            return _error(answer)
        return Outcome(True, http_status=200, result=answer.body)

    def create(self, vector: dict[str, Any]) -> Outcome:
        """Create the stack, wait, show it, delete it."""
        body = request_body(vector)
        if vector["expect"]["valid"]:
            # Expected to hold the name: take a turn at once rather than
            # validate twice (only a scheduling hint; a wrong guess ends in
            # StackExists and the same queue).
            with self.gate.turn:
                return self._finish(body, self._post_until_free(body))
        answer = self.heat.request("POST", "/stacks", body)
        if answer.error.get("type") == "StackExists":
            with self.gate.turn:
                return self._finish(body, self._post_until_free(body))
        return self._finish(body, answer)

    def _post_until_free(self, body: dict[str, Any]) -> Response:
        while True:
            seen = self.gate.generation()
            answer = self.heat.request("POST", "/stacks", body)
            if answer.error.get("type") != "StackExists":
                return answer
            self.gate.wait(seen)

    def _finish(self, body: dict[str, Any], answer: Response) -> Outcome:
        if answer.status != 201:
            return _error(answer)
        stack_id = answer.body["stack"]["id"]
        path = self.heat.stack_path(body["stack_name"], stack_id)
        try:
            self._wait(stack_id)
            return self._show(path)
        finally:
            # Only the name matters to the next vector: no delete
            # traversal, the row is marked deleted.
            stack_repo.soft_delete(self.heat.db, stack_id)
            self.gate.freed()

    def _wait(self, stack_id: str) -> None:
        """Wait until the create has finished."""
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            rec = stack_repo.get(self.heat.db, stack_id, show_deleted=True)
            if rec is None or rec.status != "IN_PROGRESS":
                return
            time.sleep(POLL)
        raise StackTimeout(f"stack {stack_id} stayed CREATE_IN_PROGRESS")

    def _show(self, path: str) -> Outcome:
        shown = self.heat.request("GET", path).body["stack"]
        outputs: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for output in shown.get("outputs") or []:
            if "output_error" in output:
                errors[output["output_key"]] = output["output_error"]
            else:
                outputs[output["output_key"]] = output.get("output_value")
        status = shown["stack_status"]
        outcome = Outcome(
            True,
            "create" if status != "CREATE_COMPLETE" else None,
            outputs=outputs,
            output_errors=errors,
            parameters=shown.get("parameters") or {},
            stack_status=status,
            stack_status_reason=shown.get("stack_status_reason"),
        )
        if outcome.stage is not None:
            listed = self.heat.request("GET", path + "/resources").body
            outcome.resources = {
                r["resource_name"]: {
                    "status": r["resource_status"],
                    "status_reason": r["resource_status_reason"],
                }
                for r in listed["resources"]
            }
        return outcome
