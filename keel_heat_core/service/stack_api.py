"""Stack lifecycle operations of the engine API (create, update, delete,
actions, cancel, rollback; docs/design/engine.md).

Everything runs synchronously inside the RPC call until the traversal is
started (its leaves cast); the traversal then runs on every engine.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Mapping
from typing import Any

import yaml
from oslo_config import cfg

from keel_heat_core import exception
from keel_heat_core.db import exceptions as db_exceptions
from keel_heat_core.db import raw_template as template_repo
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.db import stack_tag as stack_tag_repo
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import ADMIN, Scope
from keel_heat_core.model import rows as r
from keel_heat_core.model.definitions import StoredTemplate
from keel_heat_core.model.identifier import StackIdentifier
from keel_heat_core.model.resource_facade import ParentFacade, parent_facade
from keel_heat_core.model.stack_facade import EngineStackFacade
from keel_heat_core.service import db_stores, views
from keel_heat_core.service.stack_creds import StackCredentials
from keel_heat_core.service.stack_validation import ParsedStack, StackValidator
from keel_heat_core.service.type_discovery import ResourceTypes
from keel_heat_core.template import validation
from keel_heat_core.template.protocols import PendingStackView
from keel_heat_core.template.request_environment import (
    merged_environment,
    patched_environment,
)
from keel_heat_core.worker import hooks, stack_state
from keel_heat_core.worker.check_resource import CheckResource
from keel_heat_core.worker.converge import converge_stack, rollback
from keel_heat_core.worker.deps import WorkerDeps

LOG = logging.getLogger(__name__)

_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]{0,254}$")


def scope_of(ctxt: Any) -> Scope:
    """The database scope of a request context."""
    if ctxt is None or getattr(ctxt, "is_admin", False):
        return ADMIN
    return Scope(project_id=getattr(ctxt, "project_id", None))


def _stack_id(identity: Any) -> tuple[str | None, str | None]:
    if isinstance(identity, Mapping):
        return identity.get("stack_id"), identity.get("stack_name")
    return str(identity), None


def refuse_immutable_changes(
    current: StoredTemplate, new: StoredTemplate
) -> None:
    """Refuse an update that changes a parameter declared ``immutable``
    in the new template (one the stack has now too).

    :raises ImmutableParameterModified: naming those parameters.
    """
    changed = current.parameters.immutable_params_modified(
        new.parameters, new.env.params
    )
    if changed:
        raise exception.ImmutableParameterModified(*changed)


class StackAPI:
    """Create, update, delete, cancel and read stacks.

    :param conf: the service configuration.
    :param db: the database.
    :param deps: this engine's worker collaborators.
    :param check: this engine's check_resource runner (local cancel).
    :param creds: the stacks' stored credentials (trusts).
    """

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        db: Database,
        deps: WorkerDeps,
        check: CheckResource,
        creds: StackCredentials | None = None,
    ) -> None:
        self.conf = conf
        self.db = db
        self.deps = deps
        self.check = check
        self.creds = creds or StackCredentials(conf, db)
        self.types = ResourceTypes(conf)

    # -- loading ------------------------------------------------------------

    def load(
        self, ctxt: Any, identity: Any, with_deps: bool = True
    ) -> r.StackRow:
        """The live stack named by ``identity`` visible to ``ctxt``.

        :param with_deps: also read the traversal's graph
            (``current_deps``); a read of the API does without.
        :raises EntityNotFound: ``The Stack (<name>) could not be found.``
        """
        return db_stores.stack_row(self.load_record(ctxt, identity, with_deps))

    def load_record(
        self,
        ctxt: Any,
        identity: Any,
        with_deps: bool = True,
        show_deleted: bool = False,
    ) -> Any:
        """The stack record (with its tags) :meth:`load` reads.

        :param show_deleted: for a read by id without the graph, a
            soft-deleted stack too (Heat's show, template, environment,
            files, resources and events answer for a deleted stack).
        :raises EntityNotFound: ``The Stack (<name>) could not be found.``
        """
        stack_id, name = _stack_id(identity)
        rec = None
        if stack_id and not with_deps:
            rec = stack_repo.get_for_reading(
                self.db, stack_id, scope_of(ctxt), show_deleted
            )
        elif stack_id:
            rec = stack_repo.get(self.db, stack_id, scope_of(ctxt))
        elif name:
            rec = stack_repo.get_by_name(self.db, name, scope_of(ctxt))
        if rec is None or (name and rec.name != name):
            raise exception.EntityNotFound(
                entity="Stack", name=name or stack_id
            )
        return rec

    def stored(self, stack: r.StackRow, template_id: int | None = None) -> Any:
        """The parsed template of a stack."""
        return self.deps.cache.definitions(
            self.deps.templates, template_id or stack.raw_template_id, stack
        )

    # -- parsing and validation ----------------------------------------------

    def parse(
        self,
        ctxt: Any,
        stack_name: str,
        template: Mapping[str, Any],
        params: Mapping[str, Any] | None,
        files: Mapping[str, Any] | None,
        stack_id: str,
        facade: ParentFacade | None = None,
        nested_depth: int = 0,
    ) -> StoredTemplate:
        """Parse and validate a template with its environment.

        :param facade: the parent resource of a stack that a template
            resource creates (``resource_facade``).
        :param nested_depth: of the stack (a child stack was validated
            with its root: its template resources are not followed).
        :raises StackValidationFailed: with Heat's texts.
        """
        if not _NAME.match(stack_name or ""):
            raise exception.StackValidationFailed(
                message=(
                    f"Invalid stack name {stack_name} must contain only "
                    'alphanumeric or "_-." characters, must start with '
                    "alpha and must be 255 characters or less."
                )
            )
        tenant = getattr(ctxt, "project_id", None) or ""
        ident = StackIdentifier(tenant, stack_name, stack_id)
        row = self._pending_row(stack_id, stack_name, tenant)
        row.nested_depth = nested_depth
        parsed = ParsedStack(template, params, files, ident)
        # plugins validate with the caller's own session (constraints)
        ctxt = self.creds.request_context(ctxt)
        rpc = getattr(self.deps.plugins, "rpc", None)  # OS::Heat::Stack
        allowed: set[str] = set()

        def type_policy(name: str) -> None:
            # once per type and request: a stack of N resources of one
            # type is one policy check, not N
            if name not in allowed:
                self.types.enforce(ctxt, name)
                allowed.add(name)

        StackValidator(
            parsed,
            lambda p: EngineStackFacade(row, p, ctxt, rpc=rpc),
            ctxt,
            type_policy=type_policy,
            parent_facade=facade,
        ).validate()
        return StoredTemplate(template, dict(params or {}), files, ident)

    @staticmethod
    def _pending_row(stack_id: str, name: str, tenant: str) -> r.StackRow:
        return r.StackRow(
            id=stack_id,
            name=name,
            action="",
            status="",
            status_reason="",
            raw_template_id=0,
            current_traversal="",
            tenant=tenant,
        )

    def _store_template(self, stored: StoredTemplate, files: Any) -> int:
        env = stored.env.env_as_dict()
        if bool(self.conf.encrypt_parameters_and_properties):
            hidden = [
                name
                for name, schema in stored.parameters.schemata.items()
                if schema.hidden
            ]
            env = template_repo.encrypt_hidden_parameters(self.db, env, hidden)
        rec = template_repo.create(self.db, stored.t.t, env, dict(files or {}))
        return rec.id

    # -- create, update, delete ---------------------------------------------

    def create_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Mapping[str, Any],
        params: Mapping[str, Any] | None,
        files: Mapping[str, Any] | None,
        args: Mapping[str, Any] | None,
        environment_files: list[str] | None = None,
        owner_id: str | None = None,
        nested_depth: int = 0,
        user_creds_id: int | None = None,
        stack_user_project_id: str | None = None,
        parent_resource_name: str | None = None,
    ) -> dict[str, str]:
        """Store the stack and start its CREATE traversal."""
        args = dict(args or {})
        adopt_data = self._adopt_data(args.get("adopt_stack_data"))
        stack_id = str(uuid.uuid4())
        params = merged_environment(template, params, files, environment_files)
        facade = None
        if owner_id and parent_resource_name:
            deps = self.deps
            facade = ParentFacade(
                deps.stacks,
                deps.templates,
                deps.resources,
                owner_id,
                parent_resource_name,
                stack_id,
            )
        stored = self.parse(
            ctxt,
            stack_name,
            template,
            params,
            files,
            stack_id,
            facade,
            nested_depth,
        )
        template_id = self._store_template(stored, files)
        if owner_id is None and user_creds_id is None:
            # a root stack: what later work on it authenticates with
            user_creds_id = self.creds.store(ctxt)
        disable_rollback = args.get("disable_rollback")
        values: dict[str, Any] = {
            "id": stack_id,
            "name": stack_name,
            "raw_template_id": template_id,
            "action": r.CREATE,
            "status": r.IN_PROGRESS,
            "status_reason": "",
            "tenant": getattr(ctxt, "project_id", None),
            "username": getattr(ctxt, "username", None),
            "disable_rollback": True
            if disable_rollback is None
            else bool(disable_rollback),
            "timeout": args.get("timeout_mins"),
            "owner_id": owner_id,
            "nested_depth": nested_depth or 0,
            "user_creds_id": user_creds_id,
            "stack_user_project_id": stack_user_project_id,
            "parent_resource_name": parent_resource_name,
            "convergence": True,
            "current_traversal": str(uuid.uuid4()),
            "current_deps": {"edges": []},
        }
        try:
            rec = stack_repo.create(self.db, values, args.get("tags") or ())
        except db_exceptions.StackExists as exc:
            if owner_id is None:
                self.creds.delete(values["user_creds_id"])
            raise exception.StackExists(stack_name=stack_name) from exc
        stack = db_stores.stack_row(rec)
        action = r.ADOPT if adopt_data else r.CREATE
        converge_stack(
            self.deps,
            ctxt,
            stack,
            template_id,
            action,
            adopt_stack_data=adopt_data,
        )
        return views.identity(stack)

    def _adopt_data(self, raw: Any) -> dict[str, Any] | None:
        """The parsed ``adopt_stack_data`` (JSON or YAML text, or a map)."""
        if not raw:
            return None
        if not self.conf.enable_stack_adopt:
            raise exception.NotSupported(feature="Stack Adopt")
        data = yaml.safe_load(raw) if isinstance(raw, str) else raw
        if not isinstance(data, Mapping):
            raise exception.StackValidationFailed(message="Invalid adopt data")
        return dict(data)

    def update_stack(
        self,
        ctxt: Any,
        stack_identity: Any,
        template: Mapping[str, Any] | None,
        params: Mapping[str, Any] | None,
        files: Mapping[str, Any] | None,
        args: Mapping[str, Any] | None,
        environment_files: list[str] | None = None,
    ) -> dict[str, str]:
        """Start an UPDATE traversal (pre-empting one in progress)."""
        args = dict(args or {})
        stack = self.load(ctxt, stack_identity)
        self._refresh_creds(ctxt, stack)
        if stack.action == r.SUSPEND:
            raise exception.NotSupported(
                feature="Updating a stack when it is suspended"
            )
        if stack.action == r.DELETE:
            raise exception.NotSupported(
                feature="Updating a stack when it is deleting"
            )
        if args.get("existing"):
            current = template_repo.get(self.db, stack.raw_template_id)
            template = template or current.template
            files = {**(current.files or {}), **dict(files or {})}
            params = patched_environment(
                current.environment or {},
                template or {},
                params,
                files,
                environment_files,
                args.get("clear_parameters"),
            )
        else:
            params = merged_environment(
                template or {}, params, files, environment_files
            )
        deps = self.deps
        stored = self.parse(
            ctxt,
            stack.name,
            template or {},
            params,
            files,
            stack.id,
            parent_facade(deps.stacks, deps.templates, deps.resources, stack),
            stack.nested_depth,
        )
        refuse_immutable_changes(self.stored(stack), stored)
        template_id = self._store_template(stored, files)
        values: dict[str, Any] = {}
        if "disable_rollback" in args:
            values["disable_rollback"] = bool(args["disable_rollback"])
        if "timeout_mins" in args:
            values["timeout"] = args["timeout_mins"]
        # PUT replaces the tags (none given: none left), PATCH keeps them
        # unless given, as Heat does
        if args.get("tags") is not None or not args.get("existing"):
            stack_tag_repo.set_tags(self.db, stack.id, args.get("tags") or ())
        converge_stack(self.deps, ctxt, stack, template_id, r.UPDATE, **values)
        return views.identity(stack)

    def delete_stack(self, ctxt: Any, stack_identity: Any) -> None:
        """Cancel what runs, then start the DELETE traversal."""
        stack = self.load(ctxt, stack_identity)
        self._refresh_creds(ctxt, stack)
        if (stack.action, stack.status) == (r.DELETE, r.COMPLETE):
            # deleted but not soft-deleted yet: finish that, then say so
            stack_repo.soft_delete(self.db, stack.id)
            raise exception.EntityNotFound(entity="Stack", name=stack.name)
        if stack.status == r.IN_PROGRESS:
            self.stop_traversal(ctxt, stack)
            stack = self.load(ctxt, {"stack_id": stack.id})
        self.stop_all_workers(ctxt, stack)
        empty = self.deps.templates.store_empty_like(stack.raw_template_id)
        converge_stack(self.deps, ctxt, stack, empty, r.DELETE)

    def _refresh_creds(self, ctxt: Any, stack: r.StackRow) -> None:
        """Another user acts on the stack: the trust becomes theirs."""
        new_id = self.creds.refresh(ctxt, stack)
        if new_id is not None:
            stack.user_creds_id = new_id

    def stack_cancel_update(
        self, ctxt: Any, stack_identity: Any, cancel_with_rollback: bool = True
    ) -> None:
        """Cancel an update (or create): roll back, or stop and fail."""
        stack = self.load(ctxt, stack_identity)
        allowed = (r.UPDATE,) if cancel_with_rollback else (r.UPDATE, r.CREATE)
        if not (stack.status == r.IN_PROGRESS and stack.action in allowed):
            state = f"{stack.action}_{stack.status}"
            raise exception.NotSupported(
                feature=f"Cancelling update when stack is {state}"
            )
        if cancel_with_rollback:
            rollback(self.deps, ctxt, stack)
        else:
            self.stop_traversal(ctxt, stack)

    def stop_traversal(self, ctxt: Any, stack: r.StackRow) -> None:
        """Fail the running action of a stack tree (cancel:
        its children in progress first)."""
        for child in stack_repo.get_all_by_owner_id(self.db, stack.id):
            if child.status == r.IN_PROGRESS:
                self.stop_traversal(ctxt, db_stores.stack_row(child))
        old = stack.current_traversal
        new = str(uuid.uuid4())
        reason = f"Stack {stack.action} cancelled"
        if stack_state.set_state(
            self.deps,
            ctxt,
            stack,
            old,
            r.FAILED,
            reason,
            current_traversal=new,
        ):
            self.deps.sync_points.delete_sync_points(stack.id, old)

    def stop_all_workers(self, ctxt: Any, stack: r.StackRow) -> None:
        """Cancel resource operations running on any engine."""
        for engine_id in resource_repo.get_locking_engines(self.db, stack.id):
            if engine_id == self.deps.engine_id:
                self.check.cancel_stack(stack.id)
                continue
            cancel = getattr(self.deps.caster, "cancel_check_resource", None)
            if cancel is not None:
                cancel(ctxt, stack.id, engine_id)

    def stack_action(
        self, ctxt: Any, stack_identity: Any, action: str
    ) -> None:
        """SUSPEND, RESUME or CHECK over the current template."""
        stack = self.load(ctxt, stack_identity)
        if action in (r.SUSPEND, r.RESUME) and (
            stack.action,
            stack.status,
        ) == (action, r.COMPLETE):
            return
        converge_stack(self.deps, ctxt, stack, stack.raw_template_id, action)

    def validate_template(
        self,
        ctxt: Any,
        template: Mapping[str, Any],
        params: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``validate_template``: the parameters view, or ``{Error}``."""
        try:
            stored = self.parse(ctxt, "dummy", template, params, files, "")
        except Exception as exc:
            return {"Error": str(exc)}
        return validation.template_validate_result(
            stored.stack_definition(PendingStackView()),
            stored.env,
            stored.parameters,
        )

    # -- abandon and export (Heat's abandon data layout) ------------------

    def export_stack(self, ctxt: Any, stack_identity: Any) -> dict[str, Any]:
        """The abandon data of a stack, leaving it in place."""
        if not self.conf.enable_stack_abandon:
            raise exception.NotSupported(feature="Stack Abandon")
        return self._export(self.load(ctxt, stack_identity))

    def _export(self, stack: r.StackRow) -> dict[str, Any]:
        """The abandon data of a stack; a resource that owns a child
        stack gives the child's abandon data, so that an adopt of the
        data creates the child stack with the same resources."""
        stored = self.stored(stack)
        rec = template_repo.get(self.db, stack.raw_template_id)
        stack_rec = stack_repo.get(self.db, stack.id)
        children = {
            child.id: child
            for child in stack_repo.get_all_by_owner_id(self.db, stack.id)
        }
        resources = {}
        for row in self.deps.resources.get_resources(stack.id):
            if row.name not in stored or row.replaced_by is not None:
                continue
            child = children.get(row.physical_id or "")
            if child is not None:
                resources[row.name] = self._export(db_stores.stack_row(child))
                continue
            plugin = self.deps.plugins(
                stored[row.name], row, dict(row.properties or {}), stack
            )
            data = plugin.data() if hasattr(plugin, "data") else {}
            resources[row.name] = {
                "name": row.name,
                "resource_id": row.physical_id,
                "type": stored[row.name].resource_type,
                "action": row.action,
                "status": row.status,
                "metadata": row.rsrc_metadata or {},
                "resource_data": hooks.user_data(data or {}),
            }
        return {
            "name": stack.name,
            "id": stack.id,
            "action": stack.action,
            "environment": stored.env.user_env_as_dict(),
            "files": rec.files,
            "status": stack.status,
            "template": rec.template,
            "resources": resources,
            "project_id": stack.tenant,
            "stack_user_project_id": stack.stack_user_project_id,
            "tags": list(stack_rec.tags) if stack_rec else [],
        }

    def abandon_stack(self, ctxt: Any, stack_identity: Any) -> dict[str, Any]:
        """Delete the stack but keep every physical resource."""
        data = self.export_stack(ctxt, stack_identity)
        self._abandon(ctxt, self.load(ctxt, stack_identity))
        return data

    def _abandon(self, ctxt: Any, stack: r.StackRow) -> None:
        if stack.status == r.IN_PROGRESS:
            self.stop_traversal(ctxt, stack)  # of the children too
            stack = self.load(ctxt, {"stack_id": stack.id})
        self.stop_all_workers(ctxt, stack)
        # the child stacks go with their parent, their resources kept too
        for child in stack_repo.get_all_by_owner_id(self.db, stack.id):
            self._abandon(ctxt, db_stores.stack_row(child))
        empty = self.deps.templates.store_empty_like(stack.raw_template_id)
        converge_stack(self.deps, ctxt, stack, empty, r.DELETE, abandon=True)
