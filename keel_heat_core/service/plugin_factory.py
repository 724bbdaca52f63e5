"""Building plugin_api Resources for the worker, with their runtime."""

from __future__ import annotations

import copy
from typing import Any

from keel_heat_core import exception
from keel_heat_core.context import RequestContext
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import resource_data as data_repo
from keel_heat_core.db.database import Database
from keel_heat_core.model import rows as r
from keel_heat_core.model.definitions import TemplateResource
from keel_heat_core.model.stack_facade import EngineStackFacade
from keel_heat_core.service.stack_resources import StackResources


class DbPluginStore:
    """``plugin_api.runtime.ResourceStore`` of one resource row."""

    def __init__(self, db: Database, resource_id: int) -> None:
        self.db = db
        self.resource_id = resource_id

    def set_resource_id(self, resource_id: str | None) -> None:
        # Written at once, so a resource created by an engine that dies
        # before it records the state is not orphaned.
        resource_repo.update_unconditional(
            self.db, self.resource_id, {"nova_instance": resource_id}
        )

    def data(self) -> dict[str, str]:
        values = data_repo.get_all(self.db, self.resource_id)
        return {k: v for k, v in values.items() if v is not None}

    def data_set(self, key: str, value: str, redact: bool = False) -> None:
        data_repo.set_value(self.db, self.resource_id, key, value, redact)

    def data_delete(self, key: str) -> bool:
        try:
            data_repo.delete(self.db, self.resource_id, key)
        except Exception:
            return False
        return True

    def metadata(self) -> dict[str, Any] | None:
        rec = resource_repo.get(self.db, self.resource_id)
        if rec is None or rec.rsrc_metadata is None:
            return None
        metadata: dict[str, Any] = copy.deepcopy(rec.rsrc_metadata)
        return metadata

    def metadata_set(
        self, metadata: dict[str, Any], merge_metadata: Any = None
    ) -> None:
        rec = resource_repo.get(self.db, self.resource_id)
        if rec is None:
            raise exception.ResourceNotAvailable(resource_name="")
        if merge_metadata is not None:
            metadata = merge_metadata(metadata, rec.rsrc_metadata or {})
        if not resource_repo.update(
            self.db,
            self.resource_id,
            {"rsrc_metadata": metadata},
            rec.atomic_key,
            rec.engine_id,
        ):
            raise exception.ConcurrentTransaction(action="metadata_set")


class PluginFactory:
    """``(definition, row, properties, stack) -> plugin``.

    :param db: the database (resource data, metadata, physical ids).
    :param stacks: the stack store, for nested-stack status.
    :param context: the context plugins act with (by default one in the
        stack's project).
    :param clients: the client-plugin factory plugins use, if not the
        context's.
    :param creds: the stored credentials of stacks: plugins act with the
        stack's stored context (its trust) built from them.
    """

    def __init__(
        self,
        db: Database,
        stacks: r.StackStore,
        context: Any = None,
        clients: Any = None,
        creds: Any = None,
    ) -> None:
        self.db = db
        self.creds = creds
        self.stacks = stacks
        self.context = context
        #: the engine client nested stacks use (set by the backend)
        self.rpc: Any = None
        self.clients = clients

    def __call__(
        self,
        definition: TemplateResource,
        row: r.ResourceRow,
        properties: dict[str, Any],
        stack: r.StackRow,
    ) -> Any:
        stored = definition.stored
        cls = stored.env.get_class_to_instantiate(
            definition.resource_type, row.name
        )
        context = self.context or self._stack_context(stack)
        facade = EngineStackFacade(
            stack,
            stored,
            context,
            clients=self.clients,
            rpc=self.rpc,
            stacks=self.stacks,
            resources=StackResources(self.db, self, stack, stored),
        )
        res = cls(row.name, _Resolved(definition, properties), facade)
        res.attach_store(DbPluginStore(self.db, row.id))
        res.id = row.id
        res.uuid = row.uuid or res.uuid
        res.resource_id = row.physical_id
        res.action, res.status = row.action, row.status
        res.status_reason = row.status_reason
        res.created_time, res.updated_time = row.created_at, row.updated_at
        return res

    def _stack_context(self, stack: r.StackRow) -> Any:
        if self.creds is not None:
            return self.creds.stack_context(stack)
        return RequestContext(
            project_id=stack.tenant,
            username=stack.username,
            overwrite=False,
        )


class _Resolved:
    """A definition whose property values are already resolved."""

    def __init__(
        self, definition: TemplateResource, properties: dict[str, Any]
    ) -> None:
        self._definition = definition
        self._properties = properties
        self.name = definition.name
        self.resource_type = definition.resource_type

    def _pending(self) -> Any:
        from keel_heat_core.template.protocols import PendingStackView

        return self._definition.bind(PendingStackView())

    def properties(self, schema: Any, context: Any) -> Any:
        from keel_heat_core.plugin_api import properties as props_mod

        return props_mod.Properties(
            schema, self._properties, context=context, section="Properties"
        )

    def update_policy(self, schema: Any, context: Any) -> Any:
        return self._pending().update_policy(schema, context)

    def metadata(self) -> Any:
        return self._pending().metadata()

    def deletion_policy(self) -> str:
        return self._definition.deletion_policy

    def external_id(self) -> Any:
        return self._pending().external_id()

    def freeze(self) -> _Resolved:
        return self
