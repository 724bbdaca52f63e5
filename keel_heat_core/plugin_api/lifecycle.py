"""Default lifecycle hooks of a Resource.

The engine calls, for an action ``A``, ``handle_<a>()`` once and then
``check_<a>_complete(handle_data)`` until it returns true.  A missing
``handle_<a>`` means there is nothing to do; a missing
``check_<a>_complete`` means the action is done when the handle returns.
So the base class only defines the hooks whose default does something:

* ``handle_update`` asks for replacement when any property changed;
* ``handle_delete`` deletes ``entity`` through the default client;
* ``handle_adopt`` stores the id, data and metadata it is given.

Hooks a plugin may add (the engine looks them up by name):
``handle_create``, ``check_create_complete``, ``check_update_complete``,
``check_delete_complete``, ``handle_suspend``/``handle_resume``,
``handle_check``, ``handle_snapshot``, ``handle_snapshot_delete`` (needed
by the ``Snapshot`` deletion policy), ``handle_delete_snapshot``,
``handle_restore(defn, data)``, ``handle_signal(details)``,
``handle_metadata_reset``, ``handle_<a>_cancel(handle_data)``, each with
its ``check_*_complete``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core import exception


def signal_event_reason(details: Any, signal_result: Any) -> str:
    """The reason of the SIGNAL event written after ``handle_signal``.

    :param details: the signal's data.
    :param signal_result: what ``handle_signal`` returned.
    """
    if signal_result:
        return f"Signal: {signal_result}"
    if details is None:
        return "No signal details provided"
    if isinstance(details, str):
        return details
    if isinstance(details, Mapping) and all(
        k in details for k in ("previous", "current", "reason")
    ):
        change = "{previous} to {current} ({reason})".format(**details)
        return f"alarm state changed from {change}"
    return "Unknown"


class LifecycleHooks:
    """Mixin with the default hooks (see the module docstring)."""

    def handle_update(
        self: Any, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> Any:
        """Default: a changed property needs a replacement.

        :param json_snippet: the new resource definition.
        :param tmpl_diff: what changed in the definition besides properties
            (``metadata_changed()``, ``update_policy_changed()``...).
        :param prop_diff: ``{name: new value}`` of changed properties.
        :raises UpdateReplace: when ``prop_diff`` is not empty.
        """
        if prop_diff:
            raise exception.UpdateReplace(self.name)
        return None

    def handle_delete(self: Any) -> Any:
        """Default: delete ``entity`` through the client, if any.

        Not-found errors are ignored (the object is already gone).
        """
        if self.entity and self.resource_id is not None:
            with self.client_plugin().ignore_not_found:
                getattr(self.client(), self.entity).delete(self.resource_id)
                return self.resource_id
        return None

    def handle_adopt(self: Any, resource_data: Mapping[str, Any]) -> None:
        """Take over an existing physical resource (stack adopt).

        :param resource_data: ``{"resource_id", "resource_data",
            "metadata"}`` from the adopt data.
        :raises ResourceFailure: without a resource id.
        """
        resource_id = resource_data.get("resource_id")
        data = resource_data.get("resource_data")
        metadata = resource_data.get("metadata")
        if not resource_id:
            raise exception.ResourceFailure(
                Exception("Resource ID was not provided."), self
            )
        self.resource_id_set(resource_id)
        if data and isinstance(data, dict):
            for key, value in data.items():
                self.data_set(key, value)
        self.metadata_set(dict(metadata or {}))

    def prepare_for_replace(self: Any) -> None:
        """Called on the old resource before its replacement is created."""

    def restore_prev_rsrc(self: Any, convergence: bool = False) -> None:
        """Called on rollback to bring back a replaced resource."""

    def handle_preempt(self: Any) -> None:
        """Called when a newer traversal preempts the current action."""

    def add_dependencies(self: Any, deps: Any) -> None:
        """Add implicit dependencies (besides those of the template)."""

    def add_explicit_dependencies(self: Any, deps: Any) -> None:
        """Hook kept for Heat compatibility; the engine adds them."""

    def _verify_check_conditions(
        self: Any, checks: list[dict[str, Any]]
    ) -> None:
        """Fail a CHECK when some ``current`` differs from ``expected``.

        :param checks: ``[{"attr", "expected", "current"}]``; ``expected``
            may be a list of acceptable values.
        :raises Error: ``'attr': expected 'x', got 'y'`` joined by ``; ``.
        """

        def valid(check: Mapping[str, Any]) -> bool:
            if isinstance(check["expected"], list):
                return check["current"] in check["expected"]
            return bool(check["current"] == check["expected"])

        invalid = [
            "'{attr}': expected '{expected}', got '{current}'".format(**check)
            for check in checks
            if not valid(check)
        ]
        if invalid:
            raise exception.Error("; ".join(invalid))

    def get_live_resource_data(self: Any) -> Any:
        """The service's view of the object (``_show_resource``).

        :raises EntityNotFound: when the service does not know it.
        """
        try:
            return self._show_resource()
        except Exception as ex:
            if self.default_client_name is not None and (
                self.client_plugin().is_not_found(ex)
            ):
                raise exception.EntityNotFound(
                    entity="Resource", name=self.name
                ) from ex
            raise

    def parse_live_resource_data(
        self: Any,
        resource_properties: Mapping[str, Any],
        resource_data: Mapping[str, Any],
    ) -> dict[str, Any]:
        """Pick the updatable properties out of the live data."""
        result: dict[str, Any] = {}
        for key in self.calc_update_allowed(self.properties):
            if key in resource_data:
                if key == "name" and resource_properties.get(key) is None:
                    continue
                result[key] = resource_data.get(key)
        return result

    def get_live_state(
        self: Any, resource_properties: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Live property values, for ``observe_on_update``."""
        data = self.get_live_resource_data()
        if data is None:
            return {}
        live: dict[str, Any] = self.parse_live_resource_data(
            resource_properties, data
        )
        return live
