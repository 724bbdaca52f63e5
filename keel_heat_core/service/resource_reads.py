"""Resource listing and show as the engine API returns them.

``list_stack_resources`` filters on the stored rows (name, action,
status, DB id, physical id), matches ``type`` as a substring of the
resource type, walks nested stacks down to ``nested_depth`` and, with
``with_detail`` (and always on show), adds each resource's description
and live attribute values, as Heat's ``format_stack_resource`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from keel_heat_core.db import exceptions as db_exceptions
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.model import rows as r
from keel_heat_core.service import db_stores, views
from keel_heat_core.service.stack_api import StackAPI

#: the DB filters of a resource list, and the row field each one reads
_ROW_FIELDS = {
    "name": "name",
    "action": "action",
    "status": "status",
    "id": "id",
    "physical_resource_id": "physical_id",
}
_STATUSES = ("COMPLETE", "FAILED", "IN_PROGRESS")


def _values(value: Any) -> list[str]:
    if isinstance(value, (list, tuple, set)):
        return [str(item) for item in value]
    return [str(value)]


def row_filters(filters: Mapping[str, Any] | None) -> dict[str, set[str]]:
    """The row filters of a query: ``status=CREATE_FAILED`` is split into
    action ``CREATE`` and status ``FAILED`` (Heat's status parsing)."""
    out: dict[str, set[str]] = {}
    for key, value in (filters or {}).items():
        if key in _ROW_FIELDS and value not in (None, "", []):
            out[key] = set(_values(value))
    if "status" in out:
        statuses, actions = set(), set()
        for val in out["status"]:
            for status in _STATUSES:
                index = val.rfind(status)
                if index != -1:
                    statuses.add(val[index:])
                    if index > 1:
                        actions.add(val[: index - 1])
                    break
        out["status"] = statuses
        if actions:
            out["action"] = out.get("action", set()) | actions
    return out


def _matches(row: r.ResourceRow, wanted: Mapping[str, set[str]]) -> bool:
    for key, values in wanted.items():
        found = getattr(row, _ROW_FIELDS[key])
        if found is None or str(found) not in values:
            return False
    return True


def _type_matches(resource_type: str, wanted: Any) -> bool:
    if wanted in (None, ""):
        return True
    return any(value in resource_type for value in _values(wanted))


def attributes_of(
    plugin: Any, with_attr: list[str] | None = None
) -> dict[str, Any]:
    """Live attribute values of a resource; one that cannot be resolved
    is ``None``. A ``show`` that resolves to a mapping is the answer
    (plus the ``with_attr`` names it lacks)."""
    extra = list(with_attr or [])

    def resolve(name: str) -> Any:
        try:
            return plugin.FnGetAtt(name)
        except Exception:
            return None

    schema = list(getattr(plugin, "attributes_schema", {}) or {})
    if "show" in schema:
        shown = resolve("show")
        if isinstance(shown, Mapping):
            out = dict(shown)
            for name in extra:
                if name not in out:
                    out[name] = resolve(name)
            return out
    names = list(dict.fromkeys(schema + extra))
    return {name: resolve(name) for name in names}


class ResourceReads:
    """The resources of one stack (and its nested stacks) for the API."""

    def __init__(
        self, api: StackAPI, view_factory: Callable[..., Any]
    ) -> None:
        self.api = api
        #: builds the attribute-resolving view of a stack (``RowsView``)
        self.view_factory = view_factory

    def live_rows(self, stack: r.StackRow) -> list[r.ResourceRow]:
        return [
            row
            for row in self.api.deps.resources.get_resources(stack.id)
            if row.replaced_by is None
            and not (row.action == r.DELETE and row.status == r.COMPLETE)
        ]

    def _children(self, stack: r.StackRow) -> dict[str, r.StackRow]:
        """Nested stacks of ``stack`` by the name of their resource."""
        out: dict[str, r.StackRow] = {}
        for rec in stack_repo.get_all_by_owner_id(self.api.db, stack.id):
            child = db_stores.stack_row(rec)
            if child.parent_resource_name:
                out[child.parent_resource_name] = child
        return out

    def items(
        self,
        stack: r.StackRow,
        depth: int = 0,
        filters: Mapping[str, Any] | None = None,
        detail: bool = False,
        with_attr: list[str] | None = None,
        names: set[str] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Resource dicts of ``stack``; nested ones follow their parent
        resource while ``depth`` is above 0."""
        wanted = dict(filters or {})
        res_type = wanted.pop("type", None)
        row_wanted = row_filters(wanted)
        stored = self.api.stored(stack)
        rows = self.live_rows(stack)
        required_by: dict[str, list[str]] = {}
        for name in stored:
            for dep in stored.dependency_names(name):
                required_by.setdefault(dep, []).append(name)
        children = self._children(stack) if rows else {}
        templates: dict[int | None, Any] = {
            None: stored,
            stack.raw_template_id: stored,
        }
        view = None
        for row in rows:
            if names is not None and row.name not in names:
                continue
            own = self._own_template(stack, stored, row, templates)
            rtype = own[row.name].resource_type if row.name in own else ""
            child = children.get(row.name)
            if _type_matches(rtype, res_type) and _matches(row, row_wanted):
                item = views.resource(
                    stack, row, rtype, required_by.get(row.name)
                )
                if child is not None:
                    item["nested_stack_id"] = views.identity(child)
                if stack.parent_resource_name:
                    item["parent_resource"] = stack.parent_resource_name
                if detail:
                    if view is None:
                        view = self.view_factory(self.api, stack, stored)
                    item["description"] = (
                        own[row.name].description if row.name in own else ""
                    )
                    item["attributes"] = self._attributes(
                        view, row.name, with_attr
                    )
                yield item
            if child is not None and depth > 0:
                yield from self.items(
                    child, depth - 1, filters, detail, with_attr
                )

    def _own_template(
        self,
        stack: r.StackRow,
        stored: Any,
        row: r.ResourceRow,
        templates: dict[int | None, Any],
    ) -> Any:
        """The parsed template the row was last converged with.

        After a failed update a resource can still belong to an older
        template than the stack's: its type and description are read from
        that one, as Heat does. A template purged since counts as the
        stack's own.
        """
        template_id = row.current_template_id
        if template_id not in templates:
            try:
                templates[template_id] = self.api.stored(stack, template_id)
            except db_exceptions.NotFound:
                templates[template_id] = stored
        return templates[template_id]

    @staticmethod
    def _attributes(
        view: Any, name: str, with_attr: list[str] | None
    ) -> dict[str, Any]:
        try:
            plugin = view.plugin(name)
        except Exception:
            return dict.fromkeys(with_attr or [])
        return attributes_of(plugin, with_attr)
