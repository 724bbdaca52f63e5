"""Topic ``engine``: Heat's engine API 1.36 (54 methods), argument names
and return shapes as Heat's; the contract is
:class:`keel_heat_core.rpc.engine_api.EngineAPI`.

Every call delegates to :class:`StackAPI`, :class:`StackReads` or one of
the helpers built over them (signals, software, types, validation,
snapshots, migration).
"""

from __future__ import annotations

from typing import Any

import oslo_messaging

from keel_heat_core import exception, profiling
from keel_heat_core.db import service as service_repo
from keel_heat_core.model import rows as r
from keel_heat_core.rpc.engine_api import EngineAPI, forward
from keel_heat_core.service import views
from keel_heat_core.service.files_container import files_with_container
from keel_heat_core.service.signals import ResourceSignals
from keel_heat_core.service.snapshots import StackSnapshots
from keel_heat_core.service.software import SoftwareService
from keel_heat_core.service.stack_api import StackAPI
from keel_heat_core.service.stack_migration import StackMigration
from keel_heat_core.service.stack_reads import (
    StackReads,
    find_physical_resource,
)
from keel_heat_core.service.validate_preview import ValidatePreview
from keel_heat_core.template import versions

REVISION = "keel-heat"


@profiling.traced("rpc")
class EngineEndpoint(EngineAPI):
    """The engine API endpoint of one engine process.

    :param api: the stack lifecycle implementation.
    """

    target = oslo_messaging.Target(version="1.36")

    def __init__(self, api: StackAPI) -> None:
        self._api = api
        self._reads = StackReads(api)
        self._software = SoftwareService(api.db, api.conf)
        self._signals = ResourceSignals(api)
        self._types = api.types
        self._checks = ValidatePreview(api, self._types)
        self._snapshots = StackSnapshots(api)
        self._migration = StackMigration(api)

    def prepare(self) -> None:
        """Build at start what the first request would: the policy
        enforcer of the resource types."""
        self._types.prepare()

    def _caller(self, ctxt: Any) -> Any:
        """The caller's context with its engine-side session (catalog,
        clients): what validation and type discovery check services and
        constraints with."""
        return self._api.creds.request_context(ctxt)

    def _files(
        self, ctxt: Any, files: Any, files_container: str | None
    ) -> Any:
        """``files`` with those of the request's ``files_container``
        (see :mod:`keel_heat_core.service.files_container`)."""
        if not files_container:
            return files
        limit = getattr(self._api.conf, "max_json_body_size", None)
        return files_with_container(
            self._caller(ctxt), files_container, files, limit
        )

    def _container_kwargs(self, ctxt: Any, kwargs: Any) -> dict[str, Any]:
        out = dict(kwargs)
        container = out.pop("files_container", None)
        if container:
            out["files"] = self._files(ctxt, out.get("files"), container)
        return out

    # -- stacks --------------------------------------------------------------

    def identify_stack(self, ctxt: Any, stack_name: str) -> Any:
        return self._reads.identify_stack(ctxt, stack_name)

    list_stacks = forward(
        EngineAPI.list_stacks, lambda s: s._reads.list_stacks
    )
    count_stacks = forward(
        EngineAPI.count_stacks, lambda s: s._reads.count_stacks
    )

    def show_stack(
        self, ctxt: Any, stack_identity: Any, resolve_outputs: bool = True
    ) -> Any:
        return self._reads.show_stack(ctxt, stack_identity, resolve_outputs)

    preview_stack = forward(EngineAPI.preview_stack, lambda s: s._preview)

    def _preview(self, ctxt: Any, **kwargs: Any) -> Any:
        return self._checks.preview_stack(
            self._caller(ctxt), **self._container_kwargs(ctxt, kwargs)
        )

    def create_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        environment_files: Any = None,
        files_container: Any = None,
        owner_id: str | None = None,
        nested_depth: int = 0,
        user_creds_id: int | None = None,
        stack_user_project_id: str | None = None,
        parent_resource_name: str | None = None,
        template_id: int | None = None,
    ) -> Any:
        return self._api.create_stack(
            ctxt,
            stack_name,
            template,
            params,
            self._files(ctxt, files, files_container),
            args,
            environment_files=environment_files,
            owner_id=owner_id,
            nested_depth=nested_depth,
            user_creds_id=user_creds_id,
            stack_user_project_id=stack_user_project_id,
            parent_resource_name=parent_resource_name,
        )

    def update_stack(
        self,
        ctxt: Any,
        stack_identity: Any,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        environment_files: Any = None,
        files_container: Any = None,
        template_id: int | None = None,
    ) -> Any:
        return self._api.update_stack(
            ctxt,
            stack_identity,
            template,
            params,
            self._files(ctxt, files, files_container),
            args,
            environment_files=environment_files,
        )

    preview_update_stack = forward(
        EngineAPI.preview_update_stack, lambda s: s._preview_update
    )

    def _preview_update(self, ctxt: Any, **kwargs: Any) -> Any:
        return self._checks.preview_update_stack(
            self._caller(ctxt), **self._container_kwargs(ctxt, kwargs)
        )

    def validate_template(
        self,
        ctxt: Any,
        template: Any,
        params: Any = None,
        files: Any = None,
        environment_files: Any = None,
        files_container: Any = None,
        show_nested: bool = False,
        ignorable_errors: Any = None,
    ) -> Any:
        return self._checks.validate_template(
            self._caller(ctxt),
            template,
            params,
            files=self._files(ctxt, files, files_container),
            environment_files=environment_files,
            show_nested=show_nested,
            ignorable_errors=ignorable_errors,
        )

    def authenticated_to_backend(self, ctxt: Any) -> bool:
        return True

    def get_template(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._reads.get_template(ctxt, stack_identity)

    def get_environment(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._reads.get_environment(ctxt, stack_identity)

    def get_files(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._reads.get_files(ctxt, stack_identity)

    def delete_stack(
        self, ctxt: Any, stack_identity: Any, cast: bool = False
    ) -> None:
        # ``cast`` is the client's choice of waiting; it is not sent
        self._api.delete_stack(ctxt, stack_identity)

    def abandon_stack(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._api.abandon_stack(ctxt, stack_identity)

    def export_stack(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._api.export_stack(ctxt, stack_identity)

    def stack_suspend(self, ctxt: Any, stack_identity: Any) -> None:
        self._api.stack_action(ctxt, stack_identity, r.SUSPEND)

    def stack_resume(self, ctxt: Any, stack_identity: Any) -> None:
        self._api.stack_action(ctxt, stack_identity, r.RESUME)

    def stack_check(self, ctxt: Any, stack_identity: Any) -> None:
        self._api.stack_action(ctxt, stack_identity, r.CHECK)

    def stack_cancel_update(
        self,
        ctxt: Any,
        stack_identity: Any,
        cancel_with_rollback: bool = True,
    ) -> None:
        self._api.stack_cancel_update(
            ctxt, stack_identity, cancel_with_rollback
        )

    def list_outputs(self, ctxt: Any, stack_identity: Any) -> Any:
        stack = self._api.load(ctxt, stack_identity)
        return self._reads.output_keys(self._api.stored(stack))

    def show_output(
        self, ctxt: Any, stack_identity: Any, output_key: str
    ) -> Any:
        stack = self._api.load(ctxt, stack_identity)
        found = self._reads.outputs(stack, self._api.stored(stack), output_key)
        if not found:
            raise exception.NotFound(
                f"Specified output key {output_key} not found."
            )
        return found[0]

    def migrate_convergence_1(self, ctxt: Any, stack_id: str) -> None:
        self._migration.migrate_convergence_1(ctxt, stack_id)

    # -- resource types and templates --------------------------------------

    def list_resource_types(
        self,
        ctxt: Any,
        support_status: str | None = None,
        type_name: str | None = None,
        heat_version: str | None = None,
        with_description: bool = False,
    ) -> Any:
        return self._types.list_resource_types(
            self._caller(ctxt),
            support_status,
            type_name,
            heat_version,
            with_description,
        )

    def list_template_versions(self, ctxt: Any) -> Any:
        return versions.list_versions()

    def list_template_functions(
        self,
        ctxt: Any,
        template_version: str,
        with_condition: bool = False,
    ) -> Any:
        return self._types.list_template_functions(
            ctxt, template_version, with_condition
        )

    def resource_schema(
        self, ctxt: Any, type_name: str, with_description: bool = False
    ) -> Any:
        return self._types.resource_schema(
            self._caller(ctxt), type_name, with_description
        )

    def generate_template(
        self, ctxt: Any, type_name: str, template_type: str = "cfn"
    ) -> Any:
        return self._types.generate_template(
            self._caller(ctxt), type_name, template_type
        )

    # -- resources and events ----------------------------------------------

    list_events = forward(
        EngineAPI.list_events, lambda s: s._reads.list_events
    )

    def describe_stack_resource(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        with_attr: Any = None,
    ) -> Any:
        return self._reads.describe_stack_resource(
            ctxt, stack_identity, resource_name, with_attr=with_attr
        )

    def find_physical_resource(
        self, ctxt: Any, physical_resource_id: str
    ) -> Any:
        return find_physical_resource(self._api, ctxt, physical_resource_id)

    def describe_stack_resources(
        self, ctxt: Any, stack_identity: Any, resource_name: str | None
    ) -> Any:
        items = self._reads.list_stack_resources(ctxt, stack_identity)
        return [
            item
            for item in items
            if resource_name is None or item["resource_name"] == resource_name
        ]

    def list_stack_resources(
        self,
        ctxt: Any,
        stack_identity: Any,
        nested_depth: int = 0,
        with_detail: bool = False,
        filters: Any = None,
    ) -> Any:
        return self._reads.list_stack_resources(
            ctxt, stack_identity, nested_depth, with_detail, filters
        )

    def resource_signal(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        details: Any = None,
        sync_call: bool = False,
    ) -> Any:
        return self._signals.resource_signal(
            ctxt, stack_identity, resource_name, details, sync_call
        )

    def resource_mark_unhealthy(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        mark_unhealthy: Any,
        resource_status_reason: str | None = None,
    ) -> None:
        self._signals.resource_mark_unhealthy(
            ctxt,
            stack_identity,
            resource_name,
            mark_unhealthy,
            resource_status_reason,
        )

    # -- software configs and deployments -----------------------------------

    def show_software_config(self, ctxt: Any, config_id: str) -> Any:
        return self._software.show_software_config(ctxt, config_id)

    def list_software_configs(
        self, ctxt: Any, limit: Any = None, marker: Any = None
    ) -> Any:
        return self._software.list_software_configs(ctxt, limit, marker)

    create_software_config = forward(
        EngineAPI.create_software_config,
        lambda s: s._software.create_software_config,
    )

    def delete_software_config(self, ctxt: Any, config_id: str) -> Any:
        return self._software.delete_software_config(ctxt, config_id)

    def list_software_deployments(
        self, ctxt: Any, server_id: Any = None
    ) -> Any:
        return self._software.list_software_deployments(ctxt, server_id)

    def metadata_software_deployments(self, ctxt: Any, server_id: Any) -> Any:
        return self._software.metadata_software_deployments(ctxt, server_id)

    def show_software_deployment(self, ctxt: Any, deployment_id: str) -> Any:
        return self._software.show_software_deployment(ctxt, deployment_id)

    def check_software_deployment(
        self, ctxt: Any, deployment_id: str, timeout: float
    ) -> Any:
        return self._software.check_software_deployment(
            ctxt, deployment_id, timeout
        )

    create_software_deployment = forward(
        EngineAPI.create_software_deployment,
        lambda s: s._software.create_software_deployment,
    )
    update_software_deployment = forward(
        EngineAPI.update_software_deployment,
        lambda s: s._software.update_software_deployment,
    )
    signal_software_deployment = forward(
        EngineAPI.signal_software_deployment,
        lambda s: s._software.signal_software_deployment,
    )

    def delete_software_deployment(self, ctxt: Any, deployment_id: str) -> Any:
        return self._software.delete_software_deployment(ctxt, deployment_id)

    # -- snapshots and misc --------------------------------------------------

    def stack_snapshot(self, ctxt: Any, stack_identity: Any, name: Any) -> Any:
        return self._snapshots.stack_snapshot(ctxt, stack_identity, name)

    def show_snapshot(
        self, ctxt: Any, stack_identity: Any, snapshot_id: Any
    ) -> Any:
        return self._snapshots.show_snapshot(ctxt, stack_identity, snapshot_id)

    def delete_snapshot(
        self, ctxt: Any, stack_identity: Any, snapshot_id: Any
    ) -> Any:
        self._snapshots.delete_snapshot(ctxt, stack_identity, snapshot_id)

    def stack_list_snapshots(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._snapshots.stack_list_snapshots(ctxt, stack_identity)

    def stack_restore(
        self, ctxt: Any, stack_identity: Any, snapshot_id: Any
    ) -> Any:
        self._snapshots.stack_restore(ctxt, stack_identity, snapshot_id)

    def get_revision(self, ctxt: Any) -> str:
        return REVISION

    def list_services(self, ctxt: Any) -> list[dict[str, Any]]:
        now = self._api.deps.now()
        out = []
        for rec in service_repo.list_services(self._api.db):
            seen = rec.updated_at or rec.created_at
            up = seen is not None and (now - seen).total_seconds() <= (
                2 * rec.report_interval
            )
            out.append(
                {
                    "id": rec.id,
                    "host": rec.host,
                    "hostname": rec.hostname,
                    "binary": rec.binary,
                    "topic": rec.topic,
                    "engine_id": rec.engine_id,
                    "report_interval": rec.report_interval,
                    "created_at": views.timestamp(rec.created_at),
                    "updated_at": views.timestamp(rec.updated_at),
                    "deleted_at": views.timestamp(rec.deleted_at),
                    "status": "up" if up else "down",
                }
            )
        return out
