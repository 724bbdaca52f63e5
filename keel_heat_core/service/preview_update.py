"""What an update would do (engine ``preview_update_stack``), resource by
resource, as Heat's update preview answers it.

A resource of both templates is

* ``replaced`` when its type resolves to another class through the
  environments, when its state asks for a replacement (FAILED,
  DELETE_COMPLETE), or when the plugin says the change needs one (a
  changed property that may not change in place, ``update_replace`` of
  ``OS::Heat::TestResource``, a template change such as a new
  ``metadata`` where the type says so);
* ``updated`` when its definition or its property values change, and
  always when it owns a child stack (an update always reaches the child,
  whose resources then decide for themselves);
* ``unchanged`` otherwise.

The property values it has now are the stored ones; the new ones are
resolved against the new template without any resource (an attribute
reads as null), as Heat's preview resolves them.

With ``show_nested``, child stacks are previewed too and their entries
carry ``parent_resource``: an ``updated`` child owner compares its child
stack (from the database) with the child the new template would build; a
``deleted`` or ``replaced`` one lists its child's resources (to the
bottom) as ``deleted``, an ``added`` or ``replaced`` one the new child's
as ``added``.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Any

from keel_heat_core import exception
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.exception import UpdateReplace
from keel_heat_core.model import rows as r
from keel_heat_core.model.definitions import BoundDefinition, StoredTemplate
from keel_heat_core.plugin_api import properties as props_mod
from keel_heat_core.plugin_api.resource import Resource as PluginResource
from keel_heat_core.plugin_api.stack_resource import StackResource
from keel_heat_core.service import db_stores, preview_nested, views
from keel_heat_core.template.protocols import PendingStackView

LOG = logging.getLogger(__name__)

SECTIONS = ("unchanged", "updated", "replaced", "added", "deleted")

#: ``(ctxt, stack name, stored template) -> preview`` of a child stack
MakePreview = preview_nested.MakePreview
#: ``stack row -> its parsed template``
LoadStored = Callable[[r.StackRow], StoredTemplate]


class UpdatePreview:
    """The resource changes of an update, child stacks included on
    request.

    :param db: the database (the stack's rows and child stacks).
    :param load_stored: the parsed template a stack row has now.
    :param make: builds the preview of a child stack (validated).
    :param depth: how many levels of child stacks to follow.
    """

    def __init__(
        self, db: Any, load_stored: LoadStored, make: MakePreview, depth: int
    ) -> None:
        self.db = db
        self.load_stored = load_stored
        self.make = make
        self.depth = depth

    def changes(
        self,
        stack: r.StackRow,
        current: StoredTemplate,
        preview: Any,
        show_nested: bool = False,
    ) -> dict[str, list[Any]]:
        """Heat's ``resource_changes`` of updating ``stack`` (whose
        template is ``current``) to ``preview`` (a validated preview of
        the new template)."""
        out: dict[str, list[Any]] = {key: [] for key in SECTIONS}
        depth = self.depth if show_nested else 0
        self._compare(stack, current, preview, out, depth)
        return out

    # -- one stack against its new template -------------------------------

    def _compare(
        self,
        stack: r.StackRow,
        current: StoredTemplate,
        preview: Any,
        out: dict[str, list[Any]],
        depth: int,
    ) -> None:
        rows = _current_rows(self.db, stack.id)
        old_defs = current.stack_definition(
            PendingStackView()
        ).resource_definitions()
        new_defs = preview.stored.stack_definition(
            PendingStackView()
        ).resource_definitions()
        required_by = preview.required_by()
        act: dict[str, list[str]] = {key: [] for key in SECTIONS}
        for name in preview.stored:
            if name not in old_defs:
                kind = "added"
            else:
                kind = _decide(
                    preview, name, rows.get(name), current, old_defs, new_defs
                )
            act[kind].append(name)
            if kind == "updated":
                out[kind].append(
                    _current_view(
                        stack,
                        rows.get(name),
                        name,
                        current[name].resource_type,
                    )
                )
            else:
                out[kind].append(
                    _new_view(preview, name, required_by.get(name, []))
                )
        for name in old_defs:
            if name not in new_defs:
                act["deleted"].append(name)
                out["deleted"].append(
                    _current_view(
                        stack,
                        rows.get(name),
                        name,
                        old_defs[name].resource_type,
                    )
                )
        if depth <= 0:
            return
        children = {
            child.id: db_stores.stack_row(child)
            for child in stack_repo.get_all_by_owner_id(self.db, stack.id)
        }

        def child_of(name: str) -> r.StackRow | None:
            row = rows.get(name)
            if row is None or not row.physical_id:
                return None
            return children.get(row.physical_id)

        for name in act["deleted"] + act["replaced"]:
            child = child_of(name)
            if child is not None:
                self._all_deleted(child, out, depth - 1)
        for name in act["added"] + act["replaced"]:
            self._all_added(preview, name, out, depth - 1)
        for name in act["updated"]:
            child = child_of(name)
            new_child = self._new_child(preview, name)
            if child is not None and new_child is not None:
                self._compare(
                    child,
                    self.load_stored(child),
                    new_child,
                    out,
                    depth - 1,
                )

    # -- whole child stacks -------------------------------------------------

    def _all_deleted(
        self, stack: r.StackRow, out: dict[str, list[Any]], depth: int
    ) -> None:
        rows = _current_rows(self.db, stack.id)
        stored = self.load_stored(stack)
        for name, row in rows.items():
            rtype = stored[name].resource_type if name in stored else ""
            out["deleted"].append(_current_view(stack, row, name, rtype))
        if depth <= 0:
            return
        for child in stack_repo.get_all_by_owner_id(self.db, stack.id):
            self._all_deleted(db_stores.stack_row(child), out, depth - 1)

    def _all_added(
        self, preview: Any, name: str, out: dict[str, list[Any]], depth: int
    ) -> None:
        nested = self._new_child(preview, name)
        if nested is None:
            return
        required_by = nested.required_by()
        for child_name in nested.stored:
            out["added"].append(
                _new_view(nested, child_name, required_by.get(child_name, []))
            )
            if depth > 0:
                self._all_added(nested, child_name, out, depth - 1)

    def _new_child(self, preview: Any, name: str) -> Any:
        """The preview of the child stack resource ``name`` of the new
        template would have (None: it owns none)."""
        return preview_nested.child(preview, name, self.make)


def _current_rows(db: Any, stack_id: str) -> dict[str, r.ResourceRow]:
    """The row of each resource the stack has now (not a row that was
    replaced, when there is its replacement)."""
    rows: dict[str, r.ResourceRow] = {}
    for rec in resource_repo.get_all_by_stack(db, stack_id):
        row = db_stores.resource_row(rec)
        kept = rows.get(row.name)
        if kept is None or kept.replaced_by is not None:
            rows[row.name] = row
    return rows


def _class(stored: StoredTemplate, resource_type: str, name: str) -> Any:
    try:
        return stored.env.get_class_to_instantiate(resource_type, name)
    except exception.HeatException:
        return None


def _decide(
    preview: Any,
    name: str,
    row: r.ResourceRow | None,
    current: StoredTemplate,
    old_defs: dict[str, Any],
    new_defs: dict[str, Any],
) -> str:
    """``unchanged``, ``updated`` or ``replaced`` for a resource of both
    templates."""
    old_type = current[name].resource_type
    new_type = preview.stored[name].resource_type
    old_cls = _class(current, old_type, name)
    new_cls = _class(preview.stored, new_type, name)
    if old_cls is None or new_cls is None:
        if old_type != new_type:
            return "replaced"
    elif old_cls is not new_cls:
        return "replaced"
    res = preview_nested.instance(preview, name)
    old, new = old_defs[name], new_defs[name]
    if not isinstance(res, PluginResource):
        return "unchanged" if _same_definition(old, new) else "updated"
    try:
        return _plugin_decides(res, row, current[name], preview.stored[name])
    except UpdateReplace:
        return "replaced"


def _plugin_decides(
    res: PluginResource, row: r.ResourceRow | None, old_def: Any, new_def: Any
) -> str:
    """What the plugin makes of the change, as it does at update time.

    :raises UpdateReplace: it needs a replacement.
    """
    probe = copy.copy(res)  # the preview's object keeps its INIT state
    if row is not None:
        probe.action, probe.status = row.action, row.status
        probe.status_reason = row.status_reason
        probe.resource_id = row.physical_id
    before_bound = BoundDefinition(old_def.template_definition)
    after_bound = BoundDefinition(new_def.template_definition)
    stored_values = row.properties if row is not None else None
    if stored_values is None:
        stored_values = before_bound.properties_data() or {}
    before_props = props_mod.Properties(
        probe.properties_schema,
        dict(stored_values),
        context=probe.context,
        section="Properties",
    )
    probe.translate_properties(before_props, ignore_resolve_error=True)
    after_props = probe.properties
    needs = probe._needs_update(
        after_bound,
        before_bound,
        after_props,
        before_props,
        None,
        check_init_complete=False,
    )
    if isinstance(probe, StackResource) and (
        type(probe)._needs_update is PluginResource._needs_update
    ):
        needs = True  # the child stack's resources decide for themselves
    if not needs:
        return "unchanged"
    try:
        props_changed = bool(before_props != after_props)
    except Exception:  # a value that no longer resolves
        props_changed = True
    tmpl_diff = new_def.template_diff(old_def, props_changed)
    if tmpl_diff and probe.needs_replace_with_tmpl_diff(tmpl_diff):
        raise UpdateReplace(probe.name)
    probe.update_template_diff_properties(after_props, before_props)
    return "updated"


def _same_definition(old: Any, new: Any) -> bool:
    """Whether an update leaves a resource alone: the same snippet and
    the same resolved properties, metadata and update policy (a changed
    parameter value changes the latter, not the snippet)."""
    if old.render_hot() != new.render_hot():
        return False
    for part in ("properties_data", "metadata", "update_policy_data"):
        try:
            if getattr(old, part)() != getattr(new, part)():
                return False
        except Exception:
            return False
    return True


def _new_view(preview: Any, name: str, required_by: list[str]) -> Any:
    """A resource of the new template (added, replaced, unchanged)."""
    view = preview.resource_view(name, required_by)
    view.pop("properties", None)
    parent = preview.row.parent_resource_name
    if parent:
        view["parent_resource"] = parent
    return view


def _current_view(
    stack: r.StackRow,
    row: r.ResourceRow | None,
    name: str,
    resource_type: str,
) -> dict[str, Any]:
    """A resource as the stack has it now (updated, deleted)."""
    if row is None:
        out: dict[str, Any] = {
            "resource_name": name,
            "resource_type": resource_type,
        }
    else:
        out = views.resource(stack, row, resource_type, description="")
    if stack.parent_resource_name:
        out["parent_resource"] = stack.parent_resource_name
    return out
