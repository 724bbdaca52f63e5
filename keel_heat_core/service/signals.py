"""``resource_signal`` and ``resource_mark_unhealthy``, with Heat's
checks and answers.

A signal is checked at once (the resource exists and is stored, its
action allows signals, an ``unset_hook`` names a hook that is set), then
handed to the plugin's ``handle_signal`` in a thread of this engine, or
inline with ``sync_call`` or when the type has no handler (so the caller
gets Heat's ``ResourceActionNotSupported``). The outcome is a ``SIGNAL``
event; the resource's state does not change.

Signals do not take the resource lock, as in Heat: a deployment or wait
condition is signalled while its own create holds the lock. Writes the
handler makes (metadata) are compare-and-swaps; a handler that lost such
a race is run again.

Marking a resource (un)healthy holds the resource lock while it writes
``CHECK_FAILED`` or ``CHECK_COMPLETE``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.model import rows as r
from keel_heat_core.plugin_api import lifecycle
from keel_heat_core.plugin_api.resource import Resource
from keel_heat_core.service.stack_api import StackAPI
from keel_heat_core.template.registry import HOOK_TYPES
from keel_heat_core.worker import hooks
from keel_heat_core.worker.lock import (
    LockState,
    ResourceLock,
    UpdateInProgress,
)

LOG = logging.getLogger(__name__)

SIGNAL = "SIGNAL"
DEFAULT_UNHEALTHY_REASON = "state changed by resource_mark_unhealthy api"
#: runs of a handler that lost a metadata compare-and-swap
SIGNAL_ATTEMPTS = 5


def _spawn(work: Callable[[], None]) -> None:
    threading.Thread(target=work, name="keel-heat-signal", daemon=True).start()


def _unsets_hook(details: Any) -> bool:
    return isinstance(details, Mapping) and "unset_hook" in details


def _clears_post_delete(details: Any) -> bool:
    """A ``post-delete`` hook is cleared on a deleted resource, which
    takes no other signal (Heat refuses it, so that hook never clears)."""
    return (
        isinstance(details, Mapping)
        and details.get("unset_hook") == hooks.POST_DELETE
    )


class _Target:
    """A stored resource of a loaded stack, with its plugin."""

    def __init__(
        self, api: StackAPI, stack: r.StackRow, stored: Any, row: r.ResourceRow
    ) -> None:
        self.stack = stack
        self.stored = stored
        self.row = row
        self.definition = stored[row.name]
        self.plugin = api.deps.plugins(
            self.definition, row, dict(row.properties or {}), stack
        )

    @property
    def resource_type(self) -> str:
        return str(self.definition.resource_type)

    def text(self) -> str:
        """Heat's ``str(resource)``, used in hook errors."""
        cls = type(self.plugin).__name__
        stack = f'Stack "{self.stack.name}" [{self.stack.id}]'
        if self.row.physical_id is not None:
            return f'{cls} "{self.row.name}" [{self.row.physical_id}] {stack}'
        return f'{cls} "{self.row.name}" {stack}'


