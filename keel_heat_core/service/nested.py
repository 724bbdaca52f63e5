"""The engine client nested stacks use, served in-process.

A ``StackResource`` (ResourceGroup, template resources, ...) asks its
stack's ``rpc_client()`` to create, update and delete its child stack
with Heat's EngineClient method names (``_create_stack``,
``_update_stack``, ...). Heat sends those calls over RPC to any engine;
keel-heat serves them on the engine running the parent's node, which is
as correct (the child is an ordinary stack with its own traversal that
every engine works on) and needs no token on the bus.
"""

from __future__ import annotations

from typing import Any

from keel_heat_core.model import rows as r
from keel_heat_core.rpc.engine_api import ResourceEngineAPI
from keel_heat_core.service.local_heat import LocalHeatClient, LocalHeatPlugin
from keel_heat_core.service.software import LocalSoftwareRPC
from keel_heat_core.service.stack_api import StackAPI
from keel_heat_core.service.stack_reads import StackReads


class LocalEngineRPC(LocalSoftwareRPC, ResourceEngineAPI):
    """Heat's engine client calls a nested stack makes, in-process (and
    the software config and deployment calls, see the base class)."""

    def __init__(self, api: StackAPI) -> None:
        super().__init__(api.db, api.conf)
        self._api = api
        self._reads = StackReads(api)

    # -- OS::Heat::Stack in this region (service/local_heat.py) -------------

    @property
    def stack_api(self) -> StackAPI:
        """The engine's stack operations."""
        return self._api

    @property
    def region_name(self) -> str | None:
        """The region this engine serves (``region_name_for_services``)."""
        region: str | None = self._api.conf.region_name_for_services
        return region

    def heat_client(self, ctxt: Any) -> LocalHeatClient:
        """heatclient's calls served by this engine, as ``ctxt``."""
        return LocalHeatClient(self, ctxt)

    def heat_client_plugin(self, ctxt: Any) -> LocalHeatPlugin:
        """The ``heat`` client plugin (not-found checks)."""
        return LocalHeatPlugin()

    def create_stack(
        self,
        ctxt: Any,
        stack_name: str,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        environment_files: Any = None,
        files_container: str | None = None,
        owner_id: str | None = None,
        nested_depth: int = 0,
        user_creds_id: int | None = None,
        stack_user_project_id: str | None = None,
        parent_resource_name: str | None = None,
        template_id: int | None = None,
    ) -> dict[str, str]:
        # environment files, a files container and a stored template are
        # what an API request brings; a parent resource sends none
        return self._api.create_stack(
            ctxt,
            stack_name,
            template,
            params,
            files,
            args,
            owner_id=owner_id,
            nested_depth=nested_depth,
            user_creds_id=user_creds_id,
            stack_user_project_id=stack_user_project_id,
            parent_resource_name=parent_resource_name,
        )

    _create_stack = create_stack

    def update_stack(
        self,
        ctxt: Any,
        stack_identity: Any,
        template: Any,
        params: Any,
        files: Any,
        args: Any,
        environment_files: Any = None,
        files_container: str | None = None,
        template_id: int | None = None,
    ) -> dict[str, str]:
        return self._api.update_stack(
            ctxt, stack_identity, template, params, files, args
        )

    _update_stack = update_stack

    def delete_stack(
        self, ctxt: Any, stack_identity: Any, cast: bool = False
    ) -> None:
        self._api.delete_stack(ctxt, stack_identity)

    def stack_suspend(self, ctxt: Any, stack_identity: Any) -> None:
        self._api.stack_action(ctxt, stack_identity, r.SUSPEND)

    def stack_resume(self, ctxt: Any, stack_identity: Any) -> None:
        self._api.stack_action(ctxt, stack_identity, r.RESUME)

    def stack_check(self, ctxt: Any, stack_identity: Any) -> None:
        self._api.stack_action(ctxt, stack_identity, r.CHECK)

    def stack_cancel_update(
        self,
        ctxt: Any,
        stack_identity: Any,
        cancel_with_rollback: bool = True,
    ) -> None:
        self._api.stack_cancel_update(
            ctxt, stack_identity, cancel_with_rollback
        )

    def show_stack(
        self, ctxt: Any, stack_identity: Any, resolve_outputs: bool = True
    ) -> Any:
        return self._reads.show_stack(ctxt, stack_identity, resolve_outputs)

    def get_template(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._reads.get_template(ctxt, stack_identity)

    def get_files(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._reads.get_files(ctxt, stack_identity)

    def describe_stack_resource(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        with_attr: Any = None,
    ) -> Any:
        return self._reads.describe_stack_resource(
            ctxt, stack_identity, resource_name, with_attr=with_attr or None
        )

    def resource_reference(
        self, ctxt: Any, stack_identity: Any, resource_name: str
    ) -> str | None:
        """The reference id of a resource of a child stack (what a
        template resource's ``resource.<name>`` answers)."""
        return self._reads.resource_reference(
            ctxt, stack_identity, resource_name
        )

    def identify_stack(self, ctxt: Any, stack_name: str) -> Any:
        return self._reads.identify_stack(ctxt, stack_name)
