"""Template validation, stack preview and physical-resource lookup
(engine API ``validate_template``, ``preview_stack``,
``preview_update_stack``, ``find_physical_resource``).

Nothing here is stored: a template is parsed with its environment (the
``environment_files`` merged from ``files`` in order), validated in Heat's
order, and its resources are instantiated in memory.

* ``validate_template`` is Heat's non-strict validation: parameter values
  and property values are not checked, only the template; an error comes
  back as ``{"Error": <message>}`` (the API answers 400 with it); errors
  whose code is in ``ignorable_errors`` (``99001``: service missing) are
  skipped.
* ``preview_stack`` validates as a create does (strictly, with the
  ``resource_types:*`` policy) and answers the stack with its resources
  as Heat's ``format_stack_preview`` shows them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from keel_heat_core import exception
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.graph.dag import CircularDependency, Graph
from keel_heat_core.model import rows as r
from keel_heat_core.model.definitions import BoundDefinition, StoredTemplate
from keel_heat_core.model.identifier import StackIdentifier
from keel_heat_core.model.stack_facade import EngineStackFacade
from keel_heat_core.plugin_api import Resource
from keel_heat_core.service import preview_nested, views
from keel_heat_core.service.preview_update import UpdatePreview
from keel_heat_core.service.stack_api import (
    StackAPI,
    refuse_immutable_changes,
    scope_of,
)
from keel_heat_core.service.stack_validation import (
    has_fixed_attributes,
    is_template_resource,
)
from keel_heat_core.service.type_discovery import ResourceTypes
from keel_heat_core.template import (
    provider,
    validation,
    versions,
)
from keel_heat_core.template.parameter_groups import ParameterGroups
from keel_heat_core.template.protocols import PendingStackView
from keel_heat_core.template.request_environment import merged_environment
from keel_heat_core.template.stack_definition import StackDefinition

LOG = logging.getLogger(__name__)

_STACK_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_.-]{0,254}$")

#: error codes ``ignore_errors`` may name
IGNORABLE_CODES = tuple(exception.ERROR_CODE_MAP)


def _order(
    deps: dict[str, set[str]], label: Callable[[str], str] = str
) -> list[str]:
    """Dependency order; a cycle is reported as Heat prints its graph:
    ``{Value "b": {Value "a"}, Value "a": {Value "b"}}``."""
    graph: Graph[str] = Graph()
    for name, needs in deps.items():
        graph.add_node(name)
        for need in needs:
            if need in deps:
                graph.add_edge(name, need)
    try:
        return list(graph.topological_order())
    except CircularDependency as exc:
        remaining = dict(deps)
        while True:  # drop what can be ordered; the rest is the cycle
            ready = [n for n, d in remaining.items() if not d & set(remaining)]
            if not ready:
                break
            for name in ready:
                del remaining[name]
        items = ", ".join(
            f"{label(n)}: {{"
            + ", ".join(label(x) for x in sorted(d & set(remaining)))
            + "}"
            for n, d in remaining.items()
        )
        raise exception.CircularDependencyException(
            cycle="{" + items + "}"
        ) from exc


def _row(name: str, tenant: str, stack_id: str | None) -> r.StackRow:
    return r.StackRow(
        id=stack_id or "None",
        name=name,
        action="",
        status="",
        status_reason="",
        raw_template_id=0,
        current_traversal="",
        tenant=tenant,
    )


class _Preview:
    """A stack parsed in memory: its definition, facade and resources."""

    def __init__(
        self,
        ctxt: Any,
        name: str,
        stored: StoredTemplate,
        strict: bool,
        stack_id: str | None = None,
        types: ResourceTypes | None = None,
        rpc: Any = None,
    ) -> None:
        self.ctxt = ctxt
        self.types = types
        self.stored = stored
        self.strict = strict
        tenant = getattr(ctxt, "project_id", None) or ""
        self.row = _row(name, tenant, stack_id)
        # the engine client serves OS::Heat::Stack of this region
        self.facade = EngineStackFacade(self.row, stored, ctxt, rpc=rpc)
        self.facade.strict_validate = strict
        self.defn = stored.stack_definition(
            PendingStackView(attribute_names=self._attribute_names)
        )
        self.resources: dict[str, Any] = {}
        self.order: list[str] = []

    def _attribute_names(self, resource_type: str) -> list[str] | None:
        """Attribute names ``get_attr`` may use on a type (None: any, for
        unknown types, template resources and child-stack resources,
        whose attributes are dynamic)."""
        try:
            cls = self.stored.env.get_class_to_instantiate(resource_type)
        except exception.HeatException:
            return None
        if not has_fixed_attributes(cls):
            return None
        names = list(cls.attributes_schema or {})
        names += list(getattr(cls, "base_attributes_schema", {}) or {})
        return names

    def _label(self, name: str) -> str:
        rtype = self.stored[name].resource_type
        try:
            cls = self.stored.env.get_class_to_instantiate(rtype, name)
        except exception.HeatException:
            cls = None
        kind = cls.__name__ if isinstance(cls, type) else "Resource"
        return f'{kind} "{name}"'

    def _ordered(self, deps: dict[str, set[str]]) -> list[str]:
        self.order = _order(deps, self._label)
        return self.order

    def validate(
        self,
        ignorable: Callable[[exception.HeatException], bool] | None = None,
    ) -> None:
        """Validate in Heat's order, instantiating every resource."""
        params = self.stored.parameters

        def hook(defn: StackDefinition, rdefn: Any) -> None:
            cls = self.stored.env.get_class_to_instantiate(
                rdefn.resource_type, rdefn.name
            )
            if is_template_resource(self.stored.env, rdefn, cls):
                # a template resource: its template is read and checked
                # (Heat's texts when it can not be); not instantiated here
                provider.validate_template_resource(
                    self.stored.env,
                    rdefn.resource_type,
                    rdefn.name,
                    self.stored.t.files,
                )
                return
            try:
                if self.types is not None:
                    self.types.ensure_available(
                        self.ctxt, rdefn.resource_type, cls
                    )
                # the template's definition: properties resolve lazily, so
                # a failing function is a Property error with its path
                res = cls(rdefn.name, rdefn, self.facade)
                self.resources[rdefn.name] = res
                if self.strict:
                    res.validate()
                else:
                    # POST /validate checks the resource template only
                    Resource.validate(res)
            except exception.HeatException as exc:
                # Heat lets these through as they are, unless ignorable
                if ignorable is not None and ignorable(exc):
                    return
                raise
            except Exception as exc:
                raise exception.StackValidationFailed(
                    error=exc, path=["resources", rdefn.name]
                ) from exc

        validation.validate_stack(
            self.defn,
            validate_parameters=lambda: params.validate(
                validate_value=self.strict, context=self.ctxt
            ),
            validate_parameter_groups=lambda: ParameterGroups(
                self.stored.t
            ).validate(),
            resource_order=self._ordered,
            resource_hook=hook,
        )

    def required_by(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {name: [] for name in self.order}
        for name in self.order:
            for need in self.stored.dependency_names(name):
                found.setdefault(need, []).append(name)
        return found

    def resource_view(self, name: str, required_by: list[str]) -> Any:
        """A resource as Heat's ``format_stack_resource`` shows it in a
        preview (with properties)."""
        res = self.resources.get(name)
        if res is None:  # a template resource, not instantiated here
            res = _Unbuilt(name, self.stored[name].resource_type)
        ident = views.identity(self.row)
        return {
            "updated_time": None,
            "creation_time": None,
            "resource_name": name,
            "physical_resource_id": res.resource_id or "",
            "resource_action": res.action,
            "resource_status": res.status,
            "resource_status_reason": res.status_reason or "",
            "resource_type": res.t.resource_type,
            "resource_identity": dict(ident, path=f"/resources/{name}"),
            "stack_identity": ident,
            "stack_name": self.row.name,
            "required_by": required_by,
            "description": _description(res),
            "metadata": _safe(lambda: res.t.metadata()) or {},
            "attributes": _attributes(res),
            "properties": _properties(res),
        }


def _safe(get: Callable[[], Any]) -> Any:
    try:
        return get()
    except Exception:
        return None


def _description(res: Any) -> str:
    rdefn = getattr(res.t, "_rdefn", None)
    return str(getattr(rdefn, "description", "") or "")


class _Unbuilt:
    """What a preview shows of a resource it did not instantiate."""

    action, status, status_reason, resource_id = "INIT", "COMPLETE", "", None
    attributes: tuple[str, ...] = ()
    properties_schema: dict[str, Any] = {}

    def __init__(self, name: str, resource_type: str) -> None:
        self.name = name
        self.t = BoundDefinition(_TypeOnly(name, resource_type))


class _TypeOnly:
    def __init__(self, name: str, resource_type: str) -> None:
        self.name = name
        self.resource_type = resource_type
        self.description = ""

    def metadata(self) -> dict[str, Any]:
        return {}


def _attribute(res: Any, name: str) -> Any:
    try:
        return res._resolve_any_attribute(name)
    except Exception:  # Heat shows an unresolvable attribute as None
        return None


def _property(res: Any, name: str) -> Any:
    try:
        return res.properties[name]
    except Exception:  # Heat shows an unresolvable property as None
        return None


def _attributes(res: Any) -> dict[str, Any]:
    names = [n for n in res.attributes if n != "show"]
    return {n: _attribute(res, n) for n in names}


def _properties(res: Any) -> dict[str, Any]:
    return {name: _property(res, name) for name in res.properties_schema}


class ValidatePreview:
    """The engine's validate and preview calls.

    :param api: the stack lifecycle implementation (database, conf).
    :param types: the resource-type policy and availability checks.
    """

    def __init__(self, api: StackAPI, types: ResourceTypes) -> None:
        self.api = api
        self.types = types

    # -- validate_template ----------------------------------------------------

    def validate_template(
        self,
        ctxt: Any,
        template: Any,
        params: Any = None,
        files: Any = None,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
        show_nested: bool = False,
        ignorable_errors: list[str] | None = None,
    ) -> dict[str, Any]:
        """Heat's ``POST /validate`` result, or ``{"Error": <message>}``."""
        if template is None:
            return {"Error": "No Template provided."}
        if ignorable_errors:
            invalid = sorted(set(ignorable_errors) - set(IGNORABLE_CODES))
            if invalid:
                return {"Error": f"Invalid codes in ignore_errors : {invalid}"}
        if files_container:
            raise exception.NotSupported(feature="files_container")
        env = merged_environment(template, params, files, environment_files)
        # an unknown version is raised, as Heat's Template() raises it
        tmpl = versions.load(template, files=files)
        try:
            # the sections first, before definitions are built from them
            tmpl.validate()
        except Exception as exc:
            return {"Error": str(exc)}
        try:
            stored = StoredTemplate(template, env, files)
        except exception.StackValidationFailed as exc:
            # conditions and definitions are Heat's stack.validate() errors
            return {"Error": str(exc)}
        try:
            validation.check_resource_limit(
                stored.stack_definition(PendingStackView()),
                self.api.conf.max_resources_per_stack,
            )
        except Exception as exc:
            return {"Error": str(exc)}
        preview = _Preview(
            ctxt, "dummy", stored, strict=False, types=self.types
        )

        def ignorable(exc: exception.HeatException) -> bool:
            code = getattr(exc, "error_code", None)
            return bool(ignorable_errors) and code in (ignorable_errors or ())

        try:
            preview.validate(ignorable)
        except exception.StackValidationFailed as exc:
            return {"Error": str(exc)}
        result = validation.template_validate_result(
            preview.defn, stored.env, stored.parameters
        )
        if show_nested:
            nested = _nested_parameters(preview)
            if nested:
                environment = result.pop("Environment")
                result["NestedParameters"] = nested
                result["Environment"] = environment
        return result

    # -- preview_stack --------------------------------------------------------

    def _parse(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        environment_files: list[str] | None,
        stack_id: str | None = None,
    ) -> _Preview:
        env = merged_environment(template, params, files, environment_files)
        stored = StoredTemplate(
            template,
            env,
            files,
            StackIdentifier(
                getattr(ctxt, "project_id", None) or "",
                stack_name,
                stack_id or "None",
            ),
        )
        validation.check_resource_limit(
            stored.stack_definition(PendingStackView()),
            self.api.conf.max_resources_per_stack,
        )
        if not _STACK_NAME.match(stack_name or ""):
            raise exception.StackValidationFailed(
                message=(
                    f"Invalid stack name {stack_name} must contain only "
                    'alphanumeric or "_-." characters, must start with '
                    "alpha and must be 255 characters or less."
                )
            )
        for name in stored:
            self.types.enforce(ctxt, stored[name].resource_type)
        preview = _Preview(
            ctxt,
            stack_name,
            stored,
            strict=True,
            stack_id=stack_id,
            types=self.types,
            rpc=getattr(self.api.deps.plugins, "rpc", None),
        )
        preview.validate()
        return preview

    def preview_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
    ) -> dict[str, Any]:
        """The stack a create would make, with its resources (not stored).

        :raises StackExists: when the project has a stack of that name.
        """
        if files_container:
            raise exception.NotSupported(feature="files_container")
        if stack_repo.get_by_name(self.api.db, stack_name, scope_of(ctxt)):
            raise exception.StackExists(stack_name=stack_name)
        args = dict(args or {})
        preview = self._parse(
            ctxt, stack_name, template, params, files, environment_files
        )
        row = preview.row
        row.disable_rollback = (
            True
            if args.get("disable_rollback") is None
            else bool(args["disable_rollback"])
        )
        row.timeout = args.get("timeout_mins")
        row.username = getattr(ctxt, "username", None)
        out = views.stack_detail(row, preview.stored, args.get("tags"))
        for key in ("stack_action", "stack_status", "stack_status_reason"):
            out.pop(key, None)
        values, _errors = validation.resolve_outputs(preview.defn)
        out["resources"] = preview_nested.resource_views(
            preview,
            lambda c, n, s: _Preview(
                c,
                n,
                s,
                strict=True,
                types=self.types,
                rpc=preview.facade.rpc_client(),
            ),
            int(self.api.conf.max_nested_stack_depth),
        )
        out["outputs"] = [
            {
                "output_key": key,
                "description": output.description(),
                "output_value": values.get(key),
            }
            for key, output in preview.defn.outputs().items()
        ]
        return out

    # -- preview_update_stack -------------------------------------------------

    def preview_update_stack(
        self,
        ctxt: Any,
        stack_identity: Any,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
    ) -> dict[str, list[Any]]:
        """What an update would do, by resource (not stored): see
        :mod:`keel_heat_core.service.preview_update`.

        :raises ImmutableParameterModified: as the update would.
        """
        stack = self.api.load(ctxt, stack_identity)
        current = self.api.stored(stack)
        if template is None and (args or {}).get("existing"):
            from keel_heat_core.db import raw_template as template_repo

            template = template_repo.get(
                self.api.db, stack.raw_template_id
            ).template
        preview = self._parse(
            ctxt,
            stack.name,
            template,
            params,
            files,
            environment_files,
            stack_id=stack.id,
        )
        refuse_immutable_changes(current, preview.stored)
        make = _make_child(self.types, preview.facade.rpc_client())
        return UpdatePreview(
            self.api.db,
            self.api.stored,
            make,
            int(self.api.conf.max_nested_stack_depth),
        ).changes(
            stack,
            current,
            preview,
            show_nested=bool((args or {}).get("show_nested")),
        )