class ResourceSignals:
    """Signals and health marks for resources of this engine's stacks.

    :param api: the stack lifecycle implementation (loading, stores).
    :param spawn: starts the asynchronous part of a signal.
    """

    def __init__(
        self,
        api: StackAPI,
        spawn: Callable[[Callable[[], None]], None] = _spawn,
    ) -> None:
        self.api = api
        self._spawn = spawn

    # -- finding the resource -------------------------------------------------

    def _rows(
        self, stack: r.StackRow, stored: Any
    ) -> dict[str, r.ResourceRow]:
        """The current row of every resource of the template."""
        out: dict[str, r.ResourceRow] = {}
        for row in self.api.deps.resources.get_resources(stack.id):
            if row.name not in stored or row.replaced_by is not None:
                continue
            if row.name not in out or row.id > out[row.name].id:
                out[row.name] = row
        return out

    def _get(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        details: Any = None,
    ) -> _Target:
        stack = self.api.load(ctxt, stack_identity)
        stored = self.api.stored(stack)
        if resource_name not in stored and _unsets_hook(details):
            found = self._leaving(stack, resource_name)
            if found is not None:
                return found
        if resource_name not in stored:
            raise exception.ResourceNotFound(
                resource_name=resource_name, stack_name=stack.name
            )
        row = self._rows(stack, stored).get(resource_name)
        if row is None:
            raise exception.ResourceNotAvailable(resource_name=resource_name)
        return _Target(self.api, stack, stored, row)

    def _leaving(self, stack: r.StackRow, name: str) -> _Target | None:
        """A resource the traversal deletes (absent from the stack's
        template), with the template it was created from: its pre- and
        post-delete hooks are cleared while the stack is deleted. Heat
        cannot find such a resource, so those hooks never clear there."""
        rows = [
            row
            for row in self.api.deps.resources.get_resources(stack.id)
            if row.name == name and row.current_template_id is not None
        ]
        if not rows:
            return None
        row = max(rows, key=lambda x: x.id)
        stored = self.api.stored(stack, row.current_template_id)
        if name not in stored:
            return None
        return _Target(self.api, stack, stored, row)

    def _find(
        self, ctxt: Any, stack_identity: Any, name_or_id: str
    ) -> _Target:
        """By logical name, else by physical id (Heat's
        ``_find_resource_in_stack``)."""
        stack = self.api.load(ctxt, stack_identity)
        stored = self.api.stored(stack)
        rows = self._rows(stack, stored)
        if name_or_id in stored:
            if name_or_id not in rows:
                raise exception.ResourceNotAvailable(resource_name=name_or_id)
            return _Target(self.api, stack, stored, rows[name_or_id])
        matches = [
            row for row in rows.values() if row.physical_id == name_or_id
        ]
        if len(matches) > 1:
            raise exception.PhysicalResourceIDAmbiguity(phys_id=name_or_id)
        if not matches:
            raise exception.ResourceNotFound(
                resource_name=name_or_id, stack_name=stack.name
            )
        return _Target(self.api, stack, stored, matches[0])

    # -- events -------------------------------------------------------------

    def _event(
        self, target: _Target, action: str, status: str, reason: str
    ) -> None:
        self.api.deps.resources.add_event(
            r.EventRecord(
                stack_id=target.stack.id,
                resource_name=target.row.name,
                physical_resource_id=target.row.physical_id,
                resource_type=target.resource_type,
                resource_action=action,
                resource_status=status,
                resource_status_reason=reason[:255],
            )
        )

    # -- signals ------------------------------------------------------------

    def _check_action(self, target: _Target) -> None:
        action, status = target.row.action, target.row.status
        refused = getattr(
            target.plugin, "no_signal_actions", Resource.no_signal_actions
        )
        if action in refused:
            self._event(
                target,
                action,
                status,
                f"Cannot signal resource during {action}",
            )
            raise exception.NotSupported(
                feature=f"Signal resource during {action}"
            )

    def _check_hook(self, target: _Target, details: Any) -> None:
        if not (isinstance(details, Mapping) and "unset_hook" in details):
            return
        hook = details["unset_hook"]
        if hook not in HOOK_TYPES:
            raise exception.InvalidBreakPointHook(
                message=f'Invalid hook type "{hook}" for {target.text()}'
            )
        if target.plugin.data().get(hook) != hooks.PAUSED:
            raise exception.InvalidBreakPointHook(
                message=f'The "{hook}" hook is not defined on {target.text()}'
            )

    def resource_signal(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        details: Any = None,
        sync_call: bool = False,
    ) -> Any:
        """Signal a resource; with ``sync_call`` return its metadata.

        :raises ResourceNotFound: no such resource in the template.
        :raises ResourceNotAvailable: not stored yet.
        :raises NotSupported: during SUSPEND or DELETE.
        :raises InvalidBreakPointHook: a bad ``unset_hook``.
        :raises ResourceActionNotSupported: the type takes no signals.
        """
        target = self._get(ctxt, stack_identity, resource_name, details)
        if not _clears_post_delete(details):
            self._check_action(target)
        self._check_hook(target, details)
        handler = getattr(target.plugin, "handle_signal", None)
        if sync_call or not callable(handler):
            self._signal(target, details, ctxt)
        else:
            self._spawn(lambda: self._signal_logged(target, details, ctxt))
        if sync_call:
            return target.plugin.metadata_get(refresh=True)
        return None

    def _signal_logged(
        self, target: _Target, details: Any, ctxt: Any = None
    ) -> None:
        try:
            self._signal(target, details, ctxt)
        except Exception:
            LOG.info("signal %s failed", target.text(), exc_info=True)

    def _signal(self, target: _Target, details: Any, ctxt: Any = None) -> None:
        if isinstance(details, Mapping) and "unset_hook" in details:
            self._unset_hook(ctxt, target, str(details["unset_hook"]))
            return
        handler = getattr(target.plugin, "handle_signal", None)
        if not callable(handler):
            raise exception.ResourceActionNotSupported(action="signal")
        for attempt in range(SIGNAL_ATTEMPTS):
            try:
                result = handler(details)
            except exception.NoActionRequired:
                return
            except exception.ConcurrentTransaction:
                if attempt + 1 == SIGNAL_ATTEMPTS:
                    raise
                self.api.deps.sleep(0.05 * 2**attempt)
                continue
            except Exception as exc:
                raise exception.ResourceFailure(
                    exception_or_error=exc, resource=target.plugin
                ) from exc
            break
        reason = lifecycle.signal_event_reason(details, result)
        self._event(target, SIGNAL, target.row.status, reason)
        if getattr(target.plugin, "signal_needs_metadata_updates", False):
            self._refresh_metadata(target)

    def _unset_hook(self, ctxt: Any, target: _Target, hook: str) -> None:
        """Clear the marker, record it, and let the parked node go on
        (``worker/hooks.py``)."""
        plugin = target.plugin
        paused_in = plugin.data().get(hooks.traversal_key(hook))
        plugin.data_delete(hook)
        LOG.info("Clearing %s hook on %s", hook, target.text())
        self._event(
            target,
            target.row.action,
            target.row.status,
            f"Hook {hook} is cleared",
        )
        deps = self.api.deps
        stack = deps.stacks.get_stack(target.stack.id) or target.stack
        hooks.resume_parked(
            ctxt,
            deps.caster,
            deps.sync_points,
            stack,
            target.row,
            hook,
            paused_in,
        )

    def _refresh_metadata(self, target: _Target) -> None:
        """Let the other created resources re-read their metadata (only
        types with their own ``metadata_update``: Heat's base is a no-op)."""
        for row in self._rows(target.stack, target.stored).values():
            if row.name == target.row.name or row.action == r.INIT:
                continue
            other = _Target(self.api, target.stack, target.stored, row)
            update = getattr(type(other.plugin), "metadata_update", None)
            if update is None or update is Resource.metadata_update:
                continue
            try:
                other.plugin.metadata_update()
            except Exception:
                LOG.warning(
                    "Metadata update of %s failed", row.name, exc_info=True
                )

    # -- health -------------------------------------------------------------

    def resource_mark_unhealthy(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        mark_unhealthy: Any,
        resource_status_reason: str | None = None,
    ) -> None:
        """``CHECK_FAILED`` (unless deleting), or back to
        ``CHECK_COMPLETE`` from ``CHECK_FAILED``.

        :raises ActionInProgress: the resource lock is held.
        """
        if not isinstance(mark_unhealthy, bool):
            raise exception.Invalid(reason="mark_unhealthy is not a boolean")
        target = self._find(ctxt, stack_identity, resource_name)
        reason = resource_status_reason or DEFAULT_UNHEALTHY_REASON
        row = target.row
        lock = ResourceLock(
            self.api.deps.resources,
            row.id,
            row.name,
            LockState(row.engine_id, row.atomic_key, row.current_template_id),
        )
        engine_id = self.api.deps.engine_id
        try:
            lock.acquire(engine_id, {})
        except UpdateInProgress as exc:
            raise exception.ActionInProgress(
                stack_name=target.stack.name, action=target.stack.action
            ) from exc
        new_state: tuple[str, str] | None = None
        try:
            if mark_unhealthy:
                if row.action != r.DELETE:
                    new_state = (r.CHECK, r.FAILED)
            elif (row.action, row.status) == (r.CHECK, r.FAILED):
                reset = getattr(target.plugin, "handle_metadata_reset", None)
                if callable(reset):
                    reset()
                new_state = (r.CHECK, r.COMPLETE)
        finally:
            values: dict[str, Any] = {}
            if new_state is not None:
                values = {
                    "action": new_state[0],
                    "status": new_state[1],
                    "status_reason": reason,
                }
            lock.release(engine_id, values)
        if new_state is not None and new_state != (row.action, row.status):
            self._event(target, new_state[0], new_state[1], reason)
        if new_state is not None and new_state[1] != r.COMPLETE:
            self._clear_attributes(row.id)

    def _clear_attributes(self, resource_id: int) -> None:
        """A resource that is not COMPLETE keeps no cached attributes."""
        rec = resource_repo.get(self.api.db, resource_id)
        if rec is not None and rec.attr_data_id is not None:
            resource_repo.delete_attr_data(
                self.api.db, resource_id, rec.attr_data_id
            )
