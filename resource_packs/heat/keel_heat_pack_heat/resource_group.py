"""``OS::Heat::ResourceGroup``: N copies of one resource definition."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator, Mapping
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.stack_resource import StackResource
from keel_heat_pack_heat import rolling_update
from keel_heat_pack_heat.batching import BatchSeries

Schema = api.properties.Schema
CHILD_TEMPLATE_VERSION = "2015-04-30"
DEFAULT_ACTION_TIMEOUT = 3600


class ResourceGroup(StackResource):
    """Creates a number of identical resources, named ``0`` to ``N-1``.

    The members live in a child stack.  ``index_var`` (default
    ``%index%``) in the member properties is replaced by the member's
    index.  Lowering ``count`` removes the highest indexes unless
    ``removal_policies`` names the members to remove; removed names are
    never reused.  The ``rolling_update`` update policy replaces members
    in batches, keeping ``min_in_service`` members in service;
    ``batch_create`` creates them in batches.  Any attribute name not
    listed below gives the list of that attribute of every member, and
    ``resource.<n>.<attr>`` reaches one member.
    """

    support_status = api.SupportStatus(version="2014.1")

    PROPERTIES = (
        COUNT,
        INDEX_VAR,
        RESOURCE_DEF,
        REMOVAL_POLICIES,
        REMOVAL_POLICIES_MODE,
    ) = (
        "count",
        "index_var",
        "resource_def",
        "removal_policies",
        "removal_policies_mode",
    )
    _RESOURCE_DEF_KEYS = (DEF_TYPE, DEF_PROPERTIES, DEF_METADATA) = (
        "type",
        "properties",
        "metadata",
    )
    _REMOVAL_POLICIES_KEYS = (REMOVAL_RSRC_LIST,) = ("resource_list",)
    _REMOVAL_POLICY_MODES = (REMOVAL_POLICY_APPEND, REMOVAL_POLICY_UPDATE) = (
        "append",
        "update",
    )
    _ROLLING_UPDATES_SCHEMA_KEYS = (
        MIN_IN_SERVICE,
        MAX_BATCH_SIZE,
        PAUSE_TIME,
    ) = ("min_in_service", "max_batch_size", "pause_time")
    _BATCH_CREATE_SCHEMA_KEYS = (
        MAX_BATCH_SIZE_CREATE,
        PAUSE_TIME_CREATE,
    ) = ("max_batch_size", "pause_time")
    _UPDATE_POLICY_SCHEMA_KEYS = (ROLLING_UPDATE, BATCH_CREATE) = (
        "rolling_update",
        "batch_create",
    )
    ATTRIBUTES = (
        REFS,
        REFS_MAP,
        ATTR_ATTRIBUTES,
        REMOVED_RSRC_LIST,
    ) = ("refs", "refs_map", "attributes", "removed_rsrc_list")

    properties_schema = {
        COUNT: Schema(
            Schema.INTEGER,
            "How many members to create.",
            default=1,
            constraints=[api.constraints.Range(min=0)],
            update_allowed=True,
        ),
        INDEX_VAR: Schema(
            Schema.STRING,
            "Text replaced by the member index in the member properties.",
            default="%index%",
            constraints=[api.constraints.Length(min=3)],
        ),
        RESOURCE_DEF: Schema(
            Schema.MAP,
            "The definition every member is made from.",
            schema={
                DEF_TYPE: Schema(
                    Schema.STRING, "The members' resource type.", required=True
                ),
                DEF_PROPERTIES: Schema(Schema.MAP, "The members' properties."),
                DEF_METADATA: Schema(Schema.MAP, "The members' metadata."),
            },
            required=True,
            update_allowed=True,
        ),
        REMOVAL_POLICIES: Schema(
            Schema.LIST,
            "Which members to remove first when the group shrinks.",
            schema=Schema(
                Schema.MAP,
                schema={
                    REMOVAL_RSRC_LIST: Schema(
                        Schema.LIST,
                        "Member names or reference ids to remove.",
                        default=[],
                    ),
                },
            ),
            update_allowed=True,
            default=[],
        ),
        REMOVAL_POLICIES_MODE: Schema(
            Schema.STRING,
            "Whether removal_policies add to the names removed so far "
            "(append) or replace them (update).",
            constraints=[
                api.constraints.AllowedValues(list(_REMOVAL_POLICY_MODES))
            ],
            default=REMOVAL_POLICY_APPEND,
            update_allowed=True,
        ),
    }

    attributes_schema = {
        REFS: api.attributes.Schema(
            "The reference ids of the members, in index order.",
            type=api.attributes.Schema.LIST,
        ),
        REFS_MAP: api.attributes.Schema(
            "Member name to reference id.", type=api.attributes.Schema.MAP
        ),
        ATTR_ATTRIBUTES: api.attributes.Schema(
            "Member name to the value of the attribute path that follows.",
            type=api.attributes.Schema.MAP,
        ),
        REMOVED_RSRC_LIST: api.attributes.Schema(
            "Names of the members removed so far.",
            type=api.attributes.Schema.LIST,
        ),
    }

    update_policy_schema = {
        ROLLING_UPDATE: Schema(
            Schema.MAP,
            schema={
                MIN_IN_SERVICE: Schema(
                    Schema.INTEGER,
                    default=0,
                    constraints=[api.constraints.Range(min=0)],
                ),
                MAX_BATCH_SIZE: Schema(
                    Schema.INTEGER,
                    default=1,
                    constraints=[api.constraints.Range(min=1)],
                ),
                PAUSE_TIME: Schema(
                    Schema.NUMBER,
                    default=0,
                    constraints=[api.constraints.Range(min=0)],
                ),
            },
        ),
        BATCH_CREATE: Schema(
            Schema.MAP,
            schema={
                MAX_BATCH_SIZE_CREATE: Schema(
                    Schema.INTEGER,
                    default=1,
                    constraints=[api.constraints.Range(min=1)],
                ),
                PAUSE_TIME_CREATE: Schema(
                    Schema.NUMBER,
                    default=0,
                    constraints=[api.constraints.Range(min=0)],
                ),
            },
        ),
    }

    # -- sizes and names ---------------------------------------------------

    def get_size(self) -> int:
        return int(self.properties[self.COUNT])

    def validate(self) -> None:
        super().validate()
        for policy in (self.ROLLING_UPDATE, self.BATCH_CREATE):
            settings = self.update_policy.get(policy)
            if settings and settings[self.PAUSE_TIME] > 3600:
                raise ValueError(
                    f"Maximum {self.PAUSE_TIME} allowed is 1hr(3600s), "
                    f"provided {settings[self.PAUSE_TIME]} seconds."
                )

    def child_template_files(self) -> dict[str, Any]:
        return rolling_update.with_old_files(
            self, super().child_template_files()
        )

    def validate_nested_stack(self) -> None:
        # A zero count disables the group: its definition is not checked.
        if not self.get_size():
            return
        self.check_child_stack(
            lambda: self._assemble_nested(["0"], include_all=True),
            self.child_params,
        )

    def _current_blacklist(self) -> list[str]:
        names = self.data().get("name_blacklist")
        return names.split(",") if names else []

    def _member_definitions(self) -> list[tuple[str, dict[str, Any]]]:
        """The current members, from the child template."""
        identity = self.nested_identifier()
        if identity is None:
            return []
        try:
            tmpl = self.rpc_client().get_template(self.context, identity)
        except api.exception.EntityNotFound:
            return []
        resources = (tmpl or {}).get("resources") or {}
        return sorted(resources.items(), key=lambda kv: _index_key(kv[0]))

    def _new_blacklist_entries(
        self, properties: Mapping[str, Any], current: list[str]
    ) -> Iterator[str]:
        members = {n for n, _ in self._member_definitions()}
        refs_map: dict[str, Any] | None = None
        for policy in properties.get(self.REMOVAL_POLICIES) or []:
            for item in policy.get(self.REMOVAL_RSRC_LIST) or []:
                name = str(item)
                if (
                    name in current
                    or self.resource_id is None
                    or name in members
                ):
                    yield name
                elif isinstance(item, str):
                    if refs_map is None:
                        refs_map = self._refs_map()
                    for member, refid in refs_map.items():
                        if refid == item:
                            yield member
                            break
        self._outputs = None

    def _refs_map(self) -> dict[str, Any]:
        try:
            return dict(self.get_output(self.REFS_MAP) or {})
        except (
            api.exception.InvalidTemplateAttribute,
            api.exception.TemplateOutputError,
            api.exception.EntityNotFound,
        ):
            return {}

    def _update_name_blacklist(self, properties: Mapping[str, Any]) -> None:
        current = set(self._current_blacklist())
        mode = properties.get(self.REMOVAL_POLICIES_MODE)
        base = set() if mode == self.REMOVAL_POLICY_UPDATE else current
        updated = base | set(
            self._new_blacklist_entries(properties, sorted(current))
        )
        if updated != current:
            self.data_set("name_blacklist", ",".join(sorted(updated)))

    def _resource_names(self, size: int | None = None) -> list[str]:
        blacklist = set(self._current_blacklist())
        if size is None:
            size = self.get_size()
        candidates = (str(i) for i in itertools.count())
        return list(
            itertools.islice(
                rolling_update.unused_names(candidates, blacklist), size
            )
        )

    # -- member definitions and the child template -------------------------

    def get_resource_def(self, include_all: bool = False) -> dict[str, Any]:
        rd = copy.deepcopy(dict(self.properties[self.RESOURCE_DEF]))
        if rd.get(self.DEF_PROPERTIES) is None:
            rd[self.DEF_PROPERTIES] = {}
        if not include_all:
            rd[self.DEF_PROPERTIES] = {
                k: v
                for k, v in rd[self.DEF_PROPERTIES].items()
                if v is not None
            }
        return rd

    def _replace_index(self, name: str, value: Any) -> Any:
        index_var = self.properties[self.INDEX_VAR]
        if isinstance(value, str):
            return value.replace(index_var, name)
        if isinstance(value, Mapping):
            return {k: self._replace_index(name, v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._replace_index(name, v) for v in value]
        return value

    def build_resource_definition(
        self, name: str, res_def: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The HOT snippet of member ``name``."""
        snippet: dict[str, Any] = {"type": res_def[self.DEF_TYPE]}
        props = res_def.get(self.DEF_PROPERTIES)
        if props:
            snippet["properties"] = self._replace_index(
                name, copy.deepcopy(props)
            )
        if res_def.get(self.DEF_METADATA) is not None:
            snippet["metadata"] = copy.deepcopy(res_def[self.DEF_METADATA])
        return snippet

    def _output_name(self, *attr_path: Any) -> str:
        if attr_path[0] == self.REFS:
            return self.REFS
        return ", ".join(str(a) for a in attr_path)

    def _referenced_attrs(self) -> list[Any]:
        lookup = getattr(self.stack, "referenced_attrs", None)
        return list(lookup(self.name)) if callable(lookup) else []

    def _outputs_for(self, names: list[str]) -> dict[str, Any]:
        outputs: dict[str, Any] = {
            self.REFS: {"value": [{"get_resource": n} for n in names]},
            self.REFS_MAP: {"value": {n: {"get_resource": n} for n in names}},
        }
        for attr in self._referenced_attrs():
            key, path = (
                (attr, []) if isinstance(attr, str) else (attr[0], attr[1:])
            )
            value: Any = None
            if key.startswith("resource."):
                parts = key.split(".", 2)
                attr_path = parts[2:] + list(path)
                if attr_path and parts[1] in names:
                    value = {"get_attr": [parts[1], *attr_path]}
            elif key == self.ATTR_ATTRIBUTES and path:
                value = {n: {"get_attr": [n, *path]} for n in names}
            elif key not in self.ATTRIBUTES:
                value = [{"get_attr": [n, key, *path]} for n in names]
            if value is not None:
                outputs[self._output_name(key, *path)] = {"value": value}
        return outputs

    def _make_template(
        self, members: list[tuple[str, dict[str, Any]]], names: list[str]
    ) -> dict[str, Any]:
        return {
            "heat_template_version": CHILD_TEMPLATE_VERSION,
            "resources": dict(members),
            "outputs": self._outputs_for(names),
        }

    def _assemble_nested(
        self, names: list[str], include_all: bool = False
    ) -> dict[str, Any]:
        res_def = self.get_resource_def(include_all)
        members = [
            (n, self.build_resource_definition(n, res_def)) for n in names
        ]
        return self._make_template(members, names)

    def child_template(self) -> dict[str, Any]:
        return self._assemble_nested(self._resource_names())

    def child_params(self) -> dict[str, Any]:
        return {}

    # -- create and update -------------------------------------------------

    def handle_create(self) -> BatchSeries | None:
        self._update_name_blacklist(self.properties)
        batch = self.update_policy.get(self.BATCH_CREATE)
        if batch and self.get_size():
            return self._replace(
                0, batch[self.MAX_BATCH_SIZE], batch[self.PAUSE_TIME]
            )
        self.create_with_template(self.child_template(), self.child_params())
        return None

    def check_create_complete(self, cookie: Any = None) -> bool:
        if cookie is None:
            return super().check_create_complete()
        return bool(cookie.step())

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> BatchSeries:
        if tmpl_diff and tmpl_diff.update_policy_changed():
            self.update_policy = json_snippet.update_policy(
                self.update_policy_schema, self.context
            )
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        self._update_name_blacklist(self.properties)
        series = None
        rolling = self._rolling_settings()
        if prop_diff and self.RESOURCE_DEF in prop_diff and rolling:
            series = self._replace(*rolling)
        if series is None or not len(series):
            series = BatchSeries(self, self.stack.timeout_mins)
            series.add_change(self.child_template)
        return series

    def _rolling_settings(self) -> tuple[int, int, float] | None:
        """``(min_in_service, max_batch_size, pause_time)`` or None."""
        rolling = self.update_policy.get(self.ROLLING_UPDATE)
        if not rolling:
            return None
        return (
            rolling[self.MIN_IN_SERVICE],
            rolling[self.MAX_BATCH_SIZE],
            rolling[self.PAUSE_TIME],
        )

    def check_update_complete(self, cookie: Any = None) -> bool:
        return bool(cookie.step())

    def _update_timeout(self, batch_cnt: int, pause_sec: float) -> float:
        total = self.stack.timeout_secs() or DEFAULT_ACTION_TIMEOUT
        pauses = pause_sec * max(batch_cnt - 1, 0)
        if pauses >= total:
            raise ValueError(
                "The current update policy will result in stack update "
                "timeout."
            )
        return total - pauses

    def _replace(
        self, min_in_service: int, batch_size: int, pause_sec: float
    ) -> BatchSeries:
        blacklist = set(self._current_blacklist())
        members = self._member_definitions()
        curr_cap = len([n for n, _ in members if n not in blacklist])
        batches = list(
            rolling_update.batches(
                self.get_size(), curr_cap, batch_size, min_in_service
            )
        )
        timeout_mins = self._update_timeout(len(batches), pause_sec) / 60.0
        series = BatchSeries(self, timeout_mins)
        for index, (capacity, max_updates) in enumerate(batches):

            def make(cap: int = capacity, upd: int = max_updates) -> Any:
                return self._assemble_for_rolling_update(cap, upd)

            series.add_change(make)
            if index < len(batches) - 1:
                series.add_pause(pause_sec)
        return series

    def _assemble_for_rolling_update(
        self, total_capacity: int, max_updates: int
    ) -> dict[str, Any]:
        names = self._resource_names(total_capacity)
        blacklist = set(self._current_blacklist())
        valid = [
            (n, d) for n, d in self._member_definitions() if n not in blacklist
        ]
        targ_cap = self.get_size()

        def replace_priority(item: tuple[str, Any]) -> int:
            try:
                index = names.index(item[0])
            except ValueError:
                return 0
            return targ_cap - index if index < targ_cap else total_capacity

        old = sorted(valid, key=replace_priority)
        existing = {n for n, _ in valid}
        new_names = iter(n for n in names if n not in existing)
        members = list(
            rolling_update.member_definitions(
                old,
                self.get_resource_def(),
                total_capacity,
                max_updates,
                lambda: next(new_names),
                self.build_resource_definition,
            )
        )
        # outputs list the members in index order, whatever order the
        # batch put them in (Heat builds them from ``names`` too)
        return self._make_template(members, names)

    # -- attributes --------------------------------------------------------

    def get_attribute(self, key: str, *path: Any) -> Any:
        if key == self.REMOVED_RSRC_LIST:
            return self._current_blacklist()
        if key == self.ATTR_ATTRIBUTES and not path:
            raise api.exception.InvalidTemplateAttribute(
                resource=self.name, key=key
            )
        is_ref = (
            key.startswith("resource.")
            and not path
            and len(key.split(".", 2)) == 2
        )
        name = self.REFS_MAP if is_ref else self._output_name(key, *path)
        if self.resource_id is None:
            return None
        value = self.get_output(name)
        if is_ref:
            target = key.split(".", 2)[1]
            if target not in (value or {}):
                raise api.exception.NotFound(
                    f"Member '{target}' not found in group resource "
                    f"'{self.name}'."
                )
            return value[target]
        if key == self.REFS:
            return api.attributes.select_from_attribute(value, path)
        return value

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        if self.action == self.INIT:
            return None
        return self.get_attribute(key, *path)

    def handle_adopt(self, resource_data: Mapping[str, Any]) -> None:
        names = self._resource_names()
        if names:
            self.create_with_template(
                self._assemble_nested(names), {}, adopt_data=resource_data
            )


def _index_key(name: str) -> tuple[int, Any]:
    return (0, int(name)) if name.isdigit() else (1, name)
