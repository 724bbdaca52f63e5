"""The stack as a resource plugin sees it (``plugin_api.runtime``'s
``StackFacade``), built from a stack row and its stored template."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.model.definitions import StoredTemplate
from keel_heat_core.model.identifier import StackIdentifier
from keel_heat_core.template.registry import overrides_for


class _EngineClients:
    """The context's client plugins (none for engine-internal types), with
    the ``heat`` client of this cloud's own region served by the engine
    itself when its RPC client offers one (``service/local_heat.py``).

    ``client_plugin("heat")`` stays the context's plugin (endpoint URLs of
    signal handles) and also knows the local client's not-found errors.
    """

    def __init__(self, base: Any, rpc: Any = None, context: Any = None):
        self._base = base
        self._rpc = rpc
        self._context = context

    def _local(self, kind: str) -> Any:
        make = getattr(self._rpc, f"heat_{kind}", None)
        return make(self._context) if callable(make) else None

    def _missing(self, name: str | None) -> RuntimeError:
        return RuntimeError(f"No client plugin {name!r} is available")

    def client(self, name: str | None, version: Any = None) -> Any:
        if name == "heat":
            local = self._local("client")
            if local is not None:
                return local
        if self._base is None:
            raise self._missing(name)
        return self._base.client(name, version)

    def client_plugin(self, name: str | None) -> Any:
        local = self._local("client_plugin") if name == "heat" else None
        if self._base is None:
            if local is None:
                raise self._missing(name)
            return local
        plugin = self._base.client_plugin(name)
        return plugin if local is None else _HeatPlugin(plugin, local)


class _HeatPlugin:
    """The context's ``heat`` plugin; not-found checks also cover the
    engine-served client's errors."""

    def __init__(self, plugin: Any, local: Any) -> None:
        self._plugin = plugin
        self._local = local

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plugin, name)

    def is_not_found(self, exc: BaseException) -> bool:
        return bool(
            self._local.is_not_found(exc) or self._plugin.is_not_found(exc)
        )

    def ignore_not_found(self, exc: BaseException) -> None:
        if not self.is_not_found(exc):
            raise exc


class EngineStackFacade:
    """A stack for plugins: identity, template, parameters, clients.

    :param row: the stack row.
    :param stored: its parsed template.
    :param context: the request context the traversal runs with.
    :param clients: the client-plugin factory (none by default).
    :param rpc: an engine RPC client (nested stacks), if any.
    :param stacks: the stack store (``child_stack_status``).
    :param resources: the stack's other resources, if any: ``get(name)``,
        ``by_refid(refid)``, ``set_stack_user_project_id(project_id)``
        (:class:`keel_heat_core.service.stack_resources.StackResources`).
    """

    strict_validate = True
    max_nested_stack_depth = 5
    #: set while the stack is validated: validates a child stack
    #: ``(name, template, environment, files)``
    child_validator: Callable[[str, Any, Any, Any], None] | None = None

    def __init__(
        self,
        row: r.StackRow,
        stored: StoredTemplate,
        context: Any = None,
        clients: Any = None,
        rpc: Any = None,
        stacks: r.StackStore | None = None,
        resources: Any = None,
    ) -> None:
        self._row = row
        self._resources = resources
        self._stored = stored
        self._rpc = rpc
        self._stacks = stacks
        self.context = context
        self.clients = _EngineClients(
            clients or getattr(context, "clients", None), rpc, context
        )
        self.id = row.id
        self.name = row.name
        self.t = stored.t
        self.env = stored.env
        self.parameters = stored.parameters
        self.timeout_mins = row.timeout
        self.stack_user_project_id = row.stack_user_project_id
        self.user_creds_id = row.user_creds_id
        self.nested_depth = row.nested_depth
        self.parent_resource_name = row.parent_resource_name
        self.action = row.action
        self.status = row.status

    def validate_child_stack(
        self, name: str, template: Any, environment: Any, files: Any
    ) -> None:
        """Validate a child stack with this one (only while this one is
        validated)."""
        if self.child_validator is not None:
            self.child_validator(name, template, environment, files)

    def identifier(self) -> StackIdentifier:
        return StackIdentifier(self._row.tenant or "", self.name, self.id)

    def timeout_secs(self) -> int | None:
        return None if self.timeout_mins is None else self.timeout_mins * 60

    def clients_for_region(self, region: str) -> Any:
        """The clients of another region (``OS::Heat::Stack``): only the
        engine's own region (``[DEFAULT] region_name_for_services``) is
        reachable; another region answers keystoneauth's
        endpoint-not-found text."""
        own = getattr(self._rpc, "region_name", None)
        if own is not None and region == own:
            return self.clients
        raise RuntimeError(
            f"public endpoint for orchestration service in {region} "
            "region not found"
        )

    def rpc_client(self) -> Any:
        return self._rpc

    def resource_get(self, name: str) -> Any:
        if self._resources is None:
            return None
        return self._resources.get(name)

    def resource_by_refid(self, refid: str) -> Any:
        if self._resources is None:
            return None
        return self._resources.by_refid(refid)

    def referenced_attrs(self, resource_name: str) -> list[Any]:
        """Attributes of ``resource_name`` that the stack's resources and
        outputs read: a group gives its child stack an output for each."""
        dep_attrs = getattr(self._stored, "dep_attrs", None)
        if dep_attrs is None:  # a stack being validated: none yet
            return []
        return sorted(dep_attrs(resource_name), key=repr)

    def set_stack_user_project_id(self, project_id: str) -> None:
        """Record the stack-domain project; when another stack user of
        the stack recorded one first, that one is the stack's."""
        if self._resources is not None:
            project_id = self._resources.set_stack_user_project_id(project_id)
        self.stack_user_project_id = project_id

    def child_stack_status(
        self, stack_id: str
    ) -> tuple[str, str, str, Any] | None:
        if self._stacks is None:
            return None
        child = self._stacks.get_stack(stack_id)
        if child is None:
            return None
        return (
            child.action,
            child.status,
            child.status_reason,
            child.updated_at,
        )

    def child_environment(
        self, user_params: Any, child_resource_name: str
    ) -> dict[str, Any]:
        env = self._stored.env.user_env_as_dict()
        env["parameters"] = dict(user_params or {})
        # the child sees only the overrides (hooks...) of its resource
        registry = env.get("resource_registry")
        if isinstance(registry, dict) and isinstance(
            registry.get("resources"), dict
        ):
            env["resource_registry"] = dict(
                registry,
                resources={
                    name: entry
                    for name, entry in overrides_for(
                        registry["resources"], child_resource_name
                    ).items()
                    if isinstance(entry, dict)  # not the parent's own hooks
                },
            )
        return env
