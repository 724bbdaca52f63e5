"""Typed client of the engine RPC API (Heat's engine API 1.36).

Its methods are those of :class:`~keel_heat_core.rpc.engine_api.EngineAPI`,
made by :func:`remote`: each sends its arguments by name, in the order
Heat's own client sends them, and pins the version Heat's client pins,
so that this client can talk to a Heat engine and a Heat API to a
keel-heat engine. See :mod:`.engine_base` for how remote exceptions are
rebuilt.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

from keel_heat_core.rpc.engine_api import (
    EngineAPI,
    JSONObject,
    StackIdentity,
    arguments_by_name,
)
from keel_heat_core.rpc.engine_base import (
    ALLOWED_EXMODS,
    ENGINE_TOPIC,
    RemoteEngineError,
    RPCClientBase,
    get_transport,
    rebuild_remote_error,
)

__all__ = [
    "ALLOWED_EXMODS",
    "ENGINE_TOPIC",
    "EngineClient",
    "RemoteEngineError",
    "get_transport",
    "rebuild_remote_error",
    "remote",
]

P = ParamSpec("P")
R = TypeVar("R")

# Heat's client sends the stack arguments in this order, which is not
# the order of the method's parameters.
_STACK_WIRE = (
    "template",
    "params",
    "files",
    "environment_files",
    "files_container",
    "args",
)


def remote(
    method: Callable[Concatenate[Any, P], R],
    version: str | None = None,
    wire: tuple[str, ...] = (),
    result: Callable[[Any], Any] | None = None,
) -> Callable[Concatenate[RPCClientBase, P], R]:
    """The client method that calls ``method`` of the engine API.

    :param method: the method of :class:`EngineAPI`; the client method
        has its name, signature and docstring.
    :param version: the API version the call pins (none: the base).
    :param wire: the names of the arguments sent first, in this order
        (the others follow in the order of the signature).
    :param result: turns the engine's answer into the declared type.
    """
    name = method.__name__

    @functools.wraps(method)
    def call(self: RPCClientBase, /, *args: P.args, **kwargs: P.kwargs) -> R:
        values = arguments_by_name(method, args, kwargs, defaults=True)
        ctxt = values.pop("ctxt")
        sent = {key: values.pop(key) for key in wire}
        sent.update(values)
        answer = self.call(ctxt, name, version=version, **sent)
        converted: R = answer if result is None else result(answer)
        return converted

    return call


class EngineClient(RPCClientBase, EngineAPI):
    """Client side of the engine API, topic ``engine``.

    :param conf: configuration (``transport_url``, ``rpc_response_timeout``).
    :param transport: an existing transport; built from ``conf`` if absent.
    """

    # -- stacks --------------------------------------------------------

    identify_stack = remote(EngineAPI.identify_stack)
    list_stacks = remote(
        EngineAPI.list_stacks, "1.33", wire=("limit", "sort_keys")
    )
    count_stacks = remote(EngineAPI.count_stacks, "1.33", result=int)
    show_stack = remote(EngineAPI.show_stack, "1.20")
    preview_stack = remote(
        EngineAPI.preview_stack, "1.36", wire=("stack_name", *_STACK_WIRE)
    )
    create_stack = remote(
        EngineAPI.create_stack, "1.36", wire=("stack_name", *_STACK_WIRE)
    )
    update_stack = remote(
        EngineAPI.update_stack, "1.36", wire=("stack_identity", *_STACK_WIRE)
    )
    preview_update_stack = remote(
        EngineAPI.preview_update_stack,
        "1.36",
        wire=("stack_identity", *_STACK_WIRE),
    )
    validate_template = remote(
        EngineAPI.validate_template,
        "1.36",
        wire=("template", "params", "files", "show_nested"),
    )
    authenticated_to_backend = remote(
        EngineAPI.authenticated_to_backend, result=bool
    )
    get_template = remote(EngineAPI.get_template)
    get_environment = remote(EngineAPI.get_environment, "1.28")
    get_files = remote(EngineAPI.get_files, "1.32")

    def delete_stack(
        self, ctxt: Any, stack_identity: StackIdentity, cast: bool = False
    ) -> None:
        """Delete a stack; with ``cast`` do not wait for the engine."""
        if cast:
            self.cast(ctxt, "delete_stack", stack_identity=stack_identity)
            return
        self.call(ctxt, "delete_stack", stack_identity=stack_identity)

    abandon_stack = remote(EngineAPI.abandon_stack)
    export_stack = remote(EngineAPI.export_stack, "1.22")
    stack_suspend = remote(EngineAPI.stack_suspend)
    stack_resume = remote(EngineAPI.stack_resume)
    stack_check = remote(EngineAPI.stack_check)
    stack_cancel_update = remote(EngineAPI.stack_cancel_update, "1.14")
    list_outputs = remote(EngineAPI.list_outputs, "1.19")
    show_output = remote(EngineAPI.show_output, "1.19")
    migrate_convergence_1 = remote(EngineAPI.migrate_convergence_1, "1.34")

    # -- types, templates, resources and events -------------------------

    list_resource_types = remote(EngineAPI.list_resource_types, "1.30")
    list_template_versions = remote(EngineAPI.list_template_versions, "1.11")
    list_template_functions = remote(EngineAPI.list_template_functions, "1.35")
    resource_schema = remote(EngineAPI.resource_schema, "1.30")
    generate_template = remote(EngineAPI.generate_template, "1.9")
    list_events = remote(EngineAPI.list_events, "1.31")
    describe_stack_resource = remote(EngineAPI.describe_stack_resource, "1.2")
    find_physical_resource = remote(EngineAPI.find_physical_resource)
    describe_stack_resources = remote(EngineAPI.describe_stack_resources)
    list_stack_resources = remote(EngineAPI.list_stack_resources, "1.25")
    resource_signal = remote(EngineAPI.resource_signal, "1.3")
    resource_mark_unhealthy = remote(EngineAPI.resource_mark_unhealthy, "1.26")
    get_revision = remote(EngineAPI.get_revision, result=str)
    list_services = remote(EngineAPI.list_services, "1.4")

    # -- software configs and deployments ------------------------------

    show_software_config = remote(EngineAPI.show_software_config)
    list_software_configs = remote(EngineAPI.list_software_configs, "1.33")

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
        answer: JSONObject = self.call(
            ctxt,
            "create_software_config",
            group=group,
            name=name,
            config=config,
            inputs=inputs or [],
            outputs=outputs or [],
            options=options or {},
        )
        return answer

    delete_software_config = remote(EngineAPI.delete_software_config)
    list_software_deployments = remote(EngineAPI.list_software_deployments)
    metadata_software_deployments = remote(
        EngineAPI.metadata_software_deployments
    )
    show_software_deployment = remote(EngineAPI.show_software_deployment)

    def check_software_deployment(
        self, ctxt: Any, deployment_id: str, timeout: float
    ) -> JSONObject:
        """Poll a deployment's signal and return it; bounded by timeout."""
        answer: JSONObject = self.call(
            ctxt,
            "check_software_deployment",
            version="1.27",
            rpc_timeout=timeout,
            deployment_id=deployment_id,
            timeout=timeout,
        )
        return answer

    create_software_deployment = remote(
        EngineAPI.create_software_deployment,
        wire=("server_id", "config_id", "deployment_id"),
    )
    update_software_deployment = remote(
        EngineAPI.update_software_deployment, "1.5"
    )
    delete_software_deployment = remote(EngineAPI.delete_software_deployment)
    signal_software_deployment = remote(
        EngineAPI.signal_software_deployment, "1.6"
    )

    # -- snapshots -----------------------------------------------------

    stack_snapshot = remote(EngineAPI.stack_snapshot)
    show_snapshot = remote(EngineAPI.show_snapshot)
    delete_snapshot = remote(EngineAPI.delete_snapshot)
    stack_list_snapshots = remote(EngineAPI.stack_list_snapshots)
    stack_restore = remote(EngineAPI.stack_restore)