def _make_child(types: ResourceTypes, rpc: Any) -> preview_nested.MakePreview:
    """Builds the preview of a child stack as a create would see it."""
    return lambda c, n, s: _Preview(c, n, s, strict=True, types=types, rpc=rpc)


def _nested_parameters(preview: _Preview) -> dict[str, Any]:
    """``NestedParameters``: the parameters of each child template."""
    result: dict[str, Any] = {}
    for name in preview.stored:
        # template resources too (the validation only read their template)
        res = preview_nested.instance(preview, name)
        child = getattr(res, "child_template", None)
        if not callable(child):
            continue
        try:
            template = child()
            params = res.child_params()
        except Exception:  # no child template to show
            LOG.debug("No child template for %s", name, exc_info=True)
            continue
        files = dict(getattr(preview.stored.t, "files", {}) or {})
        stored = StoredTemplate(template, {"parameters": params}, files)
        nested = _Preview(preview.ctxt, name, stored, strict=False)
        try:
            nested.validate()
        except exception.HeatException:
            continue
        body = validation.template_validate_result(
            nested.defn, stored.env, stored.parameters
        )
        entry: dict[str, Any] = {
            "Type": res.t.resource_type,
            "Description": body["Description"],
            "Parameters": body["Parameters"],
        }
        if "ParameterGroups" in body:
            entry["ParameterGroups"] = body["ParameterGroups"]
        deeper = _nested_parameters(nested)
        if deeper:
            entry["NestedParameters"] = deeper
        result[name] = entry
    return result
