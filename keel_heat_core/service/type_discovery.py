"""Resource types and template functions as the engine API shows them.

``list_resource_types``, ``resource_schema``, ``generate_template`` and
``list_template_functions`` of engine API 1.36, over the global
environment's registry (the ``keel_heat.resources`` entry points plus
``environment.d``).

As in Heat, the ``resource_types:<Type>`` policy rules (then their
``<Prefix>::*`` wildcard) are checked here, in the engine, with the
caller's context: a listing leaves out the types the caller may not use,
and the schema and template calls refuse them with ``Forbidden``.  A
type whose client plugin is missing or whose service is not in the
catalog is left out of a listing and refused with
``ResourceTypeUnavailable`` (``HEAT-E99001``).

Deliberate difference (``docs/compat.md``): an unknown type answers
``EntityNotFound`` (404) here, where Heat's mis-targeted ``except``
makes no difference either; ``OS::Heat::Value``'s generated template is
answered instead of Heat's 500.
"""

from __future__ import annotations

import importlib.metadata
import logging
from collections.abc import Callable, Iterator
from typing import Any

from oslo_config import cfg

from keel_heat_core import exception
from keel_heat_core.plugin_api import schema_views, support
from keel_heat_core.policies.enforcer import Enforcer, PolicyDenied
from keel_heat_core.service import resource_types
from keel_heat_core.template import environment as env_mod
from keel_heat_core.template import registry as reg
from keel_heat_core.template import versions

LOG = logging.getLogger(__name__)

CLIENTS_GROUP = "keel_heat.clients"
NOT_IN_CATALOG = "Service endpoint not in service catalog."
#: clients of the orchestration service itself: available wherever the
#: engine runs, with or without a client plugin of that name
ENGINE_CLIENTS = frozenset({"heat"})


def _client_plugins() -> dict[str, Any]:
    return {
        ep.name: ep
        for ep in importlib.metadata.entry_points(group=CLIENTS_GROUP)
    }


class ServiceAvailability:
    """Whether the service behind a resource type can be used.

    A type without ``default_client_name`` (or with the ``heat`` client
    of the orchestration service itself) is always available.  Otherwise
    its client plugin (``keel_heat.clients`` entry point of that name)
    must be installed and its ``is_available(context)``
    true (by default: one of its service types is in the caller's
    catalog).

    :param plugins: client plugin name to entry point (or class); the
        installed entry points by default.
    """

    def __init__(self, plugins: dict[str, Any] | None = None) -> None:
        self._plugins = plugins

    def _plugin_class(self, name: str) -> Any:
        if self._plugins is None:
            self._plugins = _client_plugins()
        found = self._plugins.get(name)
        if found is None:
            return None
        load = getattr(found, "load", None)
        return load() if callable(load) else found

    def check(self, ctxt: Any, cls: Any) -> tuple[bool, str | None]:
        """``(available, reason)`` for a resource class.

        :raises Exception: whatever loading or asking the plugin raises.
        """
        client_name = getattr(cls, "default_client_name", None)
        if client_name is None:
            return True, None
        plugin = self._plugin_class(client_name)
        if plugin is None and client_name in ENGINE_CLIENTS:
            return True, None
        if plugin is None:
            return False, f"Client plugin {client_name} is not installed."
        if plugin.is_available(ctxt):
            return True, None
        return False, NOT_IN_CATALOG


