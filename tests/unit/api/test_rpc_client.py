"""The typed engine client: Heat's method names, arguments and versions."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from oslo_config import cfg

from keel_heat_core import exception
from keel_heat_core.rpc.client import EngineClient
from keel_heat_core.rpc.engine_base import messaging

# Heat's engine API 1.36 client: method -> pinned version (None = base).
PINNED = {
    "identify_stack": None, "list_stacks": "1.33", "count_stacks": "1.33",
    "show_stack": "1.20", "preview_stack": "1.36", "create_stack": "1.36",
    "update_stack": "1.36", "preview_update_stack": "1.36",
    "validate_template": "1.36", "authenticated_to_backend": None,
    "get_template": None, "get_environment": "1.28", "get_files": "1.32",
    "delete_stack": None, "abandon_stack": None, "export_stack": "1.22",
    "list_resource_types": "1.30", "list_template_versions": "1.11",
    "list_template_functions": "1.35", "resource_schema": "1.30",
    "generate_template": "1.9", "list_events": "1.31",
    "describe_stack_resource": "1.2", "find_physical_resource": None,
    "describe_stack_resources": None, "list_stack_resources": "1.25",
    "stack_suspend": None, "stack_resume": None, "stack_check": None,
    "stack_cancel_update": "1.14", "resource_signal": "1.3",
    "resource_mark_unhealthy": "1.26", "get_revision": None,
    "show_software_config": None, "list_software_configs": "1.33",
    "create_software_config": None, "delete_software_config": None,
    "list_software_deployments": None, "metadata_software_deployments": None,
    "show_software_deployment": None, "check_software_deployment": "1.27",
    "create_software_deployment": None, "update_software_deployment": "1.5",
    "delete_software_deployment": None, "signal_software_deployment": "1.6",
    "stack_snapshot": None, "show_snapshot": None, "delete_snapshot": None,
    "stack_list_snapshots": None, "stack_restore": None,
    "list_services": "1.4", "list_outputs": "1.19", "show_output": "1.19",
    "migrate_convergence_1": "1.34",
}  # fmt: skip


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = []
        self.prepared: dict[str, Any] = {}

    def prepare(self, **kwargs: Any) -> Recorder:
        self.prepared = kwargs
        return self

    def call(self, ctxt: Any, method: str, **kwargs: Any) -> Any:
        self.calls.append(("call", method, dict(self.prepared), kwargs))
        self.prepared = {}
        if method.startswith("count"):
            return 0
        return [] if method.startswith("list") else {}

    def cast(self, ctxt: Any, method: str, **kwargs: Any) -> None:
        self.calls.append(("cast", method, dict(self.prepared), kwargs))
        self.prepared = {}


@pytest.fixture
def client() -> tuple[EngineClient, Recorder]:
    conf = cfg.ConfigOpts()
    conf([], project="keel-heat-test")
    transport = messaging.get_rpc_transport(conf, url="fake:/")
    engine = EngineClient(conf, transport=transport)
    recorder = Recorder()
    engine._client = recorder
    return engine, recorder


def _public_methods() -> list[str]:
    return [
        name
        for name, _f in inspect.getmembers(EngineClient, inspect.isfunction)
        if not name.startswith("_") and name not in ("call", "cast")
    ]


def test_fifty_four_methods() -> None:
    assert sorted(_public_methods()) == sorted(PINNED)


@pytest.mark.parametrize("method", sorted(PINNED))
def test_version_pinning(
    client: tuple[EngineClient, Recorder], method: str
) -> None:
    engine, recorder = client
    func = getattr(engine, method)
    params = inspect.signature(func).parameters
    args = {
        name: "x"
        for name, p in list(params.items())[1:]
        if p.default is inspect.Parameter.empty
    }
    func({"project_id": "p"}, **args)
    kind, name, prepared, sent = recorder.calls[-1]
    assert name == method
    assert prepared.get("version") == PINNED[method]
    for key in args:
        assert key in sent


def test_create_stack_sends_heat_argument_names(
    client: tuple[EngineClient, Recorder],
) -> None:
    engine, recorder = client
    engine.create_stack({}, "s", {"t": 1}, {"parameters": {}}, {}, {"a": 1})
    _kind, _name, _prep, sent = recorder.calls[-1]
    assert list(sent) == [
        "stack_name", "template", "params", "files", "environment_files",
        "files_container", "args", "owner_id", "nested_depth",
        "user_creds_id", "stack_user_project_id", "parent_resource_name",
        "template_id",
    ]  # fmt: skip


def test_delete_can_cast(client: tuple[EngineClient, Recorder]) -> None:
    engine, recorder = client
    engine.delete_stack({}, {"stack_id": "i"}, cast=True)
    assert recorder.calls[-1][0] == "cast"


def test_remote_error_is_rebuilt(
    client: tuple[EngineClient, Recorder],
) -> None:
    engine, recorder = client

    def failing(ctxt: Any, method: str, **kwargs: Any) -> Any:
        raise messaging.RemoteError("StackExists", "exists", ["tb"])

    recorder.call = failing  # type: ignore[method-assign]
    with pytest.raises(Exception) as info:
        engine.identify_stack({}, "s")
    assert type(info.value).__name__ == "StackExists_Remote"


def _path_error() -> exception.StackValidationFailed:
    return exception.StackValidationFailed(
        error="Property error",
        path=["resources", "two", "properties", "value"],
        message="The Parameter (missing) was not provided.",
    )


HEAT_TEXT = (
    "Property error: : resources.two.properties.value: : "
    "The Parameter (missing) was not provided."
)


def test_in_process_error_is_rebuilt_once(
    client: tuple[EngineClient, Recorder],
) -> None:
    """fake:// hands over the engine's object; it is rebuilt as a broker
    would (Heat's doubled ": ")."""
    engine, recorder = client

    def failing(ctxt: Any, method: str, **kwargs: Any) -> Any:
        raise _path_error()

    recorder.call = failing  # type: ignore[method-assign]
    with pytest.raises(exception.StackValidationFailed) as info:
        engine.identify_stack({}, "s")
    assert str(info.value) == HEAT_TEXT


def test_broker_rebuilt_error_is_not_rebuilt_again(
    client: tuple[EngineClient, Recorder],
) -> None:
    """A broker already rebuilt the error (oslo.messaging's
    ``<Name>_Remote`` class from its keyword arguments): its text stays."""
    engine, recorder = client
    original = _path_error()
    remote_cls = type(
        "StackValidationFailed_Remote", (exception.StackValidationFailed,), {}
    )

    def failing(ctxt: Any, method: str, **kwargs: Any) -> Any:
        raise remote_cls(**original.kwargs)

    recorder.call = failing  # type: ignore[method-assign]
    with pytest.raises(exception.StackValidationFailed) as info:
        engine.identify_stack({}, "s")
    assert str(info.value) == HEAT_TEXT
