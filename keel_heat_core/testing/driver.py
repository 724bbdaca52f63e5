"""Drive a resource through its lifecycle the way the engine does.

:class:`ResourceDriver` runs ``handle_<action>`` and then polls
``check_<action>_complete`` (without sleeping), sets the resource's action
and status, and for updates takes the same decisions as the engine
(no change, update in place, replacement, refusal).  It is meant for unit
tests of plugins; engine-path tests use the real engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core import exception
from keel_heat_core.plugin_api.resource import PollDelay, Resource
from keel_heat_core.plugin_api.runtime import MemoryResourceStore
from keel_heat_core.testing.fakes import FakeDefinition, FakeStack

#: Update outcomes returned by :meth:`ResourceDriver.update`.
UPDATE_OUTCOMES = (NO_CHANGE, UPDATED, REPLACE) = (
    "no change",
    "updated",
    "replace",
)


class PollLimitExceeded(AssertionError):
    """``check_*_complete`` never returned true within the poll limit."""


class ResourceDriver:
    """Builds resources in a fake stack and runs their actions.

    :param stack: the stack facade (default: a new :class:`FakeStack`).
    :param max_polls: how many ``check_*_complete`` calls before giving up.
    """

    def __init__(
        self, stack: FakeStack | None = None, max_polls: int = 50
    ) -> None:
        self.stack = stack or FakeStack()
        self.max_polls = max_polls
        self._next_id = 1

    def resource(
        self,
        name: str,
        cls: type[Resource],
        properties: Mapping[str, Any] | None = None,
        type_name: str | None = None,
        **definition: Any,
    ) -> Any:
        """Make a resource of class ``cls`` in the stack (state INIT)."""
        defn = FakeDefinition(
            name, type_name or cls.__name__, properties, **definition
        )
        res = cls(name, defn, self.stack)
        res.attach_store(MemoryResourceStore())
        self.stack.resources[name] = res
        return res

    def run(self, res: Resource, action: str, *args: Any) -> Any:
        """Run one action; returns the handle's data.

        :raises ResourceFailure: when a hook raises, after setting FAILED.
        """
        if res.id is None:
            res.id = self._next_id
            self._next_id += 1
        res.action, res.status = action, res.IN_PROGRESS
        lower = action.lower()
        try:
            handle = getattr(res, f"handle_{lower}", None)
            data = handle(*args) if handle is not None else None
            check = getattr(res, f"check_{lower}_complete", None)
            if check is not None:
                self._poll(check, data)
        except (exception.UpdateReplace, PollLimitExceeded):
            raise
        except Exception as exc:
            res.status = res.FAILED
            res.status_reason = f"{type(exc).__name__}: {exc}"
            raise exception.ResourceFailure(exc, res, action) from exc
        res.status = res.COMPLETE
        res.status_reason = "state changed"
        if res.attributes is not None:
            res.attributes.reset_resolved_values()
        return data

    def _poll(self, check: Any, data: Any) -> None:
        for _ in range(self.max_polls):
            try:
                if check(data):
                    return
            except PollDelay:
                continue
        raise PollLimitExceeded(f"{check.__name__} never completed")

    def create(self, res: Resource) -> Any:
        """Validate then create ``res``."""
        res.validate()
        return self.run(res, res.CREATE)

    def delete(self, res: Resource) -> Any:
        return self.run(res, res.DELETE)

    def suspend(self, res: Resource) -> Any:
        return self.run(res, res.SUSPEND)

    def resume(self, res: Resource) -> Any:
        return self.run(res, res.RESUME)

    def check(self, res: Resource) -> Any:
        return self.run(res, res.CHECK)

    def update(
        self,
        res: Resource,
        properties: Mapping[str, Any] | None = None,
        **definition: Any,
    ) -> str:
        """Update ``res`` to new properties as the engine would.

        :returns: one of :data:`UPDATE_OUTCOMES`; on ``replace`` nothing
            was run (the engine would create a new resource).
        :raises NotSupported: when an immutable property changed.
        """
        before: FakeDefinition = res.t
        after = FakeDefinition(
            res.name,
            before.resource_type,
            properties if properties is not None else before.raw_properties,
            **definition,
        )
        before_props = before.properties(res.properties_schema, res.context)
        after_props = after.properties(res.properties_schema, res.context)
        res.translate_properties(before_props, ignore_resolve_error=True)
        res.translate_properties(after_props)
        try:
            if not res._needs_update(
                after, before, after_props, before_props, None
            ):
                return NO_CHANGE
            tmpl_diff = after - before
            if tmpl_diff and res.needs_replace_with_tmpl_diff(tmpl_diff):
                raise exception.UpdateReplace(res)
            prop_diff = res.update_template_diff_properties(
                after_props, before_props
            )
            self.run(res, res.UPDATE, after, tmpl_diff, prop_diff)
        except exception.UpdateReplace:
            res.action, res.status = res.UPDATE, res.COMPLETE
            return REPLACE
        # As the engine does once the update is done: the resource now
        # reads the new properties.
        res.t = after
        res.properties = after_props
        return UPDATED

    def signal(self, res: Resource, details: Any = None) -> Any:
        """Deliver a signal as the engine does (refused while suspended or
        deleted).

        :raises ResourceFailure: when ``handle_signal`` fails.
        """
        if res.action in res.no_signal_actions:
            raise exception.NotSupported(
                feature=f"Signal resource during {res.action}"
            )
        handler = getattr(res, "handle_signal", None)
        if handler is None:
            raise exception.ResourceActionNotSupported(action="Signal")
        try:
            return handler(details)
        except exception.NoActionRequired:
            return None
        except Exception as exc:
            raise exception.ResourceFailure(exc, res, "SIGNAL") from exc
