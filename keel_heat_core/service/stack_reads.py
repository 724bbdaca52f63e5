"""Read-only engine API calls on stacks, resources and events."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from keel_heat_core import exception
from keel_heat_core.db import event as event_repo
from keel_heat_core.db import raw_template as template_repo
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.model import rows as r
from keel_heat_core.model.resource_facade import parent_facade
from keel_heat_core.service import db_stores, views
from keel_heat_core.service.resource_reads import ResourceReads
from keel_heat_core.service.stack_api import StackAPI, scope_of
from keel_heat_core.template.protocols import PendingStackView

#: actions after which a resource's attributes may be read
_ATTR_ACTIONS = frozenset(
    {"CREATE", "ADOPT", "SUSPEND", "RESUME", "UPDATE", "ROLLBACK", "SNAPSHOT"}
    | {"CHECK"}
)


class RowsView:
    """A StackView over a stack's resource rows (for outputs).

    Attributes are read from the resources' plugins, built on demand.
    The rows are read (in one query) only when an output refers to a
    resource: a status poll of a stack without outputs reads none.

    :param names: the resources the values to resolve refer to, when
        known: only their rows are read (a stack of 1000 resources with
        one output reads one row). A name outside them that a function
        asks for after all reads every row.
    """

    def __init__(
        self,
        api: StackAPI,
        stack: r.StackRow,
        stored: Any,
        names: Collection[str] | None = None,
    ) -> None:
        self._api = api
        self._stack = stack
        self._stored = stored
        self._names = None if names is None else frozenset(names)
        self._loaded: dict[str, r.ResourceRow] | None = None
        # one plugin per resource for the view's life (one API call): the
        # outputs of a stack read the same resources again and again
        self._plugins: dict[str, Any] = {}
        # outputs name the same resources again and again (100 outputs
        # of one resource: one lookup)
        self._refs: dict[str, str | None] = {}

    def _read(self) -> dict[str, r.ResourceRow]:
        rows = self._api.deps.resources.get_resources(
            self._stack.id, self._names
        )
        return {
            row.name: row
            for row in rows
            if row.name in self._stored and row.replaced_by is None
        }

    def _row(self, name: str) -> r.ResourceRow | None:
        if self._names is not None and name not in self._names:
            # undeclared: every row, read once (not the declared ones first)
            self._names = None
            self._loaded = None
        if self._loaded is None:
            self._loaded = self._read()
        return self._loaded.get(name)

    def reference_id(self, name: str) -> str | None:
        if name not in self._refs:
            self._refs[name] = self._reference_id(name)
        return self._refs[name]

    def _reference_id(self, name: str) -> str | None:
        row = self._row(name)
        if row is None:
            return None
        if row.action == r.INIT:
            return row.physical_id
        # the plugin's reference (an AWS wait condition handle's is its
        # pre-signed URL), as the worker resolves get_resource/Ref
        try:
            return str(self.plugin(name).FnGetRefId())
        except Exception:
            return row.physical_id

    def plugin(self, name: str) -> Any:
        """The plugin of resource ``name`` over its stored row."""
        found = self._plugins.get(name)
        if found is None:
            row = self._row(name)
            if row is None:
                raise KeyError(name)
            found = self._plugins[name] = self._api.deps.plugins(
                self._stored[name],
                row,
                dict(row.properties or {}),
                self._stack,
            )
        return found

    def attribute(self, name: str, attr: str, path: Sequence[Any] = ()) -> Any:
        row = self._row(name)
        if row is None or row.action not in _ATTR_ACTIONS:
            return None
        return self.plugin(name).FnGetAtt(attr, *path)

    def all_attributes(self, name: str) -> dict[str, Any] | None:
        """Every attribute but ``show`` (``get_attr: [name]``); ``None``
        before the resource was created or when it failed."""
        row = self._row(name)
        if row is None or row.action not in _ATTR_ACTIONS:
            return None
        if row.status not in ("IN_PROGRESS", "COMPLETE"):
            return None
        plugin = self.plugin(name)
        return {
            key: plugin.FnGetAtt(key)
            for key in plugin.attributes_schema
            if key != "show"
        }

    def attribute_names(self, name: str, resource_type: str) -> None:
        return None

    def resource_facade(self, kind: str) -> Any:
        deps = self._api.deps
        facade = parent_facade(
            deps.stacks, deps.templates, deps.resources, self._stack
        )
        if facade is not None:
            return facade(kind)
        raise ValueError(
            f'"resource_facade" ({kind}) can only be used in a template '
            "that defines a template (provider) resource"
        )

    def availability_zones(self) -> list[str]:
        return ["nova"]


class StackReads:
    """``show_stack``, ``list_stacks``, resources, events, outputs."""

    def __init__(self, api: StackAPI) -> None:
        self.api = api
        self.resources = ResourceReads(api, RowsView)

    def _load(
        self, ctxt: Any, identity: Any, show_deleted: bool = False
    ) -> r.StackRow:
        # a read needs the stack's row, never its traversal graph
        rec = self.api.load_record(ctxt, identity, False, show_deleted)
        return db_stores.stack_row(rec)

    def output_keys(self, stored: Any) -> list[dict[str, Any]]:
        """``list_outputs``: each output's key and description, values
        not resolved (as Heat)."""
        definition = stored.stack_definition(PendingStackView())
        return [
            {"output_key": name, "description": output.description()}
            for name, output in definition.outputs().items()
        ]

    def outputs(
        self, stack: r.StackRow, stored: Any, key: str | None = None
    ) -> list[dict[str, Any]]:
        out = []
        names = stored.output_resource_names(key)
        view = RowsView(self.api, stack, stored, names=names)
        with stored.outputs(view) as defined:
            for name, output in defined.items():
                if key is not None and name != key:
                    continue
                item: dict[str, Any] = {
                    "output_key": name,
                    "description": output.description(),
                }
                try:
                    item["output_value"] = output.get_value()
                except Exception as exc:
                    item["output_value"] = None
                    item["output_error"] = str(exc)
                out.append(item)
        return out

    def show_stack(
        self, ctxt: Any, stack_identity: Any, resolve_outputs: bool = True
    ) -> list[dict[str, Any]]:
        rec = self.api.load_record(
            ctxt, stack_identity, with_deps=False, show_deleted=True
        )
        stack = db_stores.stack_row(rec)
        stored = self.api.stored(stack)
        tags = rec.tags
        outputs = self.outputs(stack, stored) if resolve_outputs else None
        return [views.stack_detail(stack, stored, tags, outputs)]

    def list_stacks(self, ctxt: Any, **kwargs: Any) -> list[dict[str, Any]]:
        found = stack_repo.list_summaries(
            self.api.db,
            scope_of(ctxt),
            hidden_tags=self._hidden_tags(),
            **_list_args(kwargs),
        )
        return [views.stack_summary(rec, rec.tags) for rec in found]

    def count_stacks(self, ctxt: Any, **kwargs: Any) -> int:
        args = _list_args(kwargs)
        for key in ("limit", "marker", "sort_keys", "sort_dir"):
            args.pop(key, None)
        return int(
            stack_repo.count(
                self.api.db,
                scope_of(ctxt),
                hidden_tags=self._hidden_tags(),
                **args,
            )
        )

    def _hidden_tags(self) -> list[str]:
        """``[DEFAULT] hidden_stack_tags``: such stacks are listed only
        with ``show_hidden``."""
        return list(self.api.conf.hidden_stack_tags)

    def identify_stack(self, ctxt: Any, stack_name: str) -> dict[str, str]:
        scope = scope_of(ctxt)
        rec = None
        if _looks_like_uuid(stack_name):
            # by id, a soft-deleted stack too: its show then reads
            # DELETE_COMPLETE (as Heat); a name that looks like a uuid
            # is still looked up as a name
            rec = stack_repo.get_for_reading(
                self.api.db, stack_name, scope, show_deleted=True
            )
        if rec is None:
            rec = stack_repo.get_by_name(self.api.db, stack_name, scope)
        if rec is None:
            rec = stack_repo.get(self.api.db, stack_name, scope)
        if rec is None:
            raise exception.EntityNotFound(entity="Stack", name=stack_name)
        return views.identity(db_stores.stack_row(rec))

    def get_template(self, ctxt: Any, stack_identity: Any) -> Any:
        stack = self._load(ctxt, stack_identity, show_deleted=True)
        return template_repo.get(self.api.db, stack.raw_template_id).template

    def get_environment(self, ctxt: Any, stack_identity: Any) -> Any:
        stack = self._load(ctxt, stack_identity, show_deleted=True)
        stored = self.api.stored(stack)
        env = stored.env.user_env_as_dict()
        hidden = {
            name
            for name, param in stored.parameters.params.items()
            if getattr(param, "hidden", lambda: False)()
        }
        env["parameters"] = {
            k: ("******" if k in hidden else v)
            for k, v in env.get("parameters", {}).items()
        }
        return env

    def get_files(self, ctxt: Any, stack_identity: Any) -> Any:
        stack = self._load(ctxt, stack_identity, show_deleted=True)
        return template_repo.get(self.api.db, stack.raw_template_id).files

    def list_stack_resources(
        self,
        ctxt: Any,
        stack_identity: Any,
        nested_depth: int = 0,
        with_detail: bool = False,
        filters: Mapping[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Heat's ``list_stack_resources``: row filters, ``type`` as a
        substring, nested stacks down to ``nested_depth`` (capped at
        ``max_nested_stack_depth``); ``with_detail`` adds description and
        attributes."""
        stack = self._load(ctxt, stack_identity, show_deleted=True)
        depth = min(
            int(nested_depth or 0), self.api.conf.max_nested_stack_depth
        )
        return list(
            self.resources.items(stack, depth, filters, detail=with_detail)
        )

    def describe_stack_resource(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        with_attr: list[str] | None = None,
    ) -> dict[str, Any]:
        """One resource with description, attributes (plus ``with_attr``)
        and metadata."""
        stack = self._load(ctxt, stack_identity)
        for item in self.resources.items(
            stack, detail=True, with_attr=with_attr, names={resource_name}
        ):
            item["metadata"] = self.resource_metadata(
                item["stack_identity"]["stack_id"], resource_name
            )
            return item
        raise exception.ResourceNotFound(
            resource_name=resource_name,
            stack_name=_stack_name(stack_identity),
        )

    def resource_reference(
        self, ctxt: Any, stack_identity: Any, resource_name: str
    ) -> str | None:
        """``get_resource`` of one resource of a stack, as its outputs
        would resolve it.

        :raises ResourceNotFound: when the stack has no such resource.
        """
        stack = self._load(ctxt, stack_identity)
        stored = self.api.stored(stack)
        if resource_name not in stored:
            raise exception.ResourceNotFound(
                resource_name=resource_name,
                stack_name=_stack_name(stack_identity),
            )
        return RowsView(self.api, stack, stored).reference_id(resource_name)

    def resource_metadata(
        self, stack_id: str, resource_name: str
    ) -> dict[str, Any]:
        """The stored metadata of a resource (what os-collect-config
        polls: ``deployments`` of a server, signals of a handle)."""
        rows = [
            row
            for row in self.api.deps.resources.get_resources(stack_id)
            if row.name == resource_name and row.replaced_by is None
        ]
        if not rows:
            return {}
        row = max(rows, key=lambda found: found.id)
        return dict(row.rsrc_metadata or {})

    def list_events(
        self, ctxt: Any, stack_identity: Any, **kwargs: Any
    ) -> list[dict[str, Any]]:
        stack = self._load(ctxt, stack_identity, show_deleted=True)
        depth = int(kwargs.get("nested_depth") or 0)
        stacks = {stack.id: stack}
        if depth:  # as in Heat, not capped
            nested = stack_repo.get_all_by_root(self.api.db, stack.id, depth)
            stacks.update((rec.id, db_stores.stack_row(rec)) for rec in nested)
        recs = event_repo.list_by_stack(
            self.api.db,
            list(stacks),
            limit=kwargs.get("limit"),
            marker=kwargs.get("marker"),
            sort_keys=kwargs.get("sort_keys"),
            sort_dir=kwargs.get("sort_dir"),
            filters=kwargs.get("filters"),
        )
        if not depth:
            return [views.event(stack, ev) for ev in recs]
        # listed with nested_depth, each event links the stack asked for
        root = views.identity(stack)
        return [
            {**views.event(stacks[ev.stack_id], ev), "root_stack_id": root}
            for ev in recs
        ]


def find_physical_resource(
    api: StackAPI, ctxt: Any, physical_resource_id: str
) -> dict[str, str]:
    """The identity (``.../resources/<name>``) of a physical resource."""
    found = resource_repo.get_by_physical_resource_id(
        api.db, physical_resource_id, scope_of(ctxt)
    )
    if not found:
        raise exception.EntityNotFound(
            entity="Resource", name=physical_resource_id
        )
    rec = found[0]
    stack = api.load(ctxt, {"stack_id": rec.stack_id})
    return views.identity(stack, f"/resources/{rec.name}")


def _stack_name(identity: Any) -> str:
    if isinstance(identity, Mapping):
        return str(identity.get("stack_name", ""))
    return str(identity)


def _list_args(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    keys = (
        "limit",
        "marker",
        "sort_keys",
        "sort_dir",
        "filters",
        "show_deleted",
        "show_nested",
        "show_hidden",
        "tags",
        "tags_any",
        "not_tags",
        "not_tags_any",
    )
    return {k: kwargs[k] for k in keys if kwargs.get(k) is not None}


def _looks_like_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except (TypeError, ValueError, AttributeError):
        return False
    return True
