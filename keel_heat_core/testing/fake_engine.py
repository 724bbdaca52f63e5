"""One in-memory engine for tests: the engine API over dictionaries.

:class:`FakeEngine` implements :class:`~keel_heat_core.rpc.engine_api.
EngineAPI` (mypy checks it) and raises the engine's own exceptions
(:mod:`keel_heat_core.exception`), which the APIs map by class name.
Serve it on an oslo.messaging ``fake://`` transport (the API tests do,
see :func:`serve`) to exercise a route end to end: serialisation, pinned
versions, rebuilt remote exceptions.

It answers as the engine does where tests look (Heat's shapes, names
and messages; a stack visible to its project, its stack-user project
and admins; deleted stacks kept for ``show_stack`` only; events newest
first unless asked otherwise) but runs nothing: an action completes at
once, resources are those the template names, outputs are the values as
written. Tests can seed stacks (:meth:`FakeEngine.add_stack`), read the
calls made (:attr:`FakeEngine.calls`), make the next call of a method
fail (:attr:`FakeEngine.fail`) or the next stack action end FAILED
(:attr:`FakeEngine.action_failure`), and give a stack's outputs values
(:meth:`FakeEngine.set_outputs`).

It is also what a resource's stack hands out as ``rpc_client()`` in the
testing kit (:class:`~keel_heat_core.testing.fakes.FakeStack`): child
stacks, software configs and deployments of a pack's unit tests.
"""

from __future__ import annotations

import copy
import functools
import re
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import oslo_messaging as messaging

from keel_heat_core import exception
from keel_heat_core.model import rows as r
from keel_heat_core.rpc.engine_api import EngineAPI, arguments_by_name
from keel_heat_core.service import views
from keel_heat_core.service.views import TIME_FORMAT
from keel_heat_core.testing.fake_engine_parts import (
    DiscoveryAndSoftware,
    caller,
    is_cfn,
)

__all__ = ["FakeEngine", "now", "serve"]

NAME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]{0,254}$")
#: the sections of an environment; params without any are parameters
ENV_SECTIONS = (
    "parameters",
    "parameter_defaults",
    "resource_registry",
    "event_sinks",
    "encrypted_param_names",
)


def now() -> str:
    """The time as the engine writes it."""
    return datetime.now(UTC).strftime(TIME_FORMAT)


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.strptime(text, TIME_FORMAT)


def _parameters(params: Any) -> dict[str, Any]:
    params = params or {}
    if any(key in params for key in ENV_SECTIONS):
        return dict(params.get("parameters") or {})
    return dict(params)


