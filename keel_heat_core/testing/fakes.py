"""Fakes of the runtime facade, for unit tests of resource plugins.

They stand in for what the engine gives a Resource (see
``docs/design/plugin-contract.md``): a request context, a stack, resource
definitions, client plugins and the engine RPC client.  Everything is in
memory and synchronous.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from keel_heat_core.plugin_api import properties as props_mod
from keel_heat_core.plugin_api.client_plugin import ClientPlugin


class FakeContext:
    """A request context: project, user, roles, region, catalog.

    :param services: service types present in the catalog (``None``: all).
    """

    def __init__(
        self,
        project_id: str = "test_tenant_id",
        user_id: str = "test_user_id",
        roles: tuple[str, ...] = ("member", "reader"),
        region_name: str | None = None,
        services: set[str] | None = None,
    ) -> None:
        self.project_id = self.tenant_id = project_id
        self.user_id = user_id
        self.username = "test_username"
        self.roles = list(roles)
        self.region_name = region_name
        self.is_admin = "admin" in roles
        self.auth_token = "abcd1234"  # noqa: S105 - a fake token
        self.services = services
        self.clients: FakeClients = FakeClients(self)

    def has_service(self, service_type: str) -> bool:
        """Whether ``service_type`` is in the catalog."""
        return self.services is None or service_type in self.services

    def to_dict(self) -> dict[str, Any]:
        return {
            "project_id": self.project_id,
            "user_id": self.user_id,
            "roles": list(self.roles),
            "region_name": self.region_name,
        }


class FakeClientPlugin(ClientPlugin):
    """A client plugin around a given client object.

    :param client: what ``client()`` returns (a Mock, a fake...).
    :param not_found: exception classes treated as not found.
    :param conflict: exception classes treated as conflicts.
    """

    def __init__(
        self,
        context: Any,
        client: Any = None,
        not_found: tuple[type[BaseException], ...] = (),
        conflict: tuple[type[BaseException], ...] = (),
    ) -> None:
        super().__init__(context)
        self._client = client
        self._not_found = not_found
        self._conflict = conflict

    def _create(self, version: Any = None) -> Any:
        return self._client

    def is_not_found(self, ex: BaseException) -> bool:
        return isinstance(ex, self._not_found)

    def is_conflict(self, ex: BaseException) -> bool:
        return isinstance(ex, self._conflict)


class FakeClients:
    """The client-plugin factory of a context.

    Register fakes with :meth:`register`; unknown names get a plugin whose
    client is None and whose error predicates are false.
    """

    def __init__(self, context: Any) -> None:
        self.context = context
        self._plugins: dict[str | None, ClientPlugin] = {}

    def register(self, name: str, plugin: ClientPlugin) -> ClientPlugin:
        """Use ``plugin`` for the client ``name``."""
        self._plugins[name] = plugin
        return plugin

    def client_plugin(self, name: str | None) -> ClientPlugin:
        if name not in self._plugins:
            self._plugins[name] = FakeClientPlugin(self.context)
        return self._plugins[name]

    def client(self, name: str | None, version: Any = None) -> Any:
        return self.client_plugin(name).client(version)


class FakeDefinition:
    """A resource definition with plain (already resolved) values.

    :param name: the logical name.
    :param resource_type: the type name.
    :param properties: raw property values.
    :param metadata: the ``metadata`` section.
    :param update_policy: the ``update_policy`` section.
    :param deletion_policy: ``Delete``, ``Retain`` or ``Snapshot``.
    """

    def __init__(
        self,
        name: str,
        resource_type: str,
        properties: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        update_policy: Mapping[str, Any] | None = None,
        deletion_policy: str = "Delete",
        external_id: str | None = None,
        depends_on: list[str] | None = None,
    ) -> None:
        self.name = name
        self.resource_type = resource_type
        self.raw_properties = dict(properties or {})
        self._metadata = dict(metadata or {})
        self._update_policy = dict(update_policy or {})
        self._deletion_policy = deletion_policy
        self._external_id = external_id
        self.depends_on = list(depends_on or [])

    def properties(
        self, schema: Mapping[str, Any], context: Any
    ) -> props_mod.Properties:
        return props_mod.Properties(
            schema,
            copy.deepcopy(self.raw_properties),
            context=context,
            section="Properties",
        )

    def metadata(self) -> dict[str, Any]:
        return copy.deepcopy(self._metadata)

    def update_policy(
        self, schema: Mapping[str, Any], context: Any
    ) -> props_mod.Properties:
        return props_mod.Properties(
            schema, copy.deepcopy(self._update_policy), context=context
        )

    def deletion_policy(self) -> str:
        return self._deletion_policy

    def external_id(self) -> str | None:
        return self._external_id

    def freeze(self, **overrides: Any) -> FakeDefinition:
        frozen = copy.deepcopy(self)
        for key, value in overrides.items():
            setattr(frozen, key, value)
        return frozen

    def _key(self) -> tuple[Any, ...]:
        return (
            self.name,
            self.resource_type,
            self.raw_properties,
            self._metadata,
            self._update_policy,
            self._deletion_policy,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FakeDefinition):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.name, self.resource_type))

    def __sub__(self, before: FakeDefinition) -> FakeDiff:
        return FakeDiff(before, self)


class FakeDiff:
    """What changed between two definitions (``tmpl_diff``)."""

    def __init__(self, before: FakeDefinition, after: FakeDefinition) -> None:
        self.before = before
        self.after = after

    def properties_changed(self) -> bool:
        return self.before.raw_properties != self.after.raw_properties

    def metadata_changed(self) -> bool:
        return self.before._metadata != self.after._metadata

    def update_policy_changed(self) -> bool:
        return self.before._update_policy != self.after._update_policy

    def empty(self) -> bool:
        return not (
            self.properties_changed()
            or self.metadata_changed()
            or self.update_policy_changed()
        )

    def __bool__(self) -> bool:
        return not self.empty()


class FakeTemplate:
    """The stack template as resources see it (section names, files)."""

    def __init__(self, family: str = "hot", files: Any = None) -> None:
        self.family = family
        self.files = dict(files or {})

    def get_section_name(self, section: str) -> str:
        """HOT spells the CFN section names in snake case."""
        if self.family != "hot":
            return section
        return _HOT_SECTIONS.get(section, section)


_HOT_SECTIONS = {
    "Properties": "properties",
    "Metadata": "metadata",
    "Resources": "resources",
    "Outputs": "outputs",
    "Parameters": "parameters",
    "DeletionPolicy": "deletion_policy",
    "UpdatePolicy": "update_policy",
    "DependsOn": "depends_on",
}


class FakeStack:
    """A stack facade: name, id, context, clients, RPC, other resources.

    :param rpc: what :meth:`rpc_client` gives (default: a new
        :class:`~keel_heat_core.testing.fake_engine.FakeEngine`); child
        stack states are read from its :meth:`~keel_heat_core.testing.
        fake_engine.FakeEngine.stack_state`.
    """

    def __init__(
        self,
        name: str = "test_stack",
        context: FakeContext | None = None,
        rpc: Any = None,
        stack_id: str | None = None,
        timeout_mins: int | None = None,
        parameters: Mapping[str, Any] | None = None,
    ) -> None:
        from keel_heat_core.testing.fake_engine import FakeEngine

        self.name = name
        self.id = stack_id or str(uuid.uuid4())
        self.context = context or FakeContext()
        self.clients = self.context.clients
        self.t = FakeTemplate()
        self.env: Any = None
        self.parameters = dict(parameters or {})
        self.timeout_mins = timeout_mins
        self.stack_user_project_id = self.context.project_id
        self.nested_depth = 0
        self.parent_resource_name: str | None = None
        self.strict_validate = True
        self.action = "CREATE"
        self.status = "IN_PROGRESS"
        self.resources: dict[str, Any] = {}
        self._rpc = rpc or FakeEngine()
        self.identifier_factory: Callable[[], Any] | None = None
        #: resource name -> attributes referenced in the template
        self.attr_references: dict[str, list[Any]] = {}
        #: URL -> text answered by :meth:`fetch_url`
        self.urls: dict[str, str] = {}

    def identifier(self) -> dict[str, str]:
        return {
            "tenant": self.context.project_id,
            "stack_name": self.name,
            "stack_id": self.id,
            "path": "",
        }

    def timeout_secs(self) -> int | None:
        return None if self.timeout_mins is None else self.timeout_mins * 60

    def rpc_client(self) -> Any:
        return self._rpc

    def resource_get(self, name: str) -> Any:
        return self.resources.get(name)

    def resource_by_refid(self, refid: str) -> Any:
        for res in self.resources.values():
            if res.get_reference_id() == refid:
                return res
        return None

    def set_stack_user_project_id(self, project_id: str) -> None:
        self.stack_user_project_id = project_id

    def fetch_url(self, url: str) -> str:
        """The text at ``url`` (from :attr:`urls`)."""
        if url not in self.urls:
            raise OSError(f"Failed to retrieve template from {url}")
        return self.urls[url]

    def referenced_attrs(self, resource_name: str) -> list[Any]:
        """Attributes of ``resource_name`` that the template reads."""
        return list(self.attr_references.get(resource_name, []))

    def child_stack_status(
        self, stack_id: str
    ) -> tuple[str, str, str, Any] | None:
        state: tuple[str, str, str, Any] | None = self._rpc.stack_state(
            stack_id
        )
        return state

    def child_environment(
        self, user_params: Any, child_resource_name: str
    ) -> dict[str, Any]:
        return {"parameters": dict(user_params or {})}

    def __getitem__(self, name: str) -> Any:
        return self.resources[name]
