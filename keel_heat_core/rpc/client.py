# mypy: disable-error-code="no-any-return"
# (every method returns the engine's JSON, typed at the method)
"""Typed client of the engine RPC API (Heat's engine API 1.36).

Method and argument names are Heat's, so that this client can talk to a
Heat engine and a Heat API to a keel-heat engine. Each method pins the
version Heat's own client pins. See :mod:`.engine_base` for how remote
exceptions are rebuilt.
"""

from __future__ import annotations

from typing import Any

from keel_heat_core.rpc.client_software import SoftwareAndSnapshotCalls
from keel_heat_core.rpc.engine_base import (
    ALLOWED_EXMODS,
    ENGINE_TOPIC,
    JSONObject,
    RemoteEngineError,
    StackIdentity,
    get_transport,
    rebuild_remote_error,
)

__all__ = [
    "ALLOWED_EXMODS",
    "ENGINE_TOPIC",
    "EngineClient",
    "RemoteEngineError",
    "get_transport",
    "rebuild_remote_error",
]


class EngineClient(SoftwareAndSnapshotCalls):
    """Client side of the engine API, topic ``engine``.

    :param conf: configuration (``transport_url``, ``rpc_response_timeout``).
    :param transport: an existing transport; built from ``conf`` if absent.
    """

    # -- stacks --------------------------------------------------------

    def identify_stack(self, ctxt: Any, stack_name: str) -> StackIdentity:
        """Return the identity of a live stack given its name or id."""
        return self.call(ctxt, "identify_stack", stack_name=stack_name)

    def list_stacks(
        self,
        ctxt: Any,
        limit: int | None = None,
        marker: str | None = None,
        sort_keys: list[str] | None = None,
        sort_dir: str | None = None,
        filters: JSONObject | None = None,
        show_deleted: bool = False,
        show_nested: bool = False,
        show_hidden: bool = False,
        tags: list[str] | None = None,
        tags_any: list[str] | None = None,
        not_tags: list[str] | None = None,
        not_tags_any: list[str] | None = None,
    ) -> list[JSONObject]:
        """Return stack summaries, paged, sorted and filtered."""
        return self.call(
            ctxt,
            "list_stacks",
            version="1.33",
            limit=limit,
            sort_keys=sort_keys,
            marker=marker,
            sort_dir=sort_dir,
            filters=filters,
            show_deleted=show_deleted,
            show_nested=show_nested,
            show_hidden=show_hidden,
            tags=tags,
            tags_any=tags_any,
            not_tags=not_tags,
            not_tags_any=not_tags_any,
        )

    def count_stacks(
        self,
        ctxt: Any,
        filters: JSONObject | None = None,
        show_deleted: bool = False,
        show_nested: bool = False,
        show_hidden: bool = False,
        tags: list[str] | None = None,
        tags_any: list[str] | None = None,
        not_tags: list[str] | None = None,
        not_tags_any: list[str] | None = None,
    ) -> int:
        """Return how many stacks match the filters."""
        return int(
            self.call(
                ctxt,
                "count_stacks",
                version="1.33",
                filters=filters,
                show_deleted=show_deleted,
                show_nested=show_nested,
                show_hidden=show_hidden,
                tags=tags,
                tags_any=tags_any,
                not_tags=not_tags,
                not_tags_any=not_tags_any,
            )
        )

    def show_stack(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resolve_outputs: bool = True,
    ) -> list[JSONObject]:
        """Return a one-element list with the stack's details."""
        return self.call(
            ctxt,
            "show_stack",
            version="1.20",
            stack_identity=stack_identity,
            resolve_outputs=resolve_outputs,
        )

    def preview_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: JSONObject,
        params: JSONObject,
        files: JSONObject,
        args: JSONObject,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
    ) -> JSONObject:
        """Return what creating the stack would produce."""
        return self.call(
            ctxt,
            "preview_stack",
            version="1.36",
            stack_name=stack_name,
            template=template,
            params=params,
            files=files,
            environment_files=environment_files,
            files_container=files_container,
            args=args,
        )

    def create_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: JSONObject,
        params: JSONObject,
        files: JSONObject,
        args: JSONObject,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
        owner_id: str | None = None,
        nested_depth: int = 0,
        user_creds_id: str | None = None,
        stack_user_project_id: str | None = None,
        parent_resource_name: str | None = None,
        template_id: int | None = None,
    ) -> StackIdentity:
        """Create a stack; the last six arguments are engine-internal."""
        return self.call(
            ctxt,
            "create_stack",
            version="1.36",
            stack_name=stack_name,
            template=template,
            params=params,
            files=files,
            environment_files=environment_files,
            files_container=files_container,
            args=args,
            owner_id=owner_id,
            nested_depth=nested_depth,
            user_creds_id=user_creds_id,
            stack_user_project_id=stack_user_project_id,
            parent_resource_name=parent_resource_name,
            template_id=template_id,
        )

    def update_stack(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        template: JSONObject | None,
        params: JSONObject,
        files: JSONObject,
        args: JSONObject,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
        template_id: int | None = None,
    ) -> StackIdentity:
        """Update a stack (``args['existing']`` merges, as PATCH does)."""
        return self.call(
            ctxt,
            "update_stack",
            version="1.36",
            stack_identity=stack_identity,
            template=template,
            params=params,
            files=files,
            environment_files=environment_files,
            files_container=files_container,
            args=args,
            template_id=template_id,
        )

    def preview_update_stack(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        template: JSONObject | None,
        params: JSONObject,
        files: JSONObject,
        args: JSONObject,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
    ) -> JSONObject:
        """Return the resource changes an update would make."""
        return self.call(
            ctxt,
            "preview_update_stack",
            version="1.36",
            stack_identity=stack_identity,
            template=template,
            params=params,
            files=files,
            environment_files=environment_files,
            files_container=files_container,
            args=args,
        )

    def validate_template(
        self,
        ctxt: Any,
        template: JSONObject,
        params: JSONObject | None = None,
        files: JSONObject | None = None,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
        show_nested: bool = False,
        ignorable_errors: list[str] | None = None,
    ) -> JSONObject:
        """Validate a template; an ``Error`` key reports a failure."""
        return self.call(
            ctxt,
            "validate_template",
            version="1.36",
            template=template,
            params=params,
            files=files,
            show_nested=show_nested,
            environment_files=environment_files,
            files_container=files_container,
            ignorable_errors=ignorable_errors,
        )

    def authenticated_to_backend(self, ctxt: Any) -> bool:
        """Return whether the context's credentials are valid."""
        return bool(self.call(ctxt, "authenticated_to_backend"))

    def get_template(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Return the stack's stored template."""
        return self.call(ctxt, "get_template", stack_identity=stack_identity)

    def get_environment(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Return the stack's environment, hidden parameters masked."""
        return self.call(
            ctxt,
            "get_environment",
            version="1.28",
            stack_identity=stack_identity,
        )

    def get_files(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Return the stack's stored files."""
        return self.call(
            ctxt, "get_files", version="1.32", stack_identity=stack_identity
        )

    def delete_stack(
        self, ctxt: Any, stack_identity: StackIdentity, cast: bool = False
    ) -> None:
        """Delete a stack; with ``cast`` do not wait for the engine."""
        if cast:
            self.cast(ctxt, "delete_stack", stack_identity=stack_identity)
            return
        self.call(ctxt, "delete_stack", stack_identity=stack_identity)

    def abandon_stack(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Forget a stack, keeping its resources; return its data."""
        return self.call(ctxt, "abandon_stack", stack_identity=stack_identity)

    def export_stack(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Return the stack's abandon data without abandoning it."""
        return self.call(
            ctxt,
            "export_stack",
            version="1.22",
            stack_identity=stack_identity,
        )

    def stack_suspend(self, ctxt: Any, stack_identity: StackIdentity) -> None:
        """Suspend a stack."""
        self.call(ctxt, "stack_suspend", stack_identity=stack_identity)

    def stack_resume(self, ctxt: Any, stack_identity: StackIdentity) -> None:
        """Resume a suspended stack."""
        self.call(ctxt, "stack_resume", stack_identity=stack_identity)

    def stack_check(self, ctxt: Any, stack_identity: StackIdentity) -> None:
        """Check a stack's resources."""
        self.call(ctxt, "stack_check", stack_identity=stack_identity)

    def stack_cancel_update(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        cancel_with_rollback: bool = True,
    ) -> None:
        """Cancel the stack's running operation."""
        self.call(
            ctxt,
            "stack_cancel_update",
            version="1.14",
            stack_identity=stack_identity,
            cancel_with_rollback=cancel_with_rollback,
        )

    def list_outputs(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> list[JSONObject]:
        """Return the stack's outputs without their values."""
        return self.call(
            ctxt,
            "list_outputs",
            version="1.19",
            stack_identity=stack_identity,
        )

    def show_output(
        self, ctxt: Any, stack_identity: StackIdentity, output_key: str
    ) -> JSONObject:
        """Return one resolved output."""
        return self.call(
            ctxt,
            "show_output",
            version="1.19",
            stack_identity=stack_identity,
            output_key=output_key,
        )

    def migrate_convergence_1(self, ctxt: Any, stack_id: str) -> None:
        """Move a legacy stack to the convergence engine."""
        self.call(
            ctxt, "migrate_convergence_1", version="1.34", stack_id=stack_id
        )

    # -- types, templates, resources and events -------------------------

    def list_resource_types(
        self,
        ctxt: Any,
        support_status: str | None = None,
        type_name: str | None = None,
        heat_version: str | None = None,
        with_description: bool = False,
    ) -> list[Any]:
        """Return type names, or ``{resource_type, description}`` items."""
        return self.call(
            ctxt,
            "list_resource_types",
            version="1.30",
            support_status=support_status,
            type_name=type_name,
            heat_version=heat_version,
            with_description=with_description,
        )

    def list_template_versions(self, ctxt: Any) -> list[JSONObject]:
        """Return ``{version, type, aliases}`` for each template version."""
        return self.call(ctxt, "list_template_versions", version="1.11")

    def list_template_functions(
        self, ctxt: Any, template_version: str, with_condition: bool = False
    ) -> list[JSONObject]:
        """Return ``{functions, description}`` for a template version."""
        return self.call(
            ctxt,
            "list_template_functions",
            version="1.35",
            template_version=template_version,
            with_condition=with_condition,
        )

    def resource_schema(
        self, ctxt: Any, type_name: str, with_description: bool = False
    ) -> JSONObject:
        """Return the schema of a resource type."""
        return self.call(
            ctxt,
            "resource_schema",
            version="1.30",
            type_name=type_name,
            with_description=with_description,
        )

    def generate_template(
        self, ctxt: Any, type_name: str, template_type: str = "cfn"
    ) -> JSONObject:
        """Return a provider template for a resource type."""
        return self.call(
            ctxt,
            "generate_template",
            version="1.9",
            type_name=type_name,
            template_type=template_type,
        )

    def list_events(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        filters: JSONObject | None = None,
        limit: int | None = None,
        marker: str | None = None,
        sort_keys: list[str] | None = None,
        sort_dir: str | None = None,
        nested_depth: int | None = None,
    ) -> list[JSONObject]:
        """Return the stack's events, paged, sorted and filtered."""
        return self.call(
            ctxt,
            "list_events",
            version="1.31",
            stack_identity=stack_identity,
            filters=filters,
            limit=limit,
            marker=marker,
            sort_keys=sort_keys,
            sort_dir=sort_dir,
            nested_depth=nested_depth,
        )

    def describe_stack_resource(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resource_name: str,
        with_attr: list[str] | bool = False,
    ) -> JSONObject:
        """Return one resource with its attributes."""
        return self.call(
            ctxt,
            "describe_stack_resource",
            version="1.2",
            stack_identity=stack_identity,
            resource_name=resource_name,
            with_attr=with_attr,
        )

    def find_physical_resource(
        self, ctxt: Any, physical_resource_id: str
    ) -> StackIdentity:
        """Return the identity of the resource with that physical id."""
        return self.call(
            ctxt,
            "find_physical_resource",
            physical_resource_id=physical_resource_id,
        )

    def describe_stack_resources(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resource_name: str | None,
    ) -> list[JSONObject]:
        """Return resources of a stack (CFN style)."""
        return self.call(
            ctxt,
            "describe_stack_resources",
            stack_identity=stack_identity,
            resource_name=resource_name,
        )

    def list_stack_resources(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        nested_depth: int = 0,
        with_detail: bool = False,
        filters: JSONObject | None = None,
    ) -> list[JSONObject]:
        """Return the stack's resources, nested ones to a depth."""
        return self.call(
            ctxt,
            "list_stack_resources",
            version="1.25",
            stack_identity=stack_identity,
            nested_depth=nested_depth,
            with_detail=with_detail,
            filters=filters,
        )

    def resource_signal(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resource_name: str,
        details: Any,
        sync_call: bool = False,
    ) -> Any:
        """Signal a resource; with ``sync_call`` wait for the handler."""
        return self.call(
            ctxt,
            "resource_signal",
            version="1.3",
            stack_identity=stack_identity,
            resource_name=resource_name,
            details=details,
            sync_call=sync_call,
        )

    def resource_mark_unhealthy(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resource_name: str,
        mark_unhealthy: bool,
        resource_status_reason: str | None = None,
    ) -> None:
        """Mark a resource CHECK_FAILED, or back to CHECK_COMPLETE."""
        self.call(
            ctxt,
            "resource_mark_unhealthy",
            version="1.26",
            stack_identity=stack_identity,
            resource_name=resource_name,
            mark_unhealthy=mark_unhealthy,
            resource_status_reason=resource_status_reason,
        )

    def get_revision(self, ctxt: Any) -> str:
        """Return the engine's ``[revision] heat_revision``."""
        return str(self.call(ctxt, "get_revision"))

    def list_services(self, ctxt: Any) -> list[JSONObject]:
        """Return the engine service records."""
        return self.call(ctxt, "list_services", version="1.4")
