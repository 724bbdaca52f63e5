"""A small in-process stand-in for the engine, enough to run the vectors.

It does what Heat's create + show do for a stack whose resources are the
Heat pack's test resources (OS::Heat::Value, None, RandomString...):
parse the request as heat-api does, validate the stack in Heat's order,
create the resources one by one in dependency order, then resolve the
outputs and show the parameters.  The template layer is the real one; only
the engine around it is simplified (no DB, no RPC, no threads).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from keel_heat_core import exception
from keel_heat_core.plugin_api import Resource
from keel_heat_core.template import (
    environment,
    function,
    provider,
    validation,
    versions,
)
from keel_heat_core.template import format as template_format
from keel_heat_core.template import parameters as params_mod
from keel_heat_core.template.parameter_groups import ParameterGroups
from keel_heat_core.template.rsrc_defn import ResourceDefinition
from keel_heat_core.template.stack_definition import StackDefinition

TENANT = "00000000000000000000000000000001"
READY = (
    "CREATE",
    "ADOPT",
    "SUSPEND",
    "RESUME",
    "UPDATE",
    "ROLLBACK",
    "SNAPSHOT",
    "CHECK",
)


class HTTPBadRequest(Exception):
    """What heat-api answers for a body it can not parse."""


@dataclass
class Identity:
    stack_name: str
    stack_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    tenant: str = TENANT

    def arn(self) -> str:
        return (
            f"arn:openstack:heat::{self.tenant}:stacks/{self.stack_name}/"
            f"{self.stack_id}"
        )


@dataclass
class Outcome:
    """What a vector's ``expect`` describes."""

    valid: bool
    stage: str | None = None
    error_type: str | None = None
    error_message: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    output_errors: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    stack_status: str | None = None
    stack_status_reason: str | None = None
    resources: dict[str, dict[str, str]] = field(default_factory=dict)
    #: the validate-template body (template-validate runs only)
    result: dict[str, Any] | None = None
    #: the message heat-api shows after the RPC round trip
    api_message: str | None = None


class RuntimeView:
    """A :class:`~keel_heat_core.template.protocols.StackView` over the
    resources this double has created."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.resources: dict[str, Any] = {}

    def reference_id(self, name: str) -> str | None:
        rsrc = self.resources.get(name)
        return None if rsrc is None else rsrc.FnGetRefId()

    def attribute(self, name: str, attr: str) -> Any:
        rsrc = self.resources.get(name)
        if rsrc is None or rsrc.action not in READY:
            return None
        return rsrc.FnGetAtt(attr)

    def all_attributes(self, name: str) -> dict[str, Any] | None:
        rsrc = self.resources.get(name)
        if rsrc is None or rsrc.action not in READY:
            return None
        if rsrc.status not in ("IN_PROGRESS", "COMPLETE"):
            return None
        return {
            key: rsrc.FnGetAtt(key)
            for key in rsrc.attributes_schema
            if key != "show"
        }

    def attribute_names(
        self, name: str, resource_type: str
    ) -> Collection[str] | None:
        try:
            cls = self.env.get_class_to_instantiate(resource_type, name)
        except Exception:
            return None
        schema = getattr(cls, "attributes_schema", None)
        if schema is None:
            return None
        return {*schema, *getattr(cls, "base_attributes_schema", {}), "show"}

    def resource_facade(self, kind: str) -> Any:
        raise ValueError(
            f'"resource_facade" ({kind}) can only be used in a template '
            "that defines a template (provider) resource"
        )

    def availability_zones(self) -> list[str]:
        return ["nova"]

    def resource_action(self, name: str) -> str | None:
        rsrc = self.resources.get(name)
        return None if rsrc is None else str(rsrc.action)


class TemplateResource:
    """Stands for a resource implemented by a nested template."""


class _StackProxy:
    """What a plugin resource sees as its stack."""

    strict_validate = True
    context = None

    def __init__(self, defn: StackDefinition, identity: Identity) -> None:
        self.defn = defn
        self.t = defn.t
        self.name = identity.stack_name
        self.id = identity.stack_id
        self.identity = identity

    def __getattr__(self, item: str) -> Any:
        return getattr(self.defn, item)


def parse_request(vector: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Template document and environment, as heat-api reads them."""
    template = vector["template"]
    try:
        if isinstance(template, str):
            doc = template_format.parse(template)
        else:
            template_format.check_template_size(str(template))
            doc = template
    except ValueError as err:
        raise HTTPBadRequest(f"Template not in valid format: {err}") from err
    env_in = vector.get("env")
    try:
        if isinstance(env_in, str):
            env = environment.parse(env_in)
        elif env_in is None:
            env = {}
        else:
            env = environment.validate(dict(env_in))
    except ValueError as err:
        raise HTTPBadRequest(
            f"Environment not in valid format: {err}"
        ) from err
    env = dict(env)
    if "parameters" in env or not env:
        env.setdefault("parameters", {})
    env_params = dict(env.get("parameters") or {})
    env_params.update(vector.get("params") or {})
    env["parameters"] = env_params
    return doc, env


