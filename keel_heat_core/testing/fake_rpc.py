"""An in-memory stand-in for the engine RPC client (Heat's method names).

Resources that work through the engine (nested stacks, software configs
and deployments) call ``self.rpc_client()``; in unit tests the stack facade
returns a :class:`FakeEngineRPC`, which records the calls and keeps child
stacks, configs and deployments in dictionaries.
"""

from __future__ import annotations

import copy
import datetime
import itertools
import uuid
from typing import Any

from keel_heat_core import exception

_TICKS = itertools.count(1)


def _now() -> str:
    # A tick per change, so that two changes in one second differ.
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{now}.{next(_TICKS):06d}Z"


class FakeEngineRPC:
    """Child stacks, software configs and deployments, in memory.

    Child stacks reach ``<ACTION>_COMPLETE`` at once unless
    :attr:`auto_complete` is false (then tests call :meth:`set_stack_state`)
    or :attr:`fail_next` holds a reason.
    """

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.stacks: dict[str, dict[str, Any]] = {}
        self.configs: dict[str, dict[str, Any]] = {}
        self.deployments: dict[str, dict[str, Any]] = {}
        self.auto_complete = True
        self.fail_next: str | None = None

    def _record(self, method: str, **kwargs: Any) -> None:
        self.calls.append((method, kwargs))

    def call_names(self) -> list[str]:
        """The names of the methods called so far, in order."""
        return [name for name, _ in self.calls]

    # -- stacks ------------------------------------------------------------

    def _finish(self, stack: dict[str, Any], action: str) -> None:
        stack["action"] = action
        stack["updated_time"] = _now()
        if self.fail_next is not None:
            stack["status"], stack["status_reason"] = "FAILED", self.fail_next
            self.fail_next = None
        elif self.auto_complete:
            stack["status"] = "COMPLETE"
            stack["status_reason"] = f"Stack {action} completed successfully"
        else:
            stack["status"], stack["status_reason"] = "IN_PROGRESS", ""

    def _create_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        **kwargs: Any,
    ) -> dict[str, Any]:
        self._record(
            "_create_stack",
            stack_name=stack_name,
            template=template,
            params=params,
            files=files,
            args=args,
            **kwargs,
        )
        stack_id = str(uuid.uuid4())
        stack = {
            "id": stack_id,
            "name": stack_name,
            "template": copy.deepcopy(template),
            "params": params,
            "files": files,
            "args": args,
            "outputs": {},
            **kwargs,
        }
        self.stacks[stack_id] = stack
        self._finish(stack, "CREATE")
        return {
            "stack_id": stack_id,
            "stack_name": stack_name,
            "tenant": getattr(ctxt, "project_id", None),
            "path": "",
        }

    create_stack = _create_stack

    def _stack(self, identity: Any) -> dict[str, Any]:
        stack_id = (
            identity["stack_id"] if isinstance(identity, dict) else identity
        )
        if stack_id not in self.stacks:
            raise exception.EntityNotFound(entity="Stack", name=stack_id)
        return self.stacks[stack_id]

    def _update_stack(
        self,
        ctxt: Any,
        stack_identity: Any,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        **kwargs: Any,
    ) -> dict[str, Any]:
        self._record(
            "_update_stack",
            stack_identity=stack_identity,
            template=template,
            params=params,
            files=files,
            args=args,
            **kwargs,
        )
        stack = self._stack(stack_identity)
        stack.update(
            template=copy.deepcopy(template),
            params=params,
            files=files,
            args=args,
        )
        self._finish(stack, "UPDATE")
        return dict(stack_identity)

    update_stack = _update_stack

    def delete_stack(
        self, ctxt: Any, stack_identity: Any, cast: bool = False
    ) -> None:
        self._record("delete_stack", stack_identity=stack_identity)
        self._finish(self._stack(stack_identity), "DELETE")

    def abandon_stack(self, ctxt: Any, stack_identity: Any) -> dict[str, Any]:
        self._record("abandon_stack", stack_identity=stack_identity)
        stack = self.stacks.pop(self._stack(stack_identity)["id"])
        return {"id": stack["id"], "name": stack["name"]}

    def _stack_action(self, name: str, action: str, identity: Any) -> None:
        self._record(name, stack_identity=identity)
        self._finish(self._stack(identity), action)

    def stack_suspend(self, ctxt: Any, stack_identity: Any) -> None:
        self._stack_action("stack_suspend", "SUSPEND", stack_identity)

    def stack_resume(self, ctxt: Any, stack_identity: Any) -> None:
        self._stack_action("stack_resume", "RESUME", stack_identity)

    def stack_check(self, ctxt: Any, stack_identity: Any) -> None:
        self._stack_action("stack_check", "CHECK", stack_identity)

    def stack_cancel_update(
        self,
        ctxt: Any,
        stack_identity: Any,
        cancel_with_rollback: bool = True,
    ) -> None:
        self._record(
            "stack_cancel_update",
            stack_identity=stack_identity,
            cancel_with_rollback=cancel_with_rollback,
        )

    def set_stack_state(
        self, stack_id: str, action: str, status: str, reason: str = ""
    ) -> None:
        """Move a child stack to a state (tests of the polling side)."""
        stack = self.stacks[stack_id]
        stack.update(
            action=action,
            status=status,
            status_reason=reason,
            updated_time=_now(),
        )

    def set_outputs(self, stack_id: str, outputs: dict[str, Any]) -> None:
        """Give a child stack output values (errors as ``Exception``)."""
        self.stacks[stack_id]["outputs"] = dict(outputs)

    def get_stack_status(self, stack_id: str) -> tuple[str, str, str, str]:
        """``(action, status, reason, updated_time)`` of a child stack."""
        stack = self._stack(stack_id)
        return (
            stack["action"],
            stack["status"],
            stack["status_reason"],
            stack["updated_time"],
        )

    def get_template(self, ctxt: Any, stack_identity: Any) -> Any:
        """The child stack's current template."""
        return copy.deepcopy(self._stack(stack_identity)["template"])

    def show_stack(
        self, ctxt: Any, stack_identity: Any, resolve_outputs: bool = True
    ) -> list[dict[str, Any]]:
        self._record("show_stack", stack_identity=stack_identity)
        stack = self._stack(stack_identity)
        outputs = []
        for key, value in stack["outputs"].items():
            item: dict[str, Any] = {"output_key": key}
            if isinstance(value, Exception):
                item["output_error"] = str(value)
                item["output_value"] = None
            else:
                item["output_value"] = value
            outputs.append(item)
        return [
            {
                "stack_name": stack["name"],
                "id": stack["id"],
                "stack_status": f"{stack['action']}_{stack['status']}",
                "stack_status_reason": stack["status_reason"],
                "outputs": outputs,
            }
        ]

    # -- software configs and deployments ----------------------------------

    def create_software_config(
        self,
        ctxt: Any,
        group: str,
        name: str,
        config: Any,
        inputs: Any = None,
        outputs: Any = None,
        options: Any = None,
    ) -> dict[str, Any]:
        self._record("create_software_config", name=name, group=group)
        config_id = str(uuid.uuid4())
        sc = {
            "id": config_id,
            "name": name,
            "group": group,
            "config": config,
            "inputs": inputs or [],
            "outputs": outputs or [],
            "options": options or {},
            "creation_time": _now(),
        }
        self.configs[config_id] = sc
        return copy.deepcopy(sc)

    def show_software_config(self, ctxt: Any, config_id: str) -> Any:
        if config_id not in self.configs:
            raise exception.NotFound(
                f"Software config with id {config_id} not found"
            )
        return copy.deepcopy(self.configs[config_id])

    def delete_software_config(self, ctxt: Any, config_id: str) -> None:
        self._record("delete_software_config", config_id=config_id)
        self.show_software_config(ctxt, config_id)
        del self.configs[config_id]

    def create_software_deployment(
        self,
        ctxt: Any,
        server_id: str,
        config_id: str,
        input_values: Any,
        action: str,
        status: str,
        status_reason: str,
        stack_user_project_id: str,
        deployment_id: str | None = None,
    ) -> dict[str, Any]:
        self._record(
            "create_software_deployment",
            server_id=server_id,
            config_id=config_id,
            action=action,
            status=status,
        )
        deployment_id = deployment_id or str(uuid.uuid4())
        sd = {
            "id": deployment_id,
            "server_id": server_id,
            "config_id": config_id,
            "input_values": input_values or {},
            "output_values": {},
            "action": action,
            "status": status,
            "status_reason": status_reason,
            "stack_user_project_id": stack_user_project_id,
        }
        self.deployments[deployment_id] = sd
        return copy.deepcopy(sd)

    def show_software_deployment(
        self, ctxt: Any, deployment_id: str
    ) -> dict[str, Any]:
        if deployment_id not in self.deployments:
            raise exception.NotFound(
                f"Deployment with id {deployment_id} not found"
            )
        return copy.deepcopy(self.deployments[deployment_id])

    def update_software_deployment(
        self,
        ctxt: Any,
        deployment_id: str,
        config_id: Any = None,
        input_values: Any = None,
        output_values: Any = None,
        action: Any = None,
        status: Any = None,
        status_reason: Any = None,
        updated_at: Any = None,
    ) -> dict[str, Any]:
        self._record(
            "update_software_deployment",
            deployment_id=deployment_id,
            config_id=config_id,
            action=action,
            status=status,
        )
        sd = self.deployments[deployment_id]
        for key, value in (
            ("config_id", config_id),
            ("input_values", input_values),
            ("output_values", output_values),
            ("action", action),
            ("status", status),
            ("status_reason", status_reason),
        ):
            if value is not None:
                sd[key] = value
        return copy.deepcopy(sd)

    def signal_software_deployment(
        self, ctxt: Any, deployment_id: str, details: Any, updated_at: Any
    ) -> str | None:
        """Record a server's outputs as the engine does (``engine.md``)."""
        self._record(
            "signal_software_deployment",
            deployment_id=deployment_id,
            details=details,
        )
        sd = self.deployments[deployment_id]
        if sd["status"] != "IN_PROGRESS":
            return None
        details = details or {}
        values = dict(sd.get("output_values") or {})
        status, reasons = None, {}
        code = details.get("deploy_status_code")
        reason = f"deployment {deployment_id} succeeded"
        if code and str(code) != "0":
            status = "FAILED"
            reasons["deploy_status_code"] = (
                f"Deployment exited with non-zero status code: {code}"
            )
            reason = f"deployment {deployment_id} failed ({code})"
        config = self.configs.get(sd["config_id"], {})
        for output in config.get("outputs") or []:
            key = output["name"]
            if key in details:
                values[key] = details[key]
                if output.get("error_output"):
                    status = "FAILED"
                    reasons[key] = details[key]
                    reason = f"deployment {deployment_id} failed"
        for key in ("deploy_stdout", "deploy_stderr", "deploy_status_code"):
            values[key] = details.get(key)
        if status == "FAILED":
            status_reason = ", ".join(f"{k} : {v}" for k, v in reasons.items())
        else:
            status, status_reason = "COMPLETE", "Outputs received"
        sd.update(
            output_values=values, status=status, status_reason=status_reason
        )
        return reason

    def delete_software_deployment(
        self, ctxt: Any, deployment_id: str
    ) -> None:
        self._record("delete_software_deployment", deployment_id=deployment_id)
        self.show_software_deployment(ctxt, deployment_id)
        del self.deployments[deployment_id]
