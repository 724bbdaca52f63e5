"""One resource as a convergence worker drives it.

:class:`ConvergenceResource` runs the create, update and delete of a
traversal node (docs/design/engine.md, "One node") on a plugin object,
under the resource lock, writing the row state and an event on every change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, NoReturn

from keel_heat_core import exception
from keel_heat_core.convergence.store import InRelease
from keel_heat_core.exception import UpdateReplace
from keel_heat_core.model import rows as r
from keel_heat_core.plugin_api import properties as props_mod
from keel_heat_core.plugin_api import protocol as lifecycle
from keel_heat_core.plugin_api.resource import Resource as PluginResource
from keel_heat_core.plugins import current_hooks
from keel_heat_core.worker import local as local_mod
from keel_heat_core.worker import update_decision as decide
from keel_heat_core.worker.action import (
    ActionCancelled,
    ActionTimeout,
    run_action,
)
from keel_heat_core.worker.lock import (
    LockState,
    ResourceLock,
    UpdateInProgress,
)
from keel_heat_core.worker.wake import StackWaiters, cancel_key

#: ``(definition, row, resolved properties) -> plugin object``; what the
#: worker calls on it is :mod:`keel_heat_core.plugin_api.protocol`
PluginFactory = Callable[[Any, r.ResourceRow, dict[str, Any]], object]


class ResourceActionFailed(Exception):
    """A resource action failed; ``str()`` is Heat's failure text.

    :ivar action: the resource action that failed.
    """

    def __init__(self, action: str, text: str) -> None:
        self.action = action
        super().__init__(text)


def failure_text(exc: BaseException, name: str) -> str:
    """Heat's ``<ExceptionClass>: resources.<name>: <message>``.

    A ResourceFailure (a child stack's resource failed) keeps its own
    kind, path and message: the path already leads from this resource
    to the one that failed.
    """
    if isinstance(exc, exception.ResourceFailure):
        return str(exc)
    return str(
        exception.HeatExceptionWithPath(
            type(exc).__name__, ["resources", name], str(exc)
        )
    )


def restricted_actions(definition: Any, name: str) -> set[str]:
    """The actions (``update``, ``replace``) the environment of a
    definition's template restricts for resource ``name``."""
    env = getattr(getattr(definition, "stored", None), "env", None)
    if env is None:
        return set()
    return set(env.registry.get_rsrc_restricted_actions(name))


def _is_update_replace(exc: BaseException) -> bool:
    return type(exc).__name__ == "UpdateReplace"


class ConvergenceResource:
    """A resource row, its definition and its plugin, for one node.

    :param row: the row as read for this node.
    :param definition: its definition in the template it is driven to
        (or, for a cleanup, the one it was last created/updated with).
    :param properties: the definition's resolved property values.
    :param store: the resource store (rows, lock CAS, events).
    :param plugins: builds the plugin object.
    :param engine_id: this engine, the lock holder while IN_PROGRESS.
    :param waiters: where the polls of a resource waiting for a stack
        are woken (:mod:`keel_heat_core.worker.wake`).
    """

    def __init__(
        self,
        row: r.ResourceRow,
        definition: Any,
        properties: dict[str, Any],
        store: r.ResourceStore,
        plugins: PluginFactory,
        engine_id: str,
        waiters: StackWaiters | None = None,
    ) -> None:
        self.row = row
        self.waiters = waiters
        self.definition = definition
        self.properties = properties
        self.store = store
        self.engine_id = engine_id
        #: the plugin: a Resource, or in unit tests a bare object with
        #: some of the capabilities of the lifecycle protocol
        self.plugin: object = plugins(definition, row, properties)
        #: ``(self, action) -> sync point writes`` to make in the
        #: transaction that releases the lock after a successful action
        #: (set by the node: ``CheckResource`` hands its successors over)
        self.handoff: (
            Callable[[ConvergenceResource, str], Sequence[InRelease]] | None
        ) = None
        self.lock = ResourceLock(
            store,
            row.id,
            row.name,
            LockState(row.engine_id, row.atomic_key, row.current_template_id),
        )

    @property
    def name(self) -> str:
        """The logical resource name."""
        return self.row.name

    # -- state ------------------------------------------------------------

    def _event(self, action: str, status: str, reason: str) -> None:
        self.store.add_event(self._event_record(action, status, reason))

    def _event_record(
        self, action: str, status: str, reason: str
    ) -> r.EventRecord:
        return r.EventRecord(
            stack_id=self.row.stack_id,
            resource_name=self.row.name,
            physical_resource_id=self.row.physical_id,
            resource_type=self.definition.resource_type,
            resource_action=action,
            resource_status=status,
            resource_status_reason=reason[:255],
        )

    def _set(
        self,
        write: Callable[..., None],
        action: str,
        status: str,
        reason: str,
        then: Sequence[InRelease] = (),
        **values: Any,
    ) -> None:
        self._note_physical_id()
        values.update(
            action=action,
            status=status,
            status_reason=reason,
            physical_id=self.row.physical_id,
        )
        # the event goes in the transaction of the state write
        event = self._event_if_new(action, status, reason)
        events = [] if event is None else [event]
        if then:
            write(values, events, then)
        else:
            write(values, events)
        self._apply(values)

    def _event_if_new(
        self, action: str, status: str, reason: str
    ) -> r.EventRecord | None:
        """The event of a move to ``(action, status)``; None for none."""
        if (self.row.action, self.row.status) == (action, status):
            return None
        return self._event_record(action, status, reason)

    def _show_plugin(self, action: str, status: str, reason: str) -> None:
        plugin = self.plugin
        if lifecycle.shows_state(plugin):
            plugin.action, plugin.status = action, status
            plugin.status_reason = reason

    def _apply(self, values: Mapping[str, Any]) -> None:
        """Take written state values into the row and the plugin."""
        self._show_plugin(
            values["action"], values["status"], values["status_reason"]
        )
        for key, value in values.items():
            setattr(self.row, key, value)
        self.row.engine_id = self.lock.state.engine_id
        self.row.atomic_key = self.lock.state.atomic_key

    def _note_physical_id(self) -> None:
        plugin = self.plugin
        if lifecycle.has_physical_id(plugin):
            physical = plugin.resource_id
            if physical is not None:
                self.row.physical_id = physical

    def _acquire(
        self, values: Mapping[str, Any], events: Sequence[r.EventRecord]
    ) -> None:
        self.lock.acquire(self.engine_id, values, events)

    def _release(
        self,
        values: Mapping[str, Any],
        events: Sequence[r.EventRecord],
        then: Sequence[InRelease] = (),
    ) -> None:
        self.lock.release(self.engine_id, values, events, then)

    def _respect(
        self, values: Mapping[str, Any], events: Sequence[r.EventRecord]
    ) -> None:
        self.lock.respect(values, events)

    def _run(
        self,
        action: str,
        args: tuple[Any, ...],
        deadline: float | None,
        cancel: threading.Event | None,
        done: dict[str, Any],
        interval: float,
        locking: bool = True,
        pre: Callable[[], Any] | None = None,
        begin: Mapping[str, Any] | None = None,
    ) -> None:
        """IN_PROGRESS, the plugin's handle/check loop, COMPLETE or FAILED.

        :param locking: take the resource lock (CREATE, UPDATE, DELETE);
            SUSPEND, RESUME, CHECK and SNAPSHOT only respect it.
        :param pre: runs first, failing the action like the handle would.
        :param begin: more row values to write with IN_PROGRESS.
        """
        enter = self._acquire if locking else self._respect
        leave = self._release if locking else self._respect
        local = self._start_local(action, begin) if locking else None
        if local is None:
            self._set(
                enter,
                action,
                r.IN_PROGRESS,
                "state changed",
                **dict(begin or {}),
            )
        try:
            if pre is not None:
                pre()
            current_hooks().resource_action(
                getattr(self.plugin, "context", None),
                self.plugin,
                action,
                lambda: run_action(
                    self.plugin,
                    action,
                    args,
                    deadline,
                    cancel,
                    interval,
                    waiters=self.waiters,
                    watch=[cancel_key(self.row.stack_id)],
                    before_wait=(
                        None
                        if local is None
                        else lambda: self._settle(local, action)
                    ),
                ),
            )
        except Exception as exc:
            if local is not None:
                if local.contended:  # the lock was taken before ours
                    raise
                self._settle(local, action)  # failures go under the lock
            self._fail(action, leave, exc)
        then: Sequence[InRelease] = ()
        if locking and self.handoff is not None:
            self._note_physical_id()  # the reference the handoff sends
            then = self.handoff(self, action)
        if local is not None and not local.settled:
            self._finish_local(local, action, done, then)
            return
        self._set(
            leave, action, r.COMPLETE, "state changed", then=then, **done
        )

    def _fail(
        self, action: str, leave: Callable[..., None], exc: Exception
    ) -> NoReturn:
        """Record how the action failed, and raise what the node expects."""
        if isinstance(exc, (ActionTimeout, ActionCancelled)):
            reason = (
                f"{action} aborted (Timed out)"
                if isinstance(exc, ActionTimeout)
                else str(exc)
            )
            self._set(leave, action, r.FAILED, reason)
            raise exc
        if _is_update_replace(exc):
            self._set(
                leave,
                action,
                r.COMPLETE,
                f"The Resource {self.name} requires replacement.",
            )
            raise exc
        text = failure_text(exc, self.name)
        self._set(leave, action, r.FAILED, text)
        raise ResourceActionFailed(action, text) from exc

    # -- local actions (keel_heat_core.worker.local) -------------------------

    def _start_local(
        self, action: str, begin: Mapping[str, Any] | None
    ) -> local_mod.LocalAction | None:
        """Run ``action`` before the lock, if its plugin allows."""
        if not local_mod.is_local(self.plugin, action):
            return None
        started = self._event_if_new(action, r.IN_PROGRESS, "state changed")
        plugin = self.plugin
        local = local_mod.LocalAction(None, begin or {}, started)
        if lifecycle.has_store(plugin):
            local.store = local_mod.LocalStore(
                plugin.store,
                lambda: self._settle(local, action),
                fresh=self.row.has_data is False,
            )
            plugin.store = local.store
        self._show_plugin(action, r.IN_PROGRESS, "state changed")
        return local

    def _settle(self, local: local_mod.LocalAction, action: str) -> None:
        """Take the lock after all: the action is not local."""
        if local.settled:
            return
        local.settled = True
        store = local.store
        if store is not None:
            self._give_back_store(store)
        try:
            self._set(
                self._acquire,
                action,
                r.IN_PROGRESS,
                "state changed",
                **local.begin,
            )
        except UpdateInProgress:
            local.contended = True
            raise
        if store is not None:
            store.write_through()

    def _give_back_store(self, store: local_mod.LocalStore) -> None:
        """The plugin's own store again, after a local action."""
        plugin = self.plugin
        if lifecycle.has_store(plugin):
            plugin.store = store.inner

    def _finish_local(
        self,
        local: local_mod.LocalAction,
        action: str,
        done: Mapping[str, Any],
        then: Sequence[InRelease],
    ) -> None:
        """One write: lock taken and given back, outcome, events, data."""
        store = local.store
        if store is not None:
            self._give_back_store(store)
            if store.resource_id is not None:
                self.row.physical_id = store.resource_id[0]
        self._note_physical_id()
        reason = "state changed"
        values = {
            **local.begin,
            **done,
            "action": action,
            "status": r.COMPLETE,
            "status_reason": reason,
            "physical_id": self.row.physical_id,
        }
        events = [local.started] if local.started is not None else []
        events.append(self._event_record(action, r.COMPLETE, reason))
        self.lock.finish(values, events, then, local.data())
        self._apply(values)

    # -- operations ---------------------------------------------------------

    def create(
        self,
        template_id: int,
        requires: list[int],
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        interval: float = 1.0,
    ) -> None:
        """Create (``INIT`` → ``CREATE_COMPLETE``)."""
        # (the properties are written once, with IN_PROGRESS, below)
        done = {
            "current_template_id": template_id,
            "requires": sorted(set(requires), reverse=True),
        }
        # Heat checks the resolved property values first (a value that
        # only has its type once functions ran, such as a get_attr).
        plugin = self.plugin
        validate = (
            plugin.properties.validate
            if lifecycle.has_validated_properties(plugin)
            else None
        )
        # The properties are stored as the create starts, as Heat does: a
        # resource whose create fails still shows its attributes.
        self._run(
            r.CREATE,
            (),
            deadline,
            cancel,
            done,
            interval,
            pre=validate,
            begin={"properties": self.properties},
        )

    def adopt(
        self,
        template_id: int,
        requires: list[int],
        resource_data: dict[str, Any],
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        interval: float = 1.0,
    ) -> None:
        """Adopt (``INIT`` → ``ADOPT_COMPLETE``) from the adopt data."""
        done = {
            "current_template_id": template_id,
            "requires": sorted(set(requires), reverse=True),
            "properties": self.properties,
        }
        self._run(r.ADOPT, (resource_data,), deadline, cancel, done, interval)

    def needs_replace(
        self, old_type: str | None, old_definition: Any = None
    ) -> bool:
        """Replace instead of update (a changed type, or a failed resource not
        fixed in place; docs/design/plugin-contract.md, "Update decision")."""
        row = self.row
        if row.status == r.FAILED and not decide.fixed_in_place(
            self.plugin, row.action
        ):
            return True
        if row.action == r.INIT or row.action == r.DELETE:
            return True
        if old_type is not None and decide.type_changed(
            old_type, old_definition, self.definition
        ):
            return True
        plugin = self.plugin
        if lifecycle.decides_replace(plugin):
            return bool(plugin.needs_replace(self.properties))
        return False

    def update(
        self,
        old_properties: Mapping[str, Any] | None,
        old_type: str | None,
        template_id: int,
        requires: list[int],
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        interval: float = 1.0,
        old_definition: Any = None,
    ) -> bool:
        """Update in place; returns False when nothing changed.

        :param old_definition: the definition the resource has now (of
            its ``current_template_id``), for the plugin's ``tmpl_diff``.
        :raises UpdateReplace: the resource must be replaced.
        :raises ResourceActionFailed: the update or replacement it needs
            is one of the environment's ``restricted_actions`` for the
            resource (which keeps its state).
        """
        restricted = restricted_actions(self.definition, self.name)
        try:
            plan = self._update_plan(old_properties, old_type, old_definition)
        except UpdateReplace:
            self._refuse_restricted("replace", restricted)
            raise
        if plan is None:
            self.keep(template_id, requires)
            return False
        self._refuse_restricted("update", restricted)
        before, prop_diff, tmpl_diff = plan
        done = {
            "current_template_id": template_id,
            "requires": sorted(set(requires), reverse=True),
            "properties": self.properties,
            **self._current_again(),
        }
        # plugin_api Resources get the definition they were built with
        after = decide.plugin_definition(self.plugin, self.definition)
        args: tuple[Any, ...] = (
            after,
            tmpl_diff if tmpl_diff is not None else {},
            prop_diff,
        )
        # Heat's contract: until the update is done, the plugin's
        # properties are the ones the resource has now; the new values
        # are in prop_diff and the definition (handle_update may switch
        # to them, as Heat's own types do).
        plugin = self.plugin
        if before is None or not isinstance(plugin, PluginResource):
            self._run(r.UPDATE, args, deadline, cancel, done, interval)
            return True
        after_props = plugin.properties
        plugin.properties = before
        try:
            self._run(r.UPDATE, args, deadline, cancel, done, interval)
        finally:
            plugin.properties = after_props
        return True

    def _update_plan(
        self,
        old_properties: Mapping[str, Any] | None,
        old_type: str | None,
        old_definition: Any,
    ) -> tuple[props_mod.Properties | None, dict[str, Any], Any] | None:
        """What an in-place update would be given: ``(before,
        prop_diff, tmpl_diff)``; None when nothing changed.

        :raises UpdateReplace: the resource must be replaced.
        """
        if self.needs_replace(old_type, old_definition):
            raise UpdateReplace(self.name)
        before = decide.before_properties(self.plugin, old_properties)
        decided = decide.plugin_needs_update(
            self.plugin, old_definition, before
        )
        if decided is False:
            return None
        prop_diff = self._prop_diff(old_properties, before)
        tmpl_diff = self._tmpl_diff(old_definition, bool(prop_diff))
        if (
            not decided
            and not prop_diff
            and (tmpl_diff is None or not tmpl_diff.changed())
        ):
            return None
        plugin = self.plugin
        if not lifecycle.updates_in_place(plugin):
            if not prop_diff:
                return None
            raise UpdateReplace(self.name)
        if (
            tmpl_diff
            and lifecycle.replaces_on_template_diff(plugin)
            and plugin.needs_replace_with_tmpl_diff(tmpl_diff)
        ):
            raise UpdateReplace(self.name)
        return before, prop_diff, tmpl_diff

    def _refuse_restricted(
        self, action: str, restricted: Collection[str]
    ) -> None:
        """Fail the update when ``action`` is restricted for the resource:
        an ``UPDATE FAILED`` event says so, the row keeps its state (as
        Heat's)."""
        if action not in restricted:
            return
        exc = exception.ResourceActionRestricted(action=action)
        self._event(r.UPDATE, r.FAILED, str(exc))
        raise ResourceActionFailed(r.UPDATE, failure_text(exc, self.name))

    def _tmpl_diff(self, old_definition: Any, properties_changed: bool) -> Any:
        """What changed in the definition (Heat's ``tmpl_diff``); None
        when the definitions cannot tell (not built from templates)."""
        diff = getattr(self.definition, "template_diff", None)
        if diff is None or old_definition is None:
            return None
        return diff(old_definition, properties_changed)

    def keep(self, template_id: int, requires: list[int]) -> None:
        """An update that leaves the resource as it is: only the row's
        template id and requirements move to the new traversal."""
        new_requires = sorted(set(requires), reverse=True)
        again = self._current_again()
        self.lock.respect(
            {
                "current_template_id": template_id,
                "requires": new_requires,
                **again,
            }
        )
        self.row.current_template_id = template_id
        self.row.requires = new_requires
        self.row.replaced_by = None
        self.row.atomic_key = self.lock.state.atomic_key

    def _current_again(self) -> dict[str, Any]:
        """Forget a replacement of an older traversal (one that failed,
        say, before the user updated back to this resource's definition):
        the traversal updating this row chose it over that replacement,
        so it is the resource's current row again."""
        return {"replaced_by": None} if self.row.replaced_by else {}

    def stack_action(
        self,
        action: str,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        interval: float = 1.0,
    ) -> None:
        """SUSPEND, RESUME, CHECK or SNAPSHOT of one resource."""
        row = self.row
        if (
            action == r.CHECK
            and lifecycle.action_hooks(self.plugin, action).handle is None
        ):
            if row.action != r.INIT:
                kind = self.definition.resource_type
                reason = f"CHECK not supported for {kind}"
                self._set(self._respect, r.CHECK, r.COMPLETE, reason)
            return
        problem = None
        state = f"('{row.action}', '{row.status}')"
        if action == r.CHECK and row.action == r.INIT:
            problem = f"Can not check {self.name}, resource not created yet."
        elif action == r.SUSPEND and (
            row.action == r.DELETE
            or (row.action != r.SUSPEND and row.status != r.COMPLETE)
        ):
            problem = f"State {state} invalid for suspend"
        elif action == r.RESUME and (row.action, row.status) not in (
            (r.SUSPEND, r.COMPLETE),
            (r.RESUME, r.FAILED),
            (r.RESUME, r.COMPLETE),
        ):
            problem = f"State {state} invalid for resume"
        if problem is not None:
            text = failure_text(exception.Error(problem), self.name)
            self._set(self._respect, action, r.FAILED, text)
            raise ResourceActionFailed(action, text)
        self._run(action, (), deadline, cancel, {}, interval, locking=False)

    def _prop_diff(
        self,
        old_properties: Mapping[str, Any] | None,
        before: props_mod.Properties | None,
    ) -> dict[str, Any]:
        """Changed properties, checked against what may change in place.

        A plugin_api Resource decides itself (immutable properties,
        ``update_allowed``, ``needs_replace_with_prop_diff``); a bare
        plugin object may change ``update_allowed_properties`` only.

        :param before: the stored values as the plugin's Properties
            (:func:`.update_decision.before_properties`; None for a
            bare plugin object).
        :raises UpdateReplace: a change needs a replacement.
        :raises ResourceActionFailed: a change is not allowed at all.
        """
        plugin = self.plugin
        if isinstance(plugin, PluginResource) and before is not None:
            try:
                return dict(
                    plugin.update_template_diff_properties(
                        plugin.properties, before
                    )
                )
            except Exception as exc:
                if _is_update_replace(exc):
                    raise
                self._set(
                    self._acquire, r.UPDATE, r.IN_PROGRESS, "state changed"
                )
                text = failure_text(exc, self.name)
                self._set(self._release, r.UPDATE, r.FAILED, text)
                raise ResourceActionFailed(r.UPDATE, text) from exc
        old = dict(old_properties or {})
        diff = {k: v for k, v in self.properties.items() if old.get(k) != v}
        diff.update(dict.fromkeys(set(old) - set(self.properties)))
        allowed = (
            set(plugin.update_allowed_properties)
            if lifecycle.declares_update_allowed(plugin)
            else set()
        )
        if not set(diff) <= allowed:
            raise UpdateReplace(self.name)
        return diff

    def attributes_for(self, names: set[Any]) -> dict[Any, Any]:
        """Values of the attributes successors reference (None on error)."""
        plugin = self.plugin
        if not lifecycle.has_attributes(plugin):
            return {}
        out: dict[Any, Any] = {}
        for name in names:
            # ``(attr, *path)``: the resource follows the path (a group's
            # ``attributes`` or ``resource.<n>`` need it), as Heat's
            # FnGetAtt(attr, *path); the value is sent under that key
            attr, path = (
                (name[0], name[1:]) if isinstance(name, tuple) else (name, ())
            )
            try:
                out[name] = plugin.FnGetAtt(attr, *path)
            except Exception:  # an unresolvable attribute resolves to null
                out[name] = None
        return out

    def reference_id(self) -> str:
        """``get_resource``/``Ref`` of this resource."""
        plugin = self.plugin
        if lifecycle.has_reference(plugin):
            try:
                return str(plugin.FnGetRefId())
            except Exception:
                return self.row.physical_id or self.name
        return self.row.physical_id or self.name

    def delete(
        self,
        deadline: float | None = None,
        cancel: threading.Event | None = None,
        interval: float = 1.0,
        retain: bool = False,
    ) -> None:
        """Delete (rows never created are simply removed).

        :param retain: keep the physical resource whatever the deletion
            policy (stack abandon).
        """
        if self.row.action == r.INIT:
            self.store.delete_resource(self.row.id)
            return
        policy = getattr(self.definition, "deletion_policy", "Delete")
        if callable(policy):
            policy = policy()
        keep = retain or policy == "Retain"
        plugin = object() if keep else self.plugin
        real_plugin, self.plugin = self.plugin, plugin
        try:
            self._run(r.DELETE, (), deadline, cancel, {}, interval)
        finally:
            self.plugin = real_plugin