def _order(deps: dict[str, set[str]], kinds: dict[str, str]) -> list[str]:
    order: list[str] = []
    remaining = {name: set(d) for name, d in deps.items()}
    while remaining:
        ready = [n for n, d in remaining.items() if not d - set(order)]
        if not ready:

            def label(n: str) -> str:
                return f'{kinds.get(n, "Resource")} "{n}"'

            def entry(n: str, needs: set[str]) -> str:
                inner = ", ".join(
                    label(x) for x in sorted(needs & set(remaining))
                )
                return f"{label(n)}: {{{inner}}}"

            items = ", ".join(entry(n, d) for n, d in remaining.items())
            raise exception.CircularDependencyException(cycle=f"{{{items}}}")
        for name in ready:
            order.append(name)
            del remaining[name]
    return order


class StackDouble:
    """Create and show one stack from a vector's request."""

    def __init__(
        self,
        vector: dict[str, Any],
        create: bool = True,
        template_only: bool = False,
    ) -> None:
        """:param template_only: run ``POST /validate`` instead of a
        create: parameter values and property values are not checked."""
        self.vector = vector
        self.create = create and not template_only
        self.strict = not template_only
        self.identity = Identity(vector.get("stack_name") or "vecstack")

    def run(self) -> Outcome:
        try:
            doc, env_dict = parse_request(self.vector)
        except HTTPBadRequest as err:
            return Outcome(False, "api", "HTTPBadRequest", str(err))
        try:
            self._validate(doc, env_dict)
        except Exception as err:  # reported like Heat's API would
            return Outcome(
                False,
                "validate",
                type(err).__name__,
                str(err),
                api_message=remote_message(err),
            )
        if not self.strict:
            result = validation.template_validate_result(
                self.defn, self.env, self.params
            )
            return Outcome(True, result=result)
        if not self.create:
            return Outcome(True)
        return self._create()

    def _validate(self, doc: dict[str, Any], env_dict: dict[str, Any]) -> None:
        self.env = environment.Environment(env_dict)
        files = self.vector.get("files") or {}
        self.tmpl = versions.load(doc, files=files, env=self.env)
        validation.validate_structure(StackDefinition(self.tmpl, {}))
        self.params = params_mod.make_parameters(
            self.tmpl,
            self.env.params,
            self.env.param_defaults,
            self.identity,
        )
        self.view = RuntimeView(self.env)
        self.defn = StackDefinition(self.tmpl, self.params, self.view)
        self.proxy = _StackProxy(self.defn, self.identity)
        self.classes: dict[str, Any] = {}
        validation.validate_stack(
            self.defn,
            validate_parameters=lambda: self.params.validate(
                validate_value=self.strict
            ),
            validate_parameter_groups=lambda: ParameterGroups(
                self.tmpl
            ).validate(),
            resource_order=self._resource_order,
            resource_hook=self._validate_resource,
        )

    def _class_for(self, rsrc: ResourceDefinition) -> Any:
        if rsrc.name not in self.classes:
            try:
                cls = self.env.get_class_to_instantiate(
                    rsrc.resource_type, rsrc.name
                )
            except exception.StackValidationFailed:
                raise
            except exception.HeatException as err:
                raise exception.StackValidationFailed(
                    message=str(err)
                ) from err
            if not isinstance(cls, type):
                # A template resource: validated here, never created (the
                # vectors record only the validation of nested stacks).
                provider.validate_template_resource(
                    self.env, rsrc.resource_type, rsrc.name, self.tmpl.files
                )
                cls = TemplateResource
            self.classes[rsrc.name] = cls
        return self.classes[rsrc.name]

    def _resource_order(self, deps: dict[str, set[str]]) -> list[str]:
        resources = self.defn.resource_definitions()
        kinds = {}
        for name, rsrc in resources.items():
            try:
                kinds[name] = self._class_for(rsrc).__name__
            except exception.HeatException:
                kinds[name] = "Resource"
        self.order = _order(deps, kinds)
        return self.order

    def _validate_resource(
        self, defn: StackDefinition, rsrc: ResourceDefinition
    ) -> None:
        cls = self._class_for(rsrc)
        if cls is TemplateResource:
            return
        self.proxy.strict_validate = self.strict
        try:
            instance = cls(rsrc.name, rsrc, self.proxy)
            if self.strict:
                instance.validate()
            else:
                # Heat validates only the resource template here.
                Resource.validate(instance)
        except exception.StackValidationFailed as err:
            if not err.path or err.path[0] == defn.t.RESOURCES:
                raise
            path: list[Any] = [defn.t.RESOURCES, rsrc.name]
            if err.path:
                path.append(defn.t.get_section_name(str(err.path[0])))
                path.extend(err.path[1:])
            raise exception.StackValidationFailed(
                error=err.error, path=path, message=err.error_message
            ) from err

    def _create(self) -> Outcome:
        resources = self.defn.resource_definitions()
        status, reason = (
            "CREATE_COMPLETE",
            "Stack CREATE completed successfully",
        )
        states: dict[str, dict[str, str]] = {}
        failed = False
        for name in self.order:
            rsrc = resources[name]
            instance = self.classes[name](name, rsrc, self.proxy)
            if failed:
                states[name] = {"status": "INIT_COMPLETE", "status_reason": ""}
                continue
            try:
                # Heat resolves the properties before the resource starts
                # its action: a failure there leaves it INIT_COMPLETE.
                function.resolve(rsrc.properties_snippet())
            except Exception as err:
                failed = True
                status, reason = (
                    "CREATE_FAILED",
                    f"Resource CREATE failed: {err}",
                )
                states[name] = {"status": "INIT_COMPLETE", "status_reason": ""}
                continue
            try:
                instance.properties.validate()
                instance.handle_create()
            except Exception as err:
                failed = True
                status = "CREATE_FAILED"
                reason = f"Resource CREATE failed: {_reason(err)}"
                states[name] = {
                    "status": "CREATE_FAILED",
                    "status_reason": _reason(err),
                }
                # A failed create still has action CREATE: its attributes
                # stay readable, as in Heat.
                instance.action, instance.status = "CREATE", "FAILED"
                self.view.resources[name] = instance
                continue
            instance.action, instance.status = "CREATE", "COMPLETE"
            self.view.resources[name] = instance
            states[name] = {
                "status": "CREATE_COMPLETE",
                "status_reason": "state changed",
            }
        values, errors = validation.resolve_outputs(self.defn)
        return Outcome(
            True,
            "create" if failed else None,
            outputs=_jsonable(values),
            output_errors=errors,
            parameters=self.params.shown(),
            stack_status=status,
            stack_status_reason=reason,
            resources=states,
        )


def remote_message(err: Exception) -> str | None:
    """The text heat-api shows: oslo.messaging rebuilds the exception from
    its class and keyword arguments (which doubles ``": "`` in path
    errors); Python errors have no message."""
    if not isinstance(err, exception.HeatException):
        return None
    try:
        return str(type(err)(**err.kwargs))
    except TypeError:
        return str(err)


def _reason(err: Exception) -> str:
    if isinstance(err, exception.HeatException) and not isinstance(
        err, exception.StackValidationFailed
    ):
        return str(err)
    if isinstance(err, exception.StackValidationFailed):
        return f"StackValidationFailed: {err}"
    return str(err)


def _jsonable(value: Any) -> Any:
    """What the API's JSON body would carry."""

    def default(item: Any) -> Any:
        if isinstance(item, bytes):
            return item.decode("utf-8", "replace")
        return str(item)

    return json.loads(json.dumps(value, default=default))
