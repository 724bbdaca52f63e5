"""An in-memory engine serving the engine RPC API on ``fake://``.

Good enough to exercise every API route end to end through
oslo.messaging (serialisation, versions, remote exceptions). Stacks go to
their ``*_COMPLETE`` state at once; resources and outputs come from the
template as written. Not a model of the real engine's behaviour.
"""

from __future__ import annotations

import re
import threading
import uuid
from datetime import UTC, datetime
from typing import Any

from keel_heat_core.rpc.engine_base import messaging
from tests.contract import engine_errors as exc
from tests.contract.fake_engine_parts import DiscoveryAndSoftware

NAME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]{0,254}$")


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class FakeEngine(DiscoveryAndSoftware):
    """The engine endpoint (API version 1.36)."""

    target = messaging.Target(version="1.36")

    def __init__(self) -> None:
        super().__init__()
        self.stacks: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()

    # -- helpers -------------------------------------------------------

    def _ident(self, st: dict[str, Any], path: str = "") -> dict[str, str]:
        return {
            "tenant": st["tenant"],
            "stack_name": st["name"],
            "stack_id": st["id"],
            "path": path,
        }

    def _get(self, ctxt: dict[str, Any], identity: dict[str, str]) -> Any:
        st = self.stacks.get(identity["stack_id"])
        visible = st is not None and (
            ctxt.get("is_admin") or st["tenant"] == ctxt.get("project_id")
        )
        if not visible or st["name"] != identity["stack_name"]:
            raise exc.EntityNotFound(
                entity="Stack", name=identity["stack_name"]
            )
        return st

    def _event(
        self,
        st: dict[str, Any],
        name: str,
        rtype: str,
        action: str,
        status: str,
        reason: str,
        phys: str,
    ) -> None:
        eid = str(uuid.uuid4())
        st["events"].append(
            {
                "event_identity": self._ident(
                    st, f"/resources/{name}/events/{eid}"
                ),
                "stack_identity": self._ident(st),
                "stack_name": st["name"],
                "event_time": now(),
                "resource_name": name,
                "physical_resource_id": phys,
                "resource_action": action,
                "resource_status": status,
                "resource_status_reason": reason,
                "resource_type": rtype,
                "resource_properties": {},
            }
        )

    def _run(self, st: dict[str, Any], action: str) -> None:
        """Drive the stack and its resources through ``action``."""
        st["action"], st["status"] = action, "IN_PROGRESS"
        self._event(
            st,
            st["name"],
            "OS::Heat::Stack",
            action,
            "IN_PROGRESS",
            "Stack " + action + " started",
            st["id"],
        )
        for name, res in st["resources"].items():
            res["action"], res["status"] = action, "COMPLETE"
            self._event(
                st,
                name,
                res["type"],
                action,
                "IN_PROGRESS",
                "state changed",
                "",
            )
            self._event(
                st,
                name,
                res["type"],
                action,
                "COMPLETE",
                "state changed",
                res["physical_id"],
            )
        st["status"] = "COMPLETE"
        st["reason"] = f"Stack {action} completed successfully"
        self._event(
            st,
            st["name"],
            "OS::Heat::Stack",
            action,
            "COMPLETE",
            st["reason"],
            st["id"],
        )

    def _load_template(self, st: dict[str, Any], template: Any) -> None:
        st["template"] = template
        st["resources"] = {
            name: {
                "type": (d or {}).get("type") or (d or {}).get("Type"),
                "physical_id": str(uuid.uuid4()),
                "action": "INIT",
                "status": "COMPLETE",
                "metadata": (d or {}).get("metadata", {}),
            }
            for name, d in (
                template.get("resources") or template.get("Resources") or {}
            ).items()
        }

    def summary(self, st: dict[str, Any]) -> dict[str, Any]:
        return {
            "stack_identity": self._ident(st),
            "updated_time": st["updated"],
            "stack_status_reason": st["reason"],
            "stack_name": st["name"],
            "stack_action": st["action"],
            "stack_status": st["status"],
            "creation_time": st["created"],
            "deletion_time": st["deleted"],
            "description": "",
            "stack_owner": "demo",
            "parent": None,
            "stack_user_project_id": None,
            "tags": st["tags"],
        }

    def _outputs(self, st: dict[str, Any]) -> list[dict[str, Any]]:
        outs = st["template"].get("outputs") or {}
        return [
            {
                "output_key": k,
                "description": (v or {}).get(
                    "description", "No description given"
                ),
                "output_value": (v or {}).get("value"),
            }
            for k, v in outs.items()
        ]

    # -- stacks --------------------------------------------------------

    def identify_stack(self, ctxt: Any, stack_name: str) -> Any:
        project = ctxt.get("project_id")
        st = self.stacks.get(stack_name)
        if st is None or st["tenant"] != project:
            st = next(
                (
                    s
                    for s in self.stacks.values()
                    if s["name"] == stack_name
                    and s["tenant"] == project
                    and s["deleted"] is None
                ),
                None,
            )
        if st is None:
            raise exc.EntityNotFound(entity="Stack", name=stack_name)
        return self._ident(st)

    def _visible(self, ctxt: Any, show_deleted: bool) -> list[Any]:
        result = [
            s
            for s in self.stacks.values()
            if (ctxt.get("project_id") is None and ctxt.get("is_admin"))
            or s["tenant"] == ctxt.get("project_id")
        ]
        if not show_deleted:
            result = [s for s in result if s["deleted"] is None]
        return result

    def list_stacks(
        self,
        ctxt: Any,
        limit: Any = None,
        marker: Any = None,
        sort_keys: Any = None,
        sort_dir: Any = None,
        filters: Any = None,
        show_deleted: bool = False,
        tags: Any = None,
        **kwargs: Any,
    ) -> Any:
        stacks = self._visible(ctxt, show_deleted)
        for key, value in (filters or {}).items():
            field = {
                "name": "name",
                "stack_name": "name",
                "id": "id",
                "status": "status",
            }.get(key)
            wanted = value if isinstance(value, list) else [value]
            if field:
                stacks = [s for s in stacks if s[field] in wanted]
        if tags:
            stacks = [s for s in stacks if set(tags) <= set(s["tags"] or [])]
        stacks.sort(key=lambda s: s["seq"], reverse=sort_dir != "asc")
        if marker:
            ids = [s["id"] for s in stacks]
            if marker in ids:
                stacks = stacks[ids.index(marker) + 1 :]
        if limit is not None:
            stacks = stacks[: int(limit)]
        return [self.summary(s) for s in stacks]

    def count_stacks(
        self,
        ctxt: Any,
        filters: Any = None,
        show_deleted: bool = False,
        **kwargs: Any,
    ) -> int:
        return len(
            self.list_stacks(ctxt, filters=filters, show_deleted=show_deleted)
        )

    def show_stack(
        self, ctxt: Any, stack_identity: Any, resolve_outputs: bool = True
    ) -> Any:
        st = self._get(ctxt, stack_identity)
        return [self._show_info(st, resolve_outputs)]

    def _show_info(
        self, st: dict[str, Any], resolve_outputs: bool
    ) -> dict[str, Any]:
        info = {
            "stack_name": st["name"],
            "stack_identity": self._ident(st),
            "creation_time": st["created"],
            "updated_time": st["updated"],
            "deletion_time": st["deleted"],
            "notification_topics": [],
            "parameters": {
                "OS::stack_id": st["id"],
                "OS::stack_name": st["name"],
                "OS::project_id": st["tenant"],
                **{k: str(v) for k, v in st["params"].items()},
            },
            "description": st["template"].get("description", ""),
            "template_description": st["template"].get("description", ""),
            "capabilities": [],
            "disable_rollback": st["disable_rollback"],
            "timeout_mins": st["timeout"],
            "stack_owner": "demo",
            "parent": None,
            "stack_user_project_id": None,
            "tags": st["tags"],
            "stack_action": st["action"],
            "stack_status": st["status"],
            "stack_status_reason": st["reason"],
        }
        if resolve_outputs and st["deleted"] is None:
            info["outputs"] = self._outputs(st)
        return info

    def _new_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
    ) -> dict[str, Any]:
        if not NAME_RE.match(stack_name):
            raise exc.StackValidationFailed(
                message=(
                    f"Invalid stack name {stack_name} must contain only "
                    'alphanumeric or "_-." characters, must start with alpha '
                    "and must be 255 characters or less."
                )
            )
        project = ctxt.get("project_id")
        if any(
            s["name"] == stack_name
            and s["tenant"] == project
            and s["deleted"] is None
            for s in self.stacks.values()
        ):
            raise exc.StackExists(stack_name=stack_name)
        st = {
            "id": str(uuid.uuid4()),
            "name": stack_name,
            "tenant": project,
            "seq": len(self.stacks),
            "created": now(),
            "updated": None,
            "deleted": None,
            "reason": "",
            "action": "INIT",
            "status": "COMPLETE",
            "env": params,
            "params": dict(params.get("parameters", {})),
            "files": files,
            "tags": args.get("tags"),
            "timeout": args.get("timeout_mins"),
            "disable_rollback": bool(args.get("disable_rollback", True)),
            "events": [],
            "snapshots": {},
        }
        self._load_template(st, template)
        return st

    def create_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        **kw: Any,
    ) -> Any:
        with self.lock:
            st = self._new_stack(
                ctxt, stack_name, template, params, files, args
            )
            self.stacks[st["id"]] = st
            self._run(st, "CREATE")
        return self._ident(st)

    def preview_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        **kw: Any,
    ) -> Any:
        st = self._new_stack(ctxt, stack_name, template, params, files, args)
        st["id"] = "None"
        info = self._show_info(st, False)
        for key in ("stack_action", "stack_status", "stack_status_reason"):
            info.pop(key)
        info["resources"] = [
            {
                "resource_name": name,
                "resource_type": res["type"],
                "resource_action": "INIT",
                "resource_status": "COMPLETE",
            }
            for name, res in st["resources"].items()
        ]
        return info

    def update_stack(
        self,
        ctxt: Any,
        stack_identity: Any,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        **kw: Any,
    ) -> Any:
        st = self._get(ctxt, stack_identity)
        if st["action"] == "SUSPEND":
            raise exc.NotSupported(
                feature="Updating a stack when it is suspended"
            )
        if template is not None:
            self._load_template(st, template)
        if args.get("existing"):
            st["params"].update(params.get("parameters", {}))
        else:
            st["params"] = dict(params.get("parameters", {}))
            st["tags"] = args.get("tags")
        st["updated"] = now()
        self._run(st, "UPDATE")
        return self._ident(st)

    def preview_update_stack(
        self,
        ctxt: Any,
        stack_identity: Any,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        **kw: Any,
    ) -> Any:
        self._get(ctxt, stack_identity)
        return {
            "unchanged": [],
            "updated": [],
            "replaced": [],
            "added": [],
            "deleted": [],
        }

    def delete_stack(self, ctxt: Any, stack_identity: Any) -> None:
        st = self._get(ctxt, stack_identity)
        if st["deleted"] is not None:
            raise exc.EntityNotFound(entity="Stack", name=st["name"])
        self._run(st, "DELETE")
        st["deleted"] = now()