class ResourceTypes:
    """The resource-type calls of one engine.

    :param conf: the engine configuration (``[oslo_policy]``).
    :param enforcer: the policy enforcer (built from ``conf`` on first
        use when not given).
    :param env: returns the global environment.
    :param availability: the service availability check.
    """

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        enforcer: Enforcer | None = None,
        env: Callable[[], env_mod.Environment] = env_mod.global_env,
        availability: ServiceAvailability | None = None,
    ) -> None:
        self._conf = conf
        self._enforcer = enforcer
        self._env = env
        self._availability = availability or ServiceAvailability()

    @property
    def enforcer(self) -> Enforcer:
        """The policy enforcer of the engine process."""
        if self._enforcer is None:
            self._enforcer = Enforcer(self._conf)
        return self._enforcer

    def prepare(self) -> None:
        """Build the enforcer now (its rules and policy file)."""
        _ = self.enforcer

    # -- checks ---------------------------------------------------------------

    def allowed(self, ctxt: Any, type_name: str) -> bool:
        """Whether policy lets the caller use ``type_name``."""
        if ctxt is None:
            return True
        try:
            self.enforcer.enforce_resource_type(ctxt, type_name)
        except PolicyDenied:
            return False
        return True

    def enforce(self, ctxt: Any, type_name: str) -> None:
        """Refuse a type the caller may not use.

        :raises Forbidden: ``You are not authorized to use
            resource_types:<Type>.`` (or the type itself for a wildcard).
        """
        if ctxt is None:
            return
        try:
            self.enforcer.enforce_resource_type(ctxt, type_name)
        except PolicyDenied as denied:
            raise exception.Forbidden(action=denied.action) from None

    def _available(self, ctxt: Any, type_name: str, cls: Any) -> bool:
        if ctxt is None:
            return True
        try:
            return self._availability.check(ctxt, cls)[0]
        except Exception:  # a broken plugin hides its types
            LOG.exception("Availability check of %s failed", type_name)
            return False

    def ensure_available(self, ctxt: Any, type_name: str, cls: Any) -> None:
        """Refuse a type whose service cannot be used.

        :raises ResourceTypeUnavailable: ``HEAT-E99001 Service <s> is not
            available for resource type <T>, reason: <why>``.
        """
        service = getattr(cls, "default_client_name", None)
        try:
            ok, reason = self._availability.check(ctxt, cls)
        except Exception as exc:
            raise exception.ResourceTypeUnavailable(
                service_name=service, resource_type=type_name, reason=str(exc)
            ) from exc
        if not ok:
            raise exception.ResourceTypeUnavailable(
                service_name=service,
                resource_type=type_name,
                reason=NOT_IN_CATALOG if reason is None else reason,
            )

    # -- registry -------------------------------------------------------------

    def _registered(self) -> Iterator[tuple[str, Any]]:
        """``(name, class)`` of the plugin and template types, in registry
        order; a plugin that fails to load is logged and skipped."""
        registry = self._env().registry
        for name in registry.type_names():
            info = registry._registry[name]
            if isinstance(info, reg.TemplateResourceInfo):
                yield name, _TemplateType
                continue
            try:
                yield name, info.get_class()
            except Exception:
                LOG.exception("Resource type %s failed to load", name)

    def _find(self, type_name: str) -> Any:
        try:
            info = self._env().registry.get_resource_info(type_name)
        except exception.EntityNotFound:
            raise
        if isinstance(info, reg.TemplateResourceInfo):
            return _TemplateType
        try:
            return info.get_class()
        except Exception as exc:
            LOG.exception("Resource type %s failed to load", type_name)
            raise exception.InvalidGlobalResource(type_name=type_name) from exc

    # -- engine API -----------------------------------------------------------

    def list_resource_types(
        self,
        ctxt: Any,
        support_status: str | None = None,
        type_name: str | None = None,
        heat_version: str | None = None,
        with_description: bool = False,
    ) -> list[Any]:
        """Names (or ``{resource_type, description}``) of usable types.

        :raises Invalid: for an unknown ``support_status``.
        """
        types = dict(self._registered())
        return schema_views.list_types(
            types,
            support_status=support_status,
            type_name=type_name,
            version=heat_version,
            with_description=with_description,
            available=lambda name, cls: self._available(ctxt, name, cls),
            allowed=lambda name: self.allowed(ctxt, name),
        )

    def _visible(self, ctxt: Any, type_name: str) -> Any:
        self.enforce(ctxt, type_name)
        cls = self._find(type_name)
        schema_views.ensure_visible(cls, type_name)
        return cls

    def resource_schema(
        self, ctxt: Any, type_name: str, with_description: bool = False
    ) -> dict[str, Any]:
        """The schema of a type (policy, then lookup, hidden, service).

        :raises Forbidden: when policy refuses the type.
        :raises EntityNotFound: for an unknown type (404).
        :raises NotSupported: for a hidden type.
        :raises ResourceTypeUnavailable: when its service is missing.
        """
        cls = self._visible(ctxt, type_name)
        self.ensure_available(ctxt, type_name, cls)
        return schema_views.resource_schema(cls, type_name, with_description)

    def generate_template(
        self, ctxt: Any, type_name: str, template_type: str = "cfn"
    ) -> dict[str, Any]:
        """A provider template for a type (``hot`` or ``cfn``).

        Like Heat, the service of the type is not looked up here.
        """
        cls = self._visible(ctxt, type_name)
        return schema_views.generate_template(cls, type_name, template_type)

    def list_template_functions(
        self, ctxt: Any, template_version: str, with_condition: bool = False
    ) -> list[dict[str, str]]:
        """``{functions, description}`` of one template version (its
        full name, ``heat_template_version.2021-04-16``, or, unlike Heat,
        the bare ``2021-04-16``).

        :raises NotFound: ``Template with version <v> not found``.
        """
        classes = versions.template_classes()
        name = template_version
        if name not in classes:
            # keel-heat also accepts the bare date or alias of a version
            # (``2021-04-16``) when exactly one version key has it
            same = [
                full
                for full in classes
                if full.split(".", 1)[-1] == template_version
            ]
            if len(same) == 1:
                name = same[0]
        return resource_types.list_template_functions(name, with_condition)


class _TemplateType:
    """A type implemented by a template in the global environment."""

    support_status = support.SupportStatus()
    properties_schema: dict[str, Any] = {}
    attributes_schema: dict[str, Any] = {}
    default_client_name = None
