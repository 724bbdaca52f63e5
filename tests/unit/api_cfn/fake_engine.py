"""An engine endpoint for CFN API tests, served on ``fake://``.

It answers the engine RPC methods the CFN API calls with the shapes of
Heat's engine (``heat/rpc/api.py`` keys), keeps stacks in memory and
raises Heat's exceptions (from :mod:`keel_heat_core.exception`, which
oslo.messaging rebuilds on the client side). Not a model of the engine.
"""

from __future__ import annotations

import copy
import threading
import uuid
from typing import Any

import oslo_messaging as messaging

from keel_heat_core import exception

TIME = "2026-01-02T03:04:05Z"


class FakeEngine:
    """The engine API endpoint (version 1.36), in memory.

    :ivar calls: ``(method, kwargs)`` of each call, in order.
    :ivar fail: method name -> exception to raise on its next call.
    """

    target = messaging.Target(version="1.36")

    def __init__(self) -> None:
        self.stacks: dict[str, dict[str, Any]] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.fail: dict[str, Exception] = {}
        self.lock = threading.Lock()

    # -- helpers -------------------------------------------------------

    def _record(self, method: str, ctxt: Any, **kwargs: Any) -> None:
        self.calls.append((method, {"ctxt": ctxt, **kwargs}))
        if method in self.fail:
            raise self.fail.pop(method)

    @staticmethod
    def ident(st: dict[str, Any], path: str = "") -> dict[str, str]:
        return {
            "tenant": st["tenant"],
            "stack_name": st["name"],
            "stack_id": st["id"],
            "path": path,
        }

    @staticmethod
    def _visible(ctxt: Any, st: dict[str, Any]) -> bool:
        # Stack users live in the stack's own project of the stack domain.
        project = ctxt.get("project_id")
        return project in (st["tenant"], st["stack_user_project_id"])

    def _get(self, ctxt: Any, identity: Any) -> dict[str, Any]:
        st = self.stacks.get((identity or {}).get("stack_id", ""))
        if (
            st is None
            or not self._visible(ctxt, st)
            or st["name"] != identity.get("stack_name")
        ):
            name = (identity or {}).get("stack_name")
            raise exception.EntityNotFound(entity="Stack", name=name)
        return st

    def add_stack(
        self,
        tenant: str,
        name: str,
        template: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        stack_user_project_id: str | None = None,
    ) -> dict[str, Any]:
        """Store a complete stack with the template's resources."""
        template = template or {"HeatTemplateFormatVersion": "2012-12-12"}
        st: dict[str, Any] = {
            "id": str(uuid.uuid4()),
            "name": name,
            "tenant": tenant,
            "stack_user_project_id": stack_user_project_id,
            "template": copy.deepcopy(template),
            "params": dict(params or {}),
            "action": "CREATE",
            "status": "COMPLETE",
            "reason": "Stack CREATE completed successfully",
            "updated": None,
            "events": [],
            "outputs": [],
            "resources": {},
        }
        for rname, rdef in (template.get("Resources") or {}).items():
            st["resources"][rname] = {
                "type": rdef.get("Type", "OS::Heat::None"),
                "physical_id": str(uuid.uuid4()),
                "metadata": copy.deepcopy(rdef.get("Metadata", {})),
            }
            self._event(st, rname, "IN_PROGRESS", "state changed")
            self._event(st, rname, "COMPLETE", "state changed")
        self.stacks[st["id"]] = st
        return st

    def _event(
        self, st: dict[str, Any], rname: str, status: str, reason: str
    ) -> None:
        res = st["resources"].get(rname, {})
        eid = str(uuid.uuid4())
        st["events"].append(
            {
                "event_identity": self.ident(
                    st, f"/resources/{rname}/events/{eid}"
                ),
                "stack_identity": self.ident(st),
                "stack_name": st["name"],
                "event_time": TIME,
                "resource_name": rname,
                "physical_resource_id": res.get("physical_id", ""),
                "resource_action": "CREATE",
                "resource_status": status,
                "resource_status_reason": reason,
                "resource_type": res.get("type", "OS::Heat::None"),
            }
        )

    def _summary(self, st: dict[str, Any]) -> dict[str, Any]:
        return {
            "stack_identity": self.ident(st),
            "updated_time": st["updated"],
            "stack_name": st["name"],
            "creation_time": TIME,
            "deletion_time": None,
            "stack_action": st["action"],
            "stack_status": st["status"],
            "stack_status_reason": st["reason"],
            "description": st["template"].get("Description", ""),
            "stack_owner": "demo",
            "parent": None,
            "stack_user_project_id": st["stack_user_project_id"],
            "tags": None,
        }

    def _resource(self, st: dict[str, Any], name: str) -> dict[str, Any]:
        res = st["resources"].get(name)
        if res is None:
            raise exception.ResourceNotFound(
                resource_name=name, stack_name=st["name"]
            )
        return {
            "resource_identity": self.ident(st, f"/resources/{name}"),
            "description": "",
            "stack_identity": self.ident(st),
            "stack_name": st["name"],
            "creation_time": TIME,
            "updated_time": TIME,
            "resource_name": name,
            "physical_resource_id": res["physical_id"],
            "resource_action": "CREATE",
            "resource_status": "COMPLETE",
            "resource_status_reason": "state changed",
            "resource_type": res["type"],
            "metadata": copy.deepcopy(res["metadata"]),
            "required_by": [],
        }

    # -- stacks --------------------------------------------------------

    def identify_stack(self, ctxt: Any, stack_name: str) -> Any:
        self._record("identify_stack", ctxt, stack_name=stack_name)
        for st in self.stacks.values():
            if not self._visible(ctxt, st):
                continue
            if stack_name in (st["name"], st["id"]):
                return self.ident(st)
        raise exception.EntityNotFound(entity="Stack", name=stack_name)

    def list_stacks(self, ctxt: Any, **kwargs: Any) -> Any:
        self._record("list_stacks", ctxt, **kwargs)
        mine = [
            st
            for st in self.stacks.values()
            if st["tenant"] == ctxt.get("project_id")
        ]
        return [self._summary(st) for st in reversed(mine)]

    def show_stack(
        self, ctxt: Any, stack_identity: Any, resolve_outputs: bool = True
    ) -> Any:
        self._record("show_stack", ctxt, stack_identity=stack_identity)
        if stack_identity is None:
            stacks = [
                st
                for st in self.stacks.values()
                if st["tenant"] == ctxt.get("project_id")
            ]
        else:
            stacks = [self._get(ctxt, stack_identity)]
        result = []
        for st in stacks:
            info = self._summary(st)
            info.update(
                notification_topics=[],
                parameters={
                    "AWS::StackName": st["name"],
                    "AWS::StackId": "arn:fake",
                    **st["params"],
                },
                template_description=info["description"],
                capabilities=[],
                disable_rollback=True,
                timeout_mins=None,
                outputs=copy.deepcopy(st["outputs"]),
            )
            result.append(info)
        return result

    def create_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        **kwargs: Any,
    ) -> Any:
        self._record(
            "create_stack",
            ctxt,
            stack_name=stack_name,
            template=template,
            params=params,
            files=files,
            args=args,
        )
        with self.lock:
            for st in self.stacks.values():
                if st["name"] == stack_name:
                    raise exception.StackExists(stack_name=stack_name)
            st = self.add_stack(
                ctxt.get("project_id"), stack_name, template, params
            )
        return self.ident(st)

    def update_stack(
        self,
        ctxt: Any,
        stack_identity: Any,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        **kwargs: Any,
    ) -> Any:
        self._record(
            "update_stack",
            ctxt,
            stack_identity=stack_identity,
            template=template,
            params=params,
            files=files,
            args=args,
        )
        st = self._get(ctxt, stack_identity)
        st.update(template=template, params=params, updated=TIME)
        st.update(action="UPDATE", status="COMPLETE")
        return self.ident(st)

    def delete_stack(self, ctxt: Any, stack_identity: Any) -> None:
        self._record("delete_stack", ctxt, stack_identity=stack_identity)
        st = self._get(ctxt, stack_identity)
        del self.stacks[st["id"]]

    def stack_cancel_update(
        self,
        ctxt: Any,
        stack_identity: Any,
        cancel_with_rollback: bool = True,
    ) -> None:
        self._record(
            "stack_cancel_update",
            ctxt,
            stack_identity=stack_identity,
            cancel_with_rollback=cancel_with_rollback,
        )
        self._get(ctxt, stack_identity)

    def get_template(self, ctxt: Any, stack_identity: Any) -> Any:
        self._record("get_template", ctxt, stack_identity=stack_identity)
        return self._get(ctxt, stack_identity)["template"]

    def validate_template(self, ctxt: Any, template: Any, **kw: Any) -> Any:
        self._record("validate_template", ctxt, template=template, **kw)
        if "Resources" not in template:
            return {"Error": "Template has no Resources section"}
        params = {}
        for key, decl in (template.get("Parameters") or {}).items():
            params[key] = {
                "Type": decl.get("Type", "String"),
                "NoEcho": str(decl.get("NoEcho", "false")).lower(),
                "Description": decl.get("Description", ""),
                "Label": key,
            }
            if "Default" in decl:
                params[key]["Default"] = decl["Default"]
        return {
            "Description": template.get("Description", "No description"),
            "Parameters": params,
            "Environment": {"parameters": {}, "resource_registry": {}},
        }

    # -- resources and events -----------------------------------------

    def list_events(
        self, ctxt: Any, stack_identity: Any, **kwargs: Any
    ) -> Any:
        self._record("list_events", ctxt, stack_identity=stack_identity)
        if stack_identity is None:
            return [
                copy.deepcopy(e)
                for st in self.stacks.values()
                if st["tenant"] == ctxt.get("project_id")
                for e in st["events"]
            ]
        return copy.deepcopy(self._get(ctxt, stack_identity)["events"])

    def describe_stack_resource(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        with_attr: Any = False,
    ) -> Any:
        self._record(
            "describe_stack_resource",
            ctxt,
            stack_identity=stack_identity,
            resource_name=resource_name,
        )
        return self._resource(self._get(ctxt, stack_identity), resource_name)

    def find_physical_resource(
        self, ctxt: Any, physical_resource_id: str
    ) -> Any:
        self._record(
            "find_physical_resource",
            ctxt,
            physical_resource_id=physical_resource_id,
        )
        for st in self.stacks.values():
            for name, res in st["resources"].items():
                if res["physical_id"] == physical_resource_id:
                    return self.ident(st, f"/resources/{name}")
        raise exception.EntityNotFound(
            entity="Resource", name=physical_resource_id
        )

    def describe_stack_resources(
        self, ctxt: Any, stack_identity: Any, resource_name: Any
    ) -> Any:
        self._record(
            "describe_stack_resources",
            ctxt,
            stack_identity=stack_identity,
            resource_name=resource_name,
        )
        st = self._get(ctxt, stack_identity)
        names = [n for n in st["resources"] if resource_name in (None, n)]
        return [self._resource(st, n) for n in names]

    def list_stack_resources(
        self, ctxt: Any, stack_identity: Any, **kwargs: Any
    ) -> Any:
        self._record(
            "list_stack_resources", ctxt, stack_identity=stack_identity
        )
        st = self._get(ctxt, stack_identity)
        return [self._resource(st, n) for n in st["resources"]]

    def resource_signal(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        details: Any,
        sync_call: bool = False,
    ) -> Any:
        self._record(
            "resource_signal",
            ctxt,
            stack_identity=stack_identity,
            resource_name=resource_name,
            details=details,
            sync_call=sync_call,
        )
        st = self._get(ctxt, stack_identity)
        res = st["resources"].get(resource_name)
        if res is None:
            raise exception.ResourceNotFound(
                resource_name=resource_name, stack_name=st["name"]
            )
        if isinstance(details, dict) and "UniqueId" in details:
            res["metadata"][details["UniqueId"]] = {
                "status": details.get("Status"),
                "reason": details.get("Reason"),
                "data": details.get("Data"),
            }
        return copy.deepcopy(res["metadata"]) if sync_call else None