class FakeEngine(DiscoveryAndSoftware, EngineAPI):
    """The engine API endpoint (version 1.36), in memory.

    :ivar stacks: live stacks by id (dicts; tests may change them).
    :ivar deleted: deleted stacks by id.
    :ivar calls: ``(method, arguments)`` of each call, in order; the
        arguments by name, ``ctxt`` among them.
    :ivar fail: method name -> exception its next call raises.
    :ivar action_failure: when set, the reason the next stack action
        (create, update, delete, ...) ends ``<ACTION>_FAILED`` with, as
        when a resource of the stack fails; then cleared.
    :ivar clock: what times are written with (tests fix it).
    """

    #: calls that change nothing (:meth:`call_names` can leave them out)
    READS = frozenset(
        {
            "identify_stack",
            "show_stack",
            "get_template",
            "get_files",
            "get_environment",
            "describe_stack_resource",
            "show_software_config",
            "show_software_deployment",
        }
    )

    target = messaging.Target(version="1.36")

    def __init__(self) -> None:
        super().__init__()
        self.stacks: dict[str, dict[str, Any]] = {}
        self.deleted: dict[str, dict[str, Any]] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.fail: dict[str, Exception] = {}
        self.action_failure: str | None = None
        self.clock: Callable[[], str] = now
        self.lock = threading.Lock()
        self._seq = 0
        self._changed_at = datetime.now(UTC)

    def call_names(self, reads: bool = True) -> list[str]:
        """The methods called so far, in order (without :attr:`READS`
        unless ``reads``)."""
        return [n for n, _ in self.calls if reads or n not in self.READS]

    def reset(self) -> None:
        """Forget stacks, configs, deployments, calls and failures."""
        for store in (self.stacks, self.deleted, self.configs):
            store.clear()
        self.deployments.clear()
        self.calls.clear()
        self.fail.clear()

    # -- seeding -------------------------------------------------------

    def add_stack(
        self,
        tenant: str,
        name: str,
        template: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        stack_user_project_id: str | None = None,
    ) -> dict[str, Any]:
        """Store a CREATE_COMPLETE stack with the template's resources
        and their events (not a call: nothing is recorded)."""
        template = template or {"HeatTemplateFormatVersion": "2012-12-12"}
        st = self._stack_dict(tenant, name, template, params or {}, {})
        st["stack_user_project_id"] = stack_user_project_id
        for rname, res in st["resources"].items():
            res["action"], res["status"] = "CREATE", "COMPLETE"
            for status in ("IN_PROGRESS", "COMPLETE"):
                self._event(st, rname, "CREATE", status, "state changed")
        st["action"], st["status"] = "CREATE", "COMPLETE"
        st["reason"] = "Stack CREATE completed successfully"
        self.stacks[st["id"]] = st
        return st

    # -- helpers -------------------------------------------------------

    @staticmethod
    def _project(ctxt: Any) -> Any:
        return caller(ctxt).get("project_id")

    def ident(self, st: dict[str, Any], path: str = "") -> dict[str, str]:
        """The identity of a stack (or of a path below it)."""
        return {
            "tenant": st["tenant"],
            "stack_name": st["name"],
            "stack_id": st["id"],
            "path": path,
        }

    _ident = ident

    def _visible(self, ctxt: Any, st: dict[str, Any]) -> bool:
        # stack users live in the stack's own project of the stack domain
        project = self._project(ctxt)
        return bool(caller(ctxt).get("is_admin")) or project in (
            st["tenant"],
            st["stack_user_project_id"],
        )

    def _get(
        self, ctxt: Any, identity: Any, show_deleted: bool = False
    ) -> dict[str, Any]:
        identity = identity or {}
        stack_id = identity.get("stack_id", "")
        st = self.stacks.get(stack_id)
        if st is None and show_deleted:
            st = self.deleted.get(stack_id)
        if (
            st is None
            or not self._visible(ctxt, st)
            or st["name"] != identity.get("stack_name")
        ):
            name = identity.get("stack_name")
            raise exception.EntityNotFound(entity="Stack", name=name)
        return st

    def _project_stacks(self, ctxt: Any, show_deleted: bool) -> list[Any]:
        found = list(self.stacks.values())
        if show_deleted:
            found += self.deleted.values()
        project = self._project(ctxt)
        if project is None and caller(ctxt).get("is_admin"):
            return found
        return [st for st in found if st["tenant"] == project]

    def _event(
        self,
        st: dict[str, Any],
        name: str,
        action: str,
        status: str,
        reason: str,
    ) -> None:
        res = st["resources"].get(name)
        if res is None:  # the stack's own event
            rtype, phys = "OS::Heat::Stack", st["id"]
        else:
            rtype = res["type"]
            phys = res["physical_id"] if status == "COMPLETE" else ""
        eid = str(uuid.uuid4())
        st["events"].append(
            {
                "event_identity": self.ident(
                    st, f"/resources/{name}/events/{eid}"
                ),
                "stack_identity": self.ident(st),
                "stack_name": st["name"],
                "event_time": self.clock(),
                "resource_name": name,
                "physical_resource_id": phys,
                "resource_action": action,
                "resource_status": status,
                "resource_status_reason": reason,
                "resource_type": rtype,
            }
        )

    def _run(self, st: dict[str, Any], action: str) -> None:
        """Drive the stack and its resources through ``action`` (or
        fail it with :attr:`action_failure`)."""
        st["action"], st["status"] = action, "IN_PROGRESS"
        self._touch(st)
        started = f"Stack {action} started"
        self._event(st, st["name"], action, "IN_PROGRESS", started)
        failure, self.action_failure = self.action_failure, None
        if failure is not None:
            st["status"], st["reason"] = "FAILED", failure
            self._event(st, st["name"], action, "FAILED", failure)
            return
        for name, res in st["resources"].items():
            res["action"], res["status"] = action, "COMPLETE"
            self._event(st, name, action, "IN_PROGRESS", "state changed")
            self._event(st, name, action, "COMPLETE", "state changed")
        st["status"] = "COMPLETE"
        st["reason"] = f"Stack {action} completed successfully"
        self._event(st, st["name"], action, "COMPLETE", st["reason"])

    def _touch(self, st: dict[str, Any]) -> None:
        # the row's updated_at: a resource polling its child tells one
        # update from the next by it, so no two are equal
        at = max(datetime.now(UTC), self._changed_at + timedelta(1e-6))
        st["updated_at"] = self._changed_at = at

    def stack_state(self, stack_id: str) -> tuple[str, str, str, Any] | None:
        """``(action, status, status_reason, updated_at)`` of a live
        stack, None for a missing or deleted one: what a parent stack
        reads of its child from the database (not a call)."""
        st = self.stacks.get(stack_id)
        if st is None:
            return None
        return st["action"], st["status"], st["reason"], st["updated_at"]

    def set_outputs(self, stack_id: str, values: dict[str, Any]) -> None:
        """Give a live stack's outputs these values (an exception: the
        output failed to resolve, its text is the ``output_error``)."""
        st = self.stacks[stack_id]
        described = {o["output_key"]: o["description"] for o in st["outputs"]}
        st["outputs"] = []
        for key, value in values.items():
            out = {
                "output_key": key,
                "description": described.get(key, "No description given"),
                "output_value": value,
            }
            if isinstance(value, Exception):
                out.update(output_value=None, output_error=str(value))
            st["outputs"].append(out)

    def _load_template(self, st: dict[str, Any], template: Any) -> None:
        # stored, as the engine stores it: later changes by the caller
        # do not reach it
        template = copy.deepcopy(template)
        st["template"] = template
        defs = template.get("resources") or template.get("Resources") or {}
        st["resources"] = {
            name: {
                "type": (d or {}).get("type") or (d or {}).get("Type"),
                "physical_id": str(uuid.uuid4()),
                "action": "INIT",
                "status": "COMPLETE",
                "metadata": dict(
                    (d or {}).get("metadata")
                    or (d or {}).get("Metadata")
                    or {}
                ),
            }
            for name, d in defs.items()
        }
        outs = template.get("outputs") or template.get("Outputs") or {}
        st["outputs"] = [
            {
                "output_key": key,
                "description": (out or {}).get("description")
                or (out or {}).get("Description")
                or "No description given",
                "output_value": (out or {}).get("value")
                if "value" in (out or {})
                else (out or {}).get("Value"),
            }
            for key, out in outs.items()
        ]

    def _stack_dict(
        self,
        tenant: Any,
        name: str,
        template: Any,
        params: Any,
        args: Any,
    ) -> dict[str, Any]:
        self._seq += 1
        st: dict[str, Any] = {
            "id": str(uuid.uuid4()),
            "name": name,
            "tenant": tenant,
            "stack_user_project_id": None,
            "seq": self._seq,
            "created": self.clock(),
            "updated": None,
            "updated_at": None,
            "deleted": None,
            "reason": "",
            "action": "INIT",
            "status": "COMPLETE",
            "env": params,
            "params": _parameters(params),
            "files": {},
            "tags": args.get("tags"),
            "timeout": args.get("timeout_mins"),
            "disable_rollback": bool(args.get("disable_rollback", True)),
            "events": [],
            "snapshots": {},
        }
        self._load_template(st, template)
        return st

    def row(self, st: dict[str, Any]) -> r.StackRow:
        """The stack as the engine's row, for the engine's views."""
        return r.StackRow(
            id=st["id"],
            name=st["name"],
            action=st["action"],
            status=st["status"],
            status_reason=st["reason"],
            raw_template_id=0,
            current_traversal="",
            disable_rollback=st["disable_rollback"],
            timeout=st["timeout"],
            tenant=st["tenant"],
            stack_user_project_id=st["stack_user_project_id"],
            username="demo",
            created_at=_time(st["created"]),
            updated_at=_time(st["updated"]),
            deleted_at=_time(st["deleted"]),
        )

    def summary(self, st: dict[str, Any]) -> dict[str, Any]:
        """A stack as ``list_stacks`` gives it."""
        return views.stack_summary(self.row(st), st["tags"])

    def pseudo_parameters(self, st: dict[str, Any]) -> dict[str, str]:
        if is_cfn(st["template"]):
            arn = (
                f"arn:openstack:heat::{st['tenant']}:stacks/"
                f"{st['name']}/{st['id']}"
            )
            return {"AWS::StackName": st["name"], "AWS::StackId": arn}
        return {
            "OS::stack_id": st["id"],
            "OS::stack_name": st["name"],
            "OS::project_id": st["tenant"],
        }

    def _show_info(
        self, st: dict[str, Any], resolve_outputs: bool
    ) -> dict[str, Any]:
        # Heat's key order (format_stack), which the API keeps; the
        # engine's views.stack_detail orders them as a summary
        template = st["template"]
        description = template.get("description") or template.get(
            "Description", ""
        )
        info = {
            "stack_name": st["name"],
            "stack_identity": self.ident(st),
            "creation_time": st["created"],
            "updated_time": st["updated"],
            "deletion_time": st["deleted"],
            "notification_topics": [],
            "parameters": {
                **self.pseudo_parameters(st),
                **{k: str(v) for k, v in st["params"].items()},
            },
            "description": description,
            "template_description": description,
            "capabilities": [],
            "disable_rollback": st["disable_rollback"],
            "timeout_mins": st["timeout"],
            "stack_owner": "demo",
            "parent": None,
            "stack_user_project_id": st["stack_user_project_id"],
            "tags": st["tags"],
            "stack_action": st["action"],
            "stack_status": st["status"],
            "stack_status_reason": st["reason"],
        }
        if resolve_outputs and st["deleted"] is None:
            info["outputs"] = [dict(out) for out in st["outputs"]]
        return info

    def _outputs(self, st: dict[str, Any]) -> list[dict[str, Any]]:
        return [dict(out) for out in st["outputs"]]

    # -- stacks --------------------------------------------------------

    def identify_stack(self, ctxt: Any, stack_name: str) -> Any:
        st = self.stacks.get(stack_name)
        if st is None or not self._visible(ctxt, st):
            st = next(
                (
                    s
                    for s in self.stacks.values()
                    if s["name"] == stack_name and self._visible(ctxt, s)
                ),
                None,
            )
        if st is None:
            raise exception.EntityNotFound(entity="Stack", name=stack_name)
        return self.ident(st)

    def list_stacks(
        self,
        ctxt: Any,
        limit: int | None = None,
        marker: str | None = None,
        sort_keys: list[str] | None = None,
        sort_dir: str | None = None,
        filters: Any = None,
        show_deleted: bool = False,
        show_nested: bool = False,
        show_hidden: bool = False,
        tags: list[str] | None = None,
        tags_any: list[str] | None = None,
        not_tags: list[str] | None = None,
        not_tags_any: list[str] | None = None,
    ) -> Any:
        return [
            self.summary(st)
            for st in self._listed(
                ctxt, filters, show_deleted, tags, sort_dir, marker, limit
            )
        ]

    def _listed(
        self,
        ctxt: Any,
        filters: Any,
        show_deleted: bool,
        tags: Any,
        sort_dir: Any = None,
        marker: Any = None,
        limit: Any = None,
    ) -> list[dict[str, Any]]:
        stacks = self._project_stacks(ctxt, show_deleted)
        fields = {"name": "name", "stack_name": "name", "id": "id"}
        fields["status"] = "status"
        for key, value in (filters or {}).items():
            wanted = value if isinstance(value, list) else [value]
            if key in fields:
                stacks = [s for s in stacks if s[fields[key]] in wanted]
        if tags:
            stacks = [s for s in stacks if set(tags) <= set(s["tags"] or [])]
        stacks.sort(key=lambda s: s["seq"], reverse=sort_dir != "asc")
        ids = [s["id"] for s in stacks]
        if marker in ids:
            stacks = stacks[ids.index(marker) + 1 :]
        return stacks if limit is None else stacks[: int(limit)]

    def count_stacks(
        self,
        ctxt: Any,
        filters: Any = None,
        show_deleted: bool = False,
        show_nested: bool = False,
        show_hidden: bool = False,
        tags: list[str] | None = None,
        tags_any: list[str] | None = None,
        not_tags: list[str] | None = None,
        not_tags_any: list[str] | None = None,
    ) -> int:
        return len(self._listed(ctxt, filters, show_deleted, tags))

    def show_stack(
        self, ctxt: Any, stack_identity: Any, resolve_outputs: bool = True
    ) -> Any:
        if stack_identity is None:  # every stack of the project
            stacks = self._project_stacks(ctxt, False)
        else:
            stacks = [self._get(ctxt, stack_identity, show_deleted=True)]
        return [self._show_info(st, resolve_outputs) for st in stacks]

    def _new_stack(
        self, ctxt: Any, stack_name: str, template: Any, params: Any, args: Any
    ) -> dict[str, Any]:
        if not NAME_RE.match(stack_name):
            raise exception.StackValidationFailed(
                message=(
                    f"Invalid stack name {stack_name} must contain only "
                    'alphanumeric or "_-." characters, must start with alpha '
                    "and must be 255 characters or less."
                )
            )
        project = self._project(ctxt)
        for st in self.stacks.values():
            if st["name"] == stack_name and st["tenant"] == project:
                raise exception.StackExists(stack_name=stack_name)
        return self._stack_dict(project, stack_name, template, params, args)

    def create_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
        owner_id: str | None = None,
        nested_depth: int = 0,
        user_creds_id: int | None = None,
        stack_user_project_id: str | None = None,
        parent_resource_name: str | None = None,
        template_id: int | None = None,
    ) -> Any:
        with self.lock:
            st = self._new_stack(ctxt, stack_name, template, params, args)
            st["files"] = files
            if stack_user_project_id is not None:
                st["stack_user_project_id"] = stack_user_project_id
            self.stacks[st["id"]] = st
            self._run(st, "CREATE")
        return self.ident(st)

    def preview_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
    ) -> Any:
        st = self._new_stack(ctxt, stack_name, template, params, args)
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
        environment_files: list[str] | None = None,
        files_container: str | None = None,
        template_id: int | None = None,
    ) -> Any:
        st = self._get(ctxt, stack_identity)
        if st["action"] == "SUSPEND":
            raise exception.NotSupported(
                feature="Updating a stack when it is suspended"
            )
        if template is not None:
            self._load_template(st, template)
        if args.get("existing"):
            st["params"].update(_parameters(params))
        else:
            st["params"] = _parameters(params)
            st["tags"] = args.get("tags")
        st["updated"] = self.clock()
        self._run(st, "UPDATE")
        return self.ident(st)

    def preview_update_stack(
        self,
        ctxt: Any,
        stack_identity: Any,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
    ) -> Any:
        self._get(ctxt, stack_identity)
        changes = ("unchanged", "updated", "replaced", "added", "deleted")
        return {change: [] for change in changes}

    def delete_stack(
        self, ctxt: Any, stack_identity: Any, cast: bool = False
    ) -> None:
        st = self._get(ctxt, stack_identity)
        self._run(st, "DELETE")
        if st["status"] == "COMPLETE":  # a failed delete leaves it live
            st["deleted"] = self.clock()
            self.deleted[st["id"]] = self.stacks.pop(st["id"])

    # StackResource creates and updates its child with Heat's client
    # names, which the engine's in-process client (LocalEngineRPC) also
    # answers; the calls are recorded under the contract's names.

    def _create_stack(self, ctxt: Any, **kwargs: Any) -> Any:
        return self.create_stack(ctxt, **kwargs)

    def _update_stack(self, ctxt: Any, **kwargs: Any) -> Any:
        return self.update_stack(ctxt, **kwargs)


def _recorded(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: FakeEngine, /, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((name, arguments_by_name(method, args, kwargs)))
        failure = self.fail.pop(name, None)
        if failure is not None:
            raise failure
        return method(self, *args, **kwargs)

    return call


# Every method of the contract records its call and may fail on demand.
for _name in dir(EngineAPI):
    if not _name.startswith("_"):
        setattr(
            FakeEngine, _name, _recorded(_name, getattr(FakeEngine, _name))
        )


def serve(
    transport: messaging.Transport, engine: FakeEngine | None = None
) -> tuple[FakeEngine, messaging.RPCServer]:
    """Start an RPC server of ``engine`` (a new one if none) on topic
    ``engine``; return the engine and the server (stop it when done)."""
    engine = engine or FakeEngine()
    server = messaging.get_rpc_server(
        transport,
        messaging.Target(topic="engine", server="fake-engine"),
        [engine],
        executor="threading",
    )
    server.start()
    return engine, server
