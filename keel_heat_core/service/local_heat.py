"""The ``heat`` client of ``OS::Heat::Stack`` for this cloud's own region.

``OS::Heat::Stack`` (``keel_heat_pack_heat.remote_stack``) drives a stack
through a Heat API with python-heatclient's calls (``stacks.create``,
``stacks.get``, ``actions.suspend``…). When its ``context.region_name``
is the region this engine serves (``[DEFAULT] region_name_for_services``,
or no region at all), keel-heat serves those calls in-process, like the
child stacks of nested resources (``service/nested.py``): the stack is an
ordinary top-level stack of the same project, made with the parent
stack's identity, and no token is needed. Another region would need the
stack's credentials and that region's catalog entry; it is refused with
the text keystoneauth gives for a region without an orchestration
endpoint (``docs/compat.md``).

Errors come back as heatclient's do: ``str()`` is ``ERROR: <message>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from keel_heat_core import exception


class HeatClientError(Exception):
    """An error of the API, as python-heatclient shows it.

    :ivar error: the engine exception.
    """

    def __init__(self, error: Exception) -> None:
        self.error = error
        super().__init__(f"ERROR: {error}")


def _not_found(exc: BaseException) -> bool:
    inner = getattr(exc, "error", exc)
    return isinstance(inner, exception.EntityNotFound | exception.NotFound)


class LocalHeatPlugin:
    """What ``client_plugin("heat")`` offers the resource."""

    def is_not_found(self, exc: BaseException) -> bool:
        return _not_found(exc)

    def ignore_not_found(self, exc: BaseException) -> None:
        if not _not_found(exc):
            raise exc


class RemoteStackView:
    """A stack as heatclient's ``Stack`` object shows it."""

    def __init__(self, shown: Mapping[str, Any]) -> None:
        self.id = shown.get("stack_identity", {}).get("stack_id")
        self.stack_name = shown.get("stack_name")
        self.action = shown.get("stack_action") or ""
        self.status = shown.get("stack_status") or ""
        self.stack_status = f"{self.action}_{self.status}"
        self.stack_status_reason = shown.get("stack_status_reason") or ""
        self.outputs = list(shown.get("outputs") or [])


def _call(work: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return work(*args, **kwargs)
    except exception.HeatException as exc:
        raise HeatClientError(exc) from exc


class _Stacks:
    def __init__(self, rpc: Any, ctxt: Any) -> None:
        self._rpc = rpc
        self._ctxt = ctxt

    def validate(self, **args: Any) -> dict[str, Any]:
        api = self._rpc.stack_api
        _call(
            api.parse,
            self._ctxt,
            "validate",
            args.get("template") or {},
            args.get("environment"),
            args.get("files"),
            "None",
        )
        return {}

    def create(self, **args: Any) -> dict[str, Any]:
        ident = _call(
            self._rpc.create_stack,
            self._ctxt,
            args["stack_name"],
            args.get("template") or {},
            args.get("environment"),
            args.get("files"),
            {
                "timeout_mins": args.get("timeout_mins"),
                "disable_rollback": args.get("disable_rollback", True),
            },
        )
        return {"stack": {"id": ident["stack_id"]}}

    def update(self, stack_id: str, **args: Any) -> None:
        _call(
            self._rpc.update_stack,
            self._ctxt,
            {"stack_id": stack_id},
            args.get("template") or {},
            args.get("environment"),
            args.get("files"),
            {
                "timeout_mins": args.get("timeout_mins"),
                "disable_rollback": args.get("disable_rollback", True),
            },
        )

    def delete(self, stack_id: str) -> None:
        _call(self._rpc.delete_stack, self._ctxt, {"stack_id": stack_id})

    def get(self, stack_id: str) -> RemoteStackView:
        shown = _call(self._rpc.show_stack, self._ctxt, {"stack_id": stack_id})
        return RemoteStackView(shown[0])


class _Actions:
    def __init__(self, rpc: Any, ctxt: Any) -> None:
        self._rpc = rpc
        self._ctxt = ctxt

    def suspend(self, stack_id: str) -> None:
        _call(self._rpc.stack_suspend, self._ctxt, {"stack_id": stack_id})

    def resume(self, stack_id: str) -> None:
        _call(self._rpc.stack_resume, self._ctxt, {"stack_id": stack_id})

    def check(self, stack_id: str) -> None:
        _call(self._rpc.stack_check, self._ctxt, {"stack_id": stack_id})


class LocalHeatClient:
    """heatclient's ``stacks`` and ``actions`` over this engine.

    :param rpc: the in-process engine client (``LocalEngineRPC``).
    :param ctxt: the context of the parent stack (its project and user).
    """

    def __init__(self, rpc: Any, ctxt: Any) -> None:
        self.stacks = _Stacks(rpc, ctxt)
        self.actions = _Actions(rpc, ctxt)
