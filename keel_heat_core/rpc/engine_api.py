"""The engine API as one typed contract: Heat's engine API 1.36.

Every party to the engine API implements these Protocols and says so by
subclassing them, so that mypy checks each method against the contract:

* :class:`~keel_heat_core.rpc.client.EngineClient`, the API's client
  over the bus (its methods are made from the Protocol's, see
  :func:`keel_heat_core.rpc.client.remote`);
* ``service.engine_endpoint.EngineEndpoint``, what an engine serves on
  topic ``engine``;
* ``service.nested.LocalEngineRPC``, the part a resource reaches through
  its stack's ``rpc_client()`` (nested stacks, software configs and
  deployments), served inside the engine without the bus;
* :class:`keel_heat_core.testing.fake_engine.FakeEngine`, the in-memory
  engine of the tests.

Method and argument names are Heat's, so that a Heat API can call a
keel-heat engine and the other way round; ``ctxt`` is the request
context (a context object in-process, its dict on the engine side of the
bus). Engine errors are :mod:`keel_heat_core.exception` classes; the API
maps them to HTTP answers by class name.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

StackIdentity = dict[str, str]
JSONObject = dict[str, Any]

P = ParamSpec("P")
R = TypeVar("R")


def arguments_by_name(
    method: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    defaults: bool = False,
) -> dict[str, Any]:
    """The arguments of a call of ``method`` (without ``self``), by name.

    :param defaults: add the parameters the call left out, with their
        defaults.
    """
    bound = inspect.signature(method).bind(None, *args, **kwargs)
    if defaults:
        bound.apply_defaults()
    values = dict(bound.arguments)
    del values["self"]
    return values


def forward(
    method: Callable[Concatenate[Any, P], R],
    to: Callable[[Any], Callable[..., Any]],
) -> Callable[Concatenate[Any, P], R]:
    """A method of the contract that passes its arguments on, by name.

    For implementations whose work is done by a method taking the same
    keyword arguments: the implementation keeps the contract's signature
    (checked by mypy) without writing it out again.

    :param method: the Protocol's method.
    :param to: given the implementing object, the callable to pass the
        arguments to (``ctxt`` first, the rest as given, by name).
    """

    @functools.wraps(method)
    def call(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        values = arguments_by_name(method, args, kwargs)
        ctxt = values.pop("ctxt")
        answer: R = to(self)(ctxt, **values)
        return answer

    return call


class ResourceEngineAPI(Protocol):
    """The calls a resource makes through its stack's ``rpc_client()``:
    child stacks, software configs and software deployments."""

    def identify_stack(self, ctxt: Any, stack_name: str) -> StackIdentity:
        """Return the identity of a live stack given its name or id."""
        ...

    def show_stack(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resolve_outputs: bool = True,
    ) -> list[JSONObject]:
        """Return a one-element list with the stack's details."""
        ...

    def create_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: JSONObject,
        params: JSONObject,
        files: JSONObject,
        args: JSONObject,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
        owner_id: str | None = None,
        nested_depth: int = 0,
        user_creds_id: int | None = None,
        stack_user_project_id: str | None = None,
        parent_resource_name: str | None = None,
        template_id: int | None = None,
    ) -> StackIdentity:
        """Create a stack; the last six arguments are engine-internal."""
        ...

    def update_stack(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        template: JSONObject | None,
        params: JSONObject,
        files: JSONObject,
        args: JSONObject,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
        template_id: int | None = None,
    ) -> StackIdentity:
        """Update a stack (``args['existing']`` merges, as PATCH does)."""
        ...

    def get_template(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Return the stack's stored template."""
        ...

    def get_files(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Return the stack's stored files."""
        ...

    def delete_stack(
        self, ctxt: Any, stack_identity: StackIdentity, cast: bool = False
    ) -> None:
        """Delete a stack; with ``cast`` do not wait for the engine."""
        ...

    def stack_suspend(self, ctxt: Any, stack_identity: StackIdentity) -> None:
        """Suspend a stack."""
        ...

    def stack_resume(self, ctxt: Any, stack_identity: StackIdentity) -> None:
        """Resume a suspended stack."""
        ...

    def stack_check(self, ctxt: Any, stack_identity: StackIdentity) -> None:
        """Check a stack's resources."""
        ...

    def stack_cancel_update(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        cancel_with_rollback: bool = True,
    ) -> None:
        """Cancel the stack's running operation."""
        ...

    def describe_stack_resource(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resource_name: str,
        with_attr: list[str] | bool = False,
    ) -> JSONObject:
        """Return one resource with its attributes."""
        ...

    def show_software_config(self, ctxt: Any, config_id: str) -> JSONObject:
        """Return one software config."""
        ...

    def create_software_config(
        self,
        ctxt: Any,
        group: str | None,
        name: str | None,
        config: str | None,
        inputs: list[JSONObject] | None = None,
        outputs: list[JSONObject] | None = None,
        options: JSONObject | None = None,
    ) -> JSONObject:
        """Create a software config and return it (as Heat's client,
        absent inputs and outputs are sent as empty lists, absent options
        as an empty object)."""
        ...

    def delete_software_config(self, ctxt: Any, config_id: str) -> None:
        """Delete a software config."""
        ...

    def show_software_deployment(
        self, ctxt: Any, deployment_id: str
    ) -> JSONObject:
        """Return one software deployment."""
        ...

    def check_software_deployment(
        self, ctxt: Any, deployment_id: str, timeout: float
    ) -> JSONObject:
        """Poll a deployment's signal and return it; bounded by timeout."""
        ...

    def create_software_deployment(
        self,
        ctxt: Any,
        server_id: str | None,
        config_id: str | None = None,
        input_values: JSONObject | None = None,
        action: str | None = "INIT",
        status: str | None = "COMPLETE",
        status_reason: str | None = "",
        stack_user_project_id: str | None = None,
        deployment_id: str | None = None,
    ) -> JSONObject:
        """Create a software deployment and return it."""
        ...

    def update_software_deployment(
        self,
        ctxt: Any,
        deployment_id: str,
        config_id: str | None = None,
        input_values: JSONObject | None = None,
        output_values: JSONObject | None = None,
        action: str | None = None,
        status: str | None = None,
        status_reason: str | None = None,
        updated_at: str | None = None,
    ) -> JSONObject:
        """Update the given fields of a deployment and return it."""
        ...

    def delete_software_deployment(
        self, ctxt: Any, deployment_id: str
    ) -> None:
        """Delete a software deployment."""
        ...

    def signal_software_deployment(
        self,
        ctxt: Any,
        deployment_id: str,
        details: JSONObject,
        updated_at: str | None = None,
    ) -> Any:
        """Deliver an in-instance agent's signal to a deployment."""
        ...


class EngineAPI(ResourceEngineAPI, Protocol):
    """The whole engine API: what the native and CFN APIs call."""

    def list_stacks(
        self,
        ctxt: Any,
        limit: int | None = None,
        marker: str | None = None,
        sort_keys: list[str] | None = None,
        sort_dir: str | None = None,
        filters: JSONObject | None = None,
        show_deleted: bool = False,
        show_nested: bool = False,
        show_hidden: bool = False,
        tags: list[str] | None = None,
        tags_any: list[str] | None = None,
        not_tags: list[str] | None = None,
        not_tags_any: list[str] | None = None,
    ) -> list[JSONObject]:
        """Return stack summaries, paged, sorted and filtered."""
        ...

    def count_stacks(
        self,
        ctxt: Any,
        filters: JSONObject | None = None,
        show_deleted: bool = False,
        show_nested: bool = False,
        show_hidden: bool = False,
        tags: list[str] | None = None,
        tags_any: list[str] | None = None,
        not_tags: list[str] | None = None,
        not_tags_any: list[str] | None = None,
    ) -> int:
        """Return how many stacks match the filters."""
        ...

    def preview_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: JSONObject,
        params: JSONObject,
        files: JSONObject,
        args: JSONObject,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
    ) -> JSONObject:
        """Return what creating the stack would produce."""
        ...

    def preview_update_stack(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        template: JSONObject | None,
        params: JSONObject,
        files: JSONObject,
        args: JSONObject,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
    ) -> JSONObject:
        """Return the resource changes an update would make."""
        ...

    def validate_template(
        self,
        ctxt: Any,
        template: JSONObject,
        params: JSONObject | None = None,
        files: JSONObject | None = None,
        environment_files: list[str] | None = None,
        files_container: str | None = None,
        show_nested: bool = False,
        ignorable_errors: list[str] | None = None,
    ) -> JSONObject:
        """Validate a template; an ``Error`` key reports a failure."""
        ...

    def authenticated_to_backend(self, ctxt: Any) -> bool:
        """Return whether the context's credentials are valid."""
        ...

    def get_environment(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Return the stack's environment, hidden parameters masked."""
        ...

    def abandon_stack(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Forget a stack, keeping its resources; return its data."""
        ...

    def export_stack(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> JSONObject:
        """Return the stack's abandon data without abandoning it."""
        ...

    def list_outputs(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> list[JSONObject]:
        """Return the stack's outputs without their values."""
        ...

    def show_output(
        self, ctxt: Any, stack_identity: StackIdentity, output_key: str
    ) -> JSONObject:
        """Return one resolved output."""
        ...

    def migrate_convergence_1(self, ctxt: Any, stack_id: str) -> None:
        """Move a legacy stack to the convergence engine."""
        ...

    def list_resource_types(
        self,
        ctxt: Any,
        support_status: str | None = None,
        type_name: str | None = None,
        heat_version: str | None = None,
        with_description: bool = False,
    ) -> list[Any]:
        """Return type names, or ``{resource_type, description}`` items."""
        ...

    def list_template_versions(self, ctxt: Any) -> list[JSONObject]:
        """Return ``{version, type, aliases}`` for each template version."""
        ...

    def list_template_functions(
        self, ctxt: Any, template_version: str, with_condition: bool = False
    ) -> list[JSONObject]:
        """Return ``{functions, description}`` for a template version."""
        ...

    def resource_schema(
        self, ctxt: Any, type_name: str, with_description: bool = False
    ) -> JSONObject:
        """Return the schema of a resource type."""
        ...

    def generate_template(
        self, ctxt: Any, type_name: str, template_type: str = "cfn"
    ) -> JSONObject:
        """Return a provider template for a resource type."""
        ...

    def list_events(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        filters: JSONObject | None = None,
        limit: int | None = None,
        marker: str | None = None,
        sort_keys: list[str] | None = None,
        sort_dir: str | None = None,
        nested_depth: int | None = None,
    ) -> list[JSONObject]:
        """Return the stack's events, paged, sorted and filtered."""
        ...

    def find_physical_resource(
        self, ctxt: Any, physical_resource_id: str
    ) -> StackIdentity:
        """Return the identity of the resource with that physical id."""
        ...

    def describe_stack_resources(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resource_name: str | None,
    ) -> list[JSONObject]:
        """Return resources of a stack (CFN style)."""
        ...

    def list_stack_resources(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        nested_depth: int = 0,
        with_detail: bool = False,
        filters: JSONObject | None = None,
    ) -> list[JSONObject]:
        """Return the stack's resources, nested ones to a depth."""
        ...

    def resource_signal(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resource_name: str,
        details: Any,
        sync_call: bool = False,
    ) -> Any:
        """Signal a resource; with ``sync_call`` wait for the handler."""
        ...

    def resource_mark_unhealthy(
        self,
        ctxt: Any,
        stack_identity: StackIdentity,
        resource_name: str,
        mark_unhealthy: bool,
        resource_status_reason: str | None = None,
    ) -> None:
        """Mark a resource CHECK_FAILED, or back to CHECK_COMPLETE."""
        ...

    def get_revision(self, ctxt: Any) -> str:
        """Return the engine's ``[revision] heat_revision``."""
        ...

    def list_services(self, ctxt: Any) -> list[JSONObject]:
        """Return the engine service records."""
        ...

    def list_software_configs(
        self, ctxt: Any, limit: int | None = None, marker: str | None = None
    ) -> list[JSONObject]:
        """Return software config summaries."""
        ...

    def list_software_deployments(
        self, ctxt: Any, server_id: str | None = None
    ) -> list[JSONObject]:
        """Return deployments, of one server if given."""
        ...

    def metadata_software_deployments(
        self, ctxt: Any, server_id: str
    ) -> list[JSONObject]:
        """Return the configs deployed to a server."""
        ...

    def stack_snapshot(
        self, ctxt: Any, stack_identity: StackIdentity, name: str | None
    ) -> JSONObject:
        """Start a snapshot of the stack and return it."""
        ...

    def show_snapshot(
        self, ctxt: Any, stack_identity: StackIdentity, snapshot_id: str
    ) -> JSONObject:
        """Return one snapshot of the stack."""
        ...

    def delete_snapshot(
        self, ctxt: Any, stack_identity: StackIdentity, snapshot_id: str
    ) -> None:
        """Delete one snapshot of the stack."""
        ...

    def stack_list_snapshots(
        self, ctxt: Any, stack_identity: StackIdentity
    ) -> list[JSONObject]:
        """Return the stack's snapshots."""
        ...

    def stack_restore(
        self, ctxt: Any, stack_identity: StackIdentity, snapshot_id: str
    ) -> None:
        """Restore the stack from a snapshot."""
        ...
