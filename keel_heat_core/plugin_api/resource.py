"""The Resource base class every resource plugin derives from.

A plugin declares its schemas as class attributes and implements the
lifecycle hooks it needs; the engine drives them (``handle_<action>`` once,
then ``check_<action>_complete(handle_data)`` about once per second until it
returns true).  Method names and signatures are Heat's, so plugins port
over with few changes.  The runtime facade a resource sees (``stack``,
``properties``, data, metadata, clients) is described in
``docs/design/plugin-contract.md``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from keel_heat_core import exception
from keel_heat_core.plugin_api import attributes, physical_name, support
from keel_heat_core.plugin_api import properties as props_mod
from keel_heat_core.plugin_api.lifecycle import LifecycleHooks
from keel_heat_core.plugin_api.protocol import ResourcePlugin
from keel_heat_core.plugin_api.runtime import (
    MemoryResourceStore,
    ResourceStore,
)

LOG = logging.getLogger(__name__)

DELETION_POLICIES = (DELETE_POLICY, RETAIN, SNAPSHOT) = (
    "Delete",
    "Retain",
    "Snapshot",
)


class PollDelay(Exception):  # noqa: N818 - Heat's name
    """Raised from ``check_*_complete`` to skip the next polls.

    :param period: seconds until the next check (at least 1).
    """

    def __init__(self, period: int) -> None:
        if period < 1:
            raise ValueError(f"Invalid period {period}")
        super().__init__()
        self.period = period


class Resource(LifecycleHooks):
    """Base of every resource type (``OS::*``, ``AWS::*`` ...).

    :param name: the logical name in the template.
    :param definition: its resource definition (see
        :class:`~.runtime.ResourceDefinitionLike`).
    :param stack: the stack facade (see :class:`~.runtime.StackFacade`).
    """

    ACTIONS = (
        INIT,
        CREATE,
        DELETE,
        UPDATE,
        ROLLBACK,
        SUSPEND,
        RESUME,
        ADOPT,
        SNAPSHOT,
        CHECK,
    ) = (
        "INIT",
        "CREATE",
        "DELETE",
        "UPDATE",
        "ROLLBACK",
        "SUSPEND",
        "RESUME",
        "ADOPT",
        "SNAPSHOT",
        "CHECK",
    )
    STATUSES = (IN_PROGRESS, FAILED, COMPLETE) = (
        "IN_PROGRESS",
        "FAILED",
        "COMPLETE",
    )
    BASE_ATTRIBUTES = (SHOW,) = (attributes.SHOW_ATTR,)

    #: names of the properties and attributes (Heat's idiom:
    #: ``PROPERTIES = (SIZE, NAME) = ("size", "name")``)
    PROPERTIES: ClassVar[tuple[str, ...]] = ()
    ATTRIBUTES: ClassVar[tuple[str, ...]] = ()
    #: property name -> :class:`~.properties.Schema`
    properties_schema: ClassVar[Mapping[str, Any]] = {}
    #: attribute name -> :class:`~.attributes.Schema`
    attributes_schema: ClassVar[Mapping[str, Any]] = {}
    #: the attributes every type has (``show``)
    base_attributes_schema: ClassVar[Mapping[str, Any]] = (
        attributes.BASE_ATTRIBUTES_SCHEMA
    )
    #: properties changeable in place besides those with update_allowed
    update_allowed_properties: ClassVar[tuple[str, ...]] = ()
    #: schema of the ``update_policy`` section
    update_policy_schema: ClassVar[Mapping[str, Any]] = {}
    support_status: ClassVar[support.SupportStatus] = support.SupportStatus()
    #: the client behind ``self.client()``; None = engine-internal type
    default_client_name: ClassVar[str | None] = None
    required_service_extension: ClassVar[str | None] = None
    #: the client attribute used by the default delete and ``show``
    entity: ClassVar[str | None] = None
    physical_resource_name_limit: ClassVar[int | None] = 255
    strict_dependency: ClassVar[bool] = True
    requires_deferred_auth: ClassVar[bool] = False
    signal_needs_metadata_updates: ClassVar[bool] = True
    always_replace_on_check_failed: ClassVar[bool] = True
    no_signal_actions: ClassVar[tuple[str, ...]] = (SUSPEND, DELETE)
    #: the resource name in generated templates (default: class name)
    template_resource_name: ClassVar[str | None] = None

    def __init__(self, name: str, definition: Any, stack: Any) -> None:
        self.name = name
        self.t = definition
        self.stack = stack
        self.context = getattr(stack, "context", None)
        self.store: ResourceStore = MemoryResourceStore()
        self.id: int | None = None
        self.uuid = str(uuid.uuid4())
        self.resource_id: str | None = None
        self.action = self.INIT
        self.status = self.COMPLETE
        self.status_reason = ""
        self.created_time: Any = None
        self.updated_time: Any = None
        self._data: dict[str, str] | None = None
        self._rsrc_metadata: dict[str, Any] | None = None
        self.properties = self._make_properties(definition)
        self.translate_properties(self.properties)
        self.update_policy = self._make_update_policy(definition)
        self.attributes = attributes.Attributes(
            name,
            {**self.attributes_schema, **self.base_attributes_schema},
            self._resolve_any_attribute,
        )

    # -- construction ------------------------------------------------------

    def _make_properties(self, definition: Any) -> props_mod.Properties:
        maker = getattr(definition, "properties", None)
        if callable(maker):
            result = maker(self.properties_schema, self.context)
            if isinstance(result, props_mod.Properties):
                return result
        raw = getattr(definition, "raw_properties", None) or {}
        return props_mod.Properties(
            self.properties_schema,
            raw,
            context=self.context,
            section="Properties",
        )

    def _make_update_policy(self, definition: Any) -> props_mod.Properties:
        maker = getattr(definition, "update_policy", None)
        if callable(maker):
            result = maker(self.update_policy_schema, self.context)
            if isinstance(result, props_mod.Properties):
                return result
        return props_mod.Properties(self.update_policy_schema, {})

    def translation_rules(self, properties: Any) -> list[Any]:
        """Rules rewriting property values (see :mod:`.translation`)."""
        return []

    def translate_properties(
        self,
        properties: props_mod.Properties,
        client_resolve: bool = True,
        ignore_resolve_error: bool = False,
    ) -> None:
        """Install this resource's translation rules on ``properties``."""
        rules = self.translation_rules(properties) or []
        properties.update_translation(
            rules,
            client_resolve=client_resolve,
            ignore_resolve_error=ignore_resolve_error,
        )

    def attach_store(self, store: ResourceStore) -> None:
        """Give the resource its persistent state (done by the engine)."""
        self.store = store
        self._data = None
        self._rsrc_metadata = None

    def action_is_local(self, action: str) -> bool:
        """Whether ``action`` stays inside the engine and ends at once.

        Answer True only when, with the properties as they are, the
        action's handle and first completion check call no cloud and wait
        for nothing, and write nothing but this resource's data and
        physical id. The engine may then run it before it takes the
        resource's lock, and write the outcome, both events and the data
        in the one transaction that takes and gives back the lock. Should
        the check answer "not yet" after all, or the handle fail, the
        engine takes the lock at that point and goes on as usual, so a
        wrong True only loses the saving. The default is False.
        """
        return False

    # -- identity ----------------------------------------------------------

    def type(self) -> str:
        """The resource type name as written in the template."""
        return str(getattr(self.t, "resource_type", type(self).__name__))

    @property
    def state(self) -> tuple[str, str]:
        """``(action, status)``."""
        return self.action, self.status

    def __str__(self) -> str:
        return f'{type(self).__name__} "{self.name}"'

    def physical_resource_name(self) -> str | None:
        """``<stack>-<name>-<short id>``, or None before creation."""
        if self.id is None or self.action == self.INIT:
            return None
        return physical_name.physical_resource_name(
            self.stack.name,
            self.name,
            self.uuid,
            self.physical_resource_name_limit,
        )

    def physical_resource_name_or_fallback(self) -> str:
        """The physical name, or ``<stack>-<name>`` before creation."""
        return (
            self.physical_resource_name() or f"{self.stack.name}-{self.name}"
        )

    def resource_id_set(self, inst: str | None) -> None:
        """Record the physical resource id (as soon as it exists)."""
        self.resource_id = inst
        self.store.set_resource_id(inst)

    def get_reference_id(self) -> str:
        """The value of ``get_resource``/``Ref``: the physical id or name."""
        if self.resource_id is not None:
            return str(self.resource_id)
        return str(self.name)

    # -- clients -----------------------------------------------------------

    def client(self, name: str | None = None, version: Any = None) -> Any:
        """The client of a service (default: ``default_client_name``)."""
        client_name = name or self.default_client_name
        if version is None:
            return self.stack.clients.client(client_name)
        return self.stack.clients.client(client_name, version=version)

    def client_plugin(self, name: str | None = None) -> Any:
        """The client plugin of a service (default: the type's own)."""
        return self.stack.clients.client_plugin(
            name or self.default_client_name
        )

    def rpc_client(self) -> Any:
        """The engine RPC client (Heat's EngineClient method names)."""
        return self.stack.rpc_client()

    # -- data and metadata -------------------------------------------------

    def data(self) -> dict[str, str]:
        """The resource data (``resource_data`` rows) as a dict."""
        if self._data is None:
            self._data = self.store.data()
        return dict(self._data)

    def data_set(self, key: str, value: Any, redact: bool = False) -> None:
        """Store one resource-data item; ``redact`` encrypts it."""
        self.store.data_set(key, value, redact)
        self._data = None

    def data_delete(self, key: str) -> bool:
        """Remove one resource-data item; True when it existed."""
        self._data = None
        return self.store.data_delete(key)

    def metadata_get(self, refresh: bool = False) -> dict[str, Any]:
        """Template metadata until created, then the stored metadata."""
        if refresh:
            self._rsrc_metadata = None
        if self.id is None or self.action == self.INIT:
            return dict(self.t.metadata() or {})
        if self._rsrc_metadata is None:
            self._rsrc_metadata = self.store.metadata() or {}
        return self._rsrc_metadata

    def metadata_set(
        self, metadata: dict[str, Any], merge_metadata: Any = None
    ) -> None:
        """Write the metadata; with ``merge_metadata(new, latest)``.

        :raises ResourceNotAvailable: before the resource exists.
        """
        if self.id is None or self.action == self.INIT:
            raise exception.ResourceNotAvailable(resource_name=self.name)
        if merge_metadata is not None:
            merged: dict[str, Any] = {}

            def merge(new: Any, latest: Any) -> Any:
                result = merge_metadata(new, latest)
                merged["value"] = result
                return result

            self.store.metadata_set(metadata, merge)
            self._rsrc_metadata = merged.get("value", metadata)
        else:
            self.store.metadata_set(metadata)
            self._rsrc_metadata = metadata

    def metadata_update(self, new_metadata: Any = None) -> None:
        """Refresh the stored metadata from the template definition."""
        if new_metadata is None:
            new_metadata = self.t.metadata()
        self.metadata_set(dict(new_metadata or {}))

    # -- attributes --------------------------------------------------------

    def _resolve_attribute(self, name: str) -> Any:
        """Compute a plugin attribute; plugins override this."""
        return None

    def _show_resource(self) -> Any:
        """The ``show`` attribute: the service's view of the object."""
        if self.entity and self.resource_id is not None:
            obj = getattr(self.client(), self.entity)
            found = obj.get(self.resource_id)
            if isinstance(found, dict):
                return found
            to_dict = getattr(found, "to_dict", None)
            return to_dict() if callable(to_dict) else found
        return None

    def _resolve_any_attribute(self, attr: str) -> Any:
        try:
            if attr in self.base_attributes_schema:
                if not self.resource_id:
                    return None
                return getattr(self, f"_{attr}_resource")()
            return self._resolve_attribute(attr)
        except Exception as ex:
            if self.default_client_name is not None:
                self.client_plugin().ignore_not_found(ex)
                return None
            raise

    def get_attribute(self, key: str, *path: Any) -> Any:
        """The value of attribute ``key`` followed along ``path``.

        :raises InvalidTemplateAttribute: for an unknown attribute.
        """
        try:
            value = self.attributes[key]
        except KeyError as exc:
            raise exception.InvalidTemplateAttribute(
                resource=self.name, key=key
            ) from exc
        return attributes.select_from_attribute(value, path)

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        """``get_attr`` as the template functions call it."""
        if self.action == self.INIT:
            if key not in self.attributes:
                raise exception.InvalidTemplateAttribute(
                    resource=self.name, key=key
                )
            return None
        return self.get_attribute(key, *path)

    def FnGetRefId(self) -> str:  # noqa: N802 - Heat's name
        """``get_resource`` as the template functions call it."""
        return self.get_reference_id()

    # -- validation --------------------------------------------------------

    @classmethod
    def validate_deletion_policy(cls, policy: str) -> None:
        """Refuse unknown policies and ``Snapshot`` without support.

        :raises StackValidationFailed: ``Invalid deletion policy "x"``.
        """
        if policy not in DELETION_POLICIES:
            raise exception.StackValidationFailed(
                message=f'Invalid deletion policy "{policy}"',
                path="DeletionPolicy",
            )
        if policy == SNAPSHOT and not callable(
            getattr(cls, "handle_snapshot_delete", None)
        ):
            raise exception.StackValidationFailed(
                message=f'"{policy}" deletion policy not supported',
                path="DeletionPolicy",
            )

    def validate(self) -> None:
        """Check the properties; plugins extend this (call super).

        Errors carry the resource's path, as Heat writes them:
        ``Property error: resources.<name>.properties.<prop>: <message>``.

        :raises StackValidationFailed: with that path.
        """
        try:
            policy = getattr(self.t, "deletion_policy", None)
            if callable(policy):
                self.validate_deletion_policy(policy())
            if self.update_policy_schema:
                self.update_policy.validate()
            strict = getattr(self.stack, "strict_validate", True)
            # Heat validates properties whose names are not yet looked up
            # (RESOLVE rules run at create/update): a missing object is
            # then reported by its custom constraint, with its path.
            translation = self.properties.translation
            resolve, translation.resolve = translation.resolve, False
            try:
                self.properties.validate(with_value=strict)
            finally:
                translation.resolve = resolve
        except exception.StackValidationFailed as ex:
            raise self._resource_error(ex) from ex

    def _resource_error(
        self, ex: exception.StackValidationFailed
    ) -> exception.StackValidationFailed:
        section = self.stack.t.get_section_name
        path: list[Any] = [section("Resources"), self.name]
        if ex.path:
            path.append(section(str(ex.path[0])))
            path.extend(ex.path[1:])
        return exception.StackValidationFailed(
            error=ex.error, path=path, message=ex.error_message
        )

    # -- update decisions --------------------------------------------------

    def calc_update_allowed(
        self, properties: props_mod.Properties
    ) -> set[str]:
        """Names of properties changeable without replacement."""
        allowed = set(self.update_allowed_properties)
        for name, prop in properties.props.items():
            if prop.update_allowed():
                allowed.add(name)
        return allowed

    def update_template_diff_properties(
        self,
        after_props: props_mod.Properties,
        before_props: props_mod.Properties,
    ) -> dict[str, Any]:
        """The changed properties, after checking they may change in place.

        :raises NotSupported: when an immutable property changed.
        :raises UpdateReplace: when a change needs a replacement.
        """
        allowed = self.calc_update_allowed(after_props)
        immutable = {n for n, p in after_props.props.items() if p.immutable()}

        def changed(key: str) -> bool:
            try:
                before = before_props.get(key)
            except (TypeError, ValueError) as exc:
                LOG.warning(
                    "Ignoring error in old property value %s: %s", key, exc
                )
                return True
            return bool(before != after_props.get(key))

        changed_set = {k for k in after_props if changed(k)}
        forbidden = sorted(k for k in changed_set if k in immutable)
        if forbidden:
            raise exception.NotSupported(
                feature="Update to properties {} of {} ({})".format(
                    ", ".join(forbidden), self.name, self.type()
                )
            )
        if changed_set and self.needs_replace_with_prop_diff(
            changed_set, after_props, before_props
        ):
            raise exception.UpdateReplace(self)
        if not changed_set.issubset(allowed):
            raise exception.UpdateReplace(self.name)
        return {k: after_props.get(k) for k in changed_set}

    def _needs_update(
        self,
        after: Any,
        before: Any,
        after_props: props_mod.Properties,
        before_props: props_mod.Properties,
        prev_resource: Any,
        check_init_complete: bool = True,
    ) -> bool:
        """Whether an update must run (False: nothing changed).

        The engine calls this first at update time.

        :param after: the new definition.
        :param before: the stored (frozen) definition.
        :raises UpdateReplace: when the resource must be replaced.
        """
        if self.status == self.FAILED and (
            self.action == self.CHECK or self.needs_replace_failed()
        ):
            raise exception.UpdateReplace(self)
        if self.state == (self.DELETE, self.COMPLETE):
            raise exception.UpdateReplace(self)
        if check_init_complete and self.state == (self.INIT, self.COMPLETE):
            raise exception.UpdateReplace(self)
        if self.needs_replace(after_props):
            raise exception.UpdateReplace(self)
        freeze = getattr(after, "freeze", None)
        frozen = freeze() if callable(freeze) else after
        if before != frozen:
            return True
        try:
            return bool(before_props != after_props)
        except ValueError:
            return True

    def needs_replace(self, after_props: props_mod.Properties) -> bool:
        """Whether the new properties force a replacement."""
        return False

    def needs_replace_failed(self) -> bool:
        """Whether a FAILED resource is replaced at update."""
        return True

    def needs_replace_with_tmpl_diff(self, tmpl_diff: Any) -> bool:
        """Whether a template change (besides properties) forces a replace."""
        return False

    def needs_replace_with_prop_diff(
        self,
        changed_properties_set: Iterable[str],
        after_props: props_mod.Properties,
        before_props: props_mod.Properties,
    ) -> bool:
        """Whether the changed properties force a replacement."""
        return False


def _a_resource_is_a_resource_plugin(resource: Resource) -> ResourcePlugin:
    """Nothing calls this: mypy checks here that a Resource has every
    member of the lifecycle protocol (:mod:`.protocol`), with the types
    the engine calls them with."""
    return resource
