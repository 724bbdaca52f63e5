# mypy: disable-error-code="no-any-return"
# (every method returns the engine's JSON, typed at the method)
"""Software config, deployment and snapshot calls of the engine API."""

from __future__ import annotations

from typing import Any

from keel_heat_core.rpc.engine_base import (
    JSONObject,
    RPCClientBase,
    StackIdentity,
)


class SoftwareAndSnapshotCalls(RPCClientBase):
    """The software config, deployment and snapshot methods."""

    # -- software configs and deployments ------------------------------

    def show_software_config(self, cnxt: Any, config_id: str) -> JSONObject:
        """Return one software config."""
        return self.call(cnxt, "show_software_config", config_id=config_id)

    def list_software_configs(
        self, cnxt: Any, limit: int | None = None, marker: str | None = None
    ) -> list[JSONObject]:
        """Return software config summaries."""
        return self.call(
            cnxt,
            "list_software_configs",
            version="1.33",
            limit=limit,
            marker=marker,
        )

    def create_software_config(
        self,
        cnxt: Any,
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
        return self.call(
            cnxt,
            "create_software_config",
            group=group,
            name=name,
            config=config,
            inputs=inputs or [],
            outputs=outputs or [],
            options=options or {},
        )

    def delete_software_config(self, cnxt: Any, config_id: str) -> None:
        """Delete a software config."""
        self.call(cnxt, "delete_software_config", config_id=config_id)

    def list_software_deployments(
        self, cnxt: Any, server_id: str | None = None
    ) -> list[JSONObject]:
        """Return deployments, of one server if given."""
        return self.call(
            cnxt, "list_software_deployments", server_id=server_id
        )

    def metadata_software_deployments(
        self, cnxt: Any, server_id: str
    ) -> list[JSONObject]:
        """Return the configs deployed to a server."""
        return self.call(
            cnxt, "metadata_software_deployments", server_id=server_id
        )

    def show_software_deployment(
        self, cnxt: Any, deployment_id: str
    ) -> JSONObject:
        """Return one software deployment."""
        return self.call(
            cnxt, "show_software_deployment", deployment_id=deployment_id
        )

    def check_software_deployment(
        self, cnxt: Any, deployment_id: str, timeout: float
    ) -> JSONObject:
        """Poll a deployment's signal and return it; bounded by timeout."""
        return self.call(
            cnxt,
            "check_software_deployment",
            version="1.27",
            rpc_timeout=timeout,
            deployment_id=deployment_id,
            timeout=timeout,
        )

    def create_software_deployment(
        self,
        cnxt: Any,
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
        return self.call(
            cnxt,
            "create_software_deployment",
            server_id=server_id,
            config_id=config_id,
            deployment_id=deployment_id,
            input_values=input_values,
            action=action,
            status=status,
            status_reason=status_reason,
            stack_user_project_id=stack_user_project_id,
        )

    def update_software_deployment(
        self,
        cnxt: Any,
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
        return self.call(
            cnxt,
            "update_software_deployment",
            version="1.5",
            deployment_id=deployment_id,
            config_id=config_id,
            input_values=input_values,
            output_values=output_values,
            action=action,
            status=status,
            status_reason=status_reason,
            updated_at=updated_at,
        )

    def delete_software_deployment(
        self, cnxt: Any, deployment_id: str
    ) -> None:
        """Delete a software deployment."""
        self.call(
            cnxt, "delete_software_deployment", deployment_id=deployment_id
        )

    def signal_software_deployment(
        self,
        cnxt: Any,
        deployment_id: str,
        details: JSONObject,
        updated_at: str | None = None,
    ) -> Any:
        """Deliver an in-instance agent's signal to a deployment."""
        return self.call(
            cnxt,
            "signal_software_deployment",
            version="1.6",
            deployment_id=deployment_id,
            details=details,
            updated_at=updated_at,
        )

    # -- snapshots -----------------------------------------------------

    def stack_snapshot(
        self, ctxt: Any, stack_identity: StackIdentity, name: str | None
    ) -> JSONObject:
        """Start a snapshot of the stack and return it."""
        return self.call(
            ctxt, "stack_snapshot", stack_identity=stack_identity, name=name
        )

    def show_snapshot(
        self, cnxt: Any, stack_identity: StackIdentity, snapshot_id: str
    ) -> JSONObject:
        """Return one snapshot of the stack."""
        return self.call(
            cnxt,
            "show_snapshot",
            stack_identity=stack_identity,
            snapshot_id=snapshot_id,
        )

    def delete_snapshot(
        self, cnxt: Any, stack_identity: StackIdentity, snapshot_id: str
    ) -> None:
        """Delete one snapshot of the stack."""
        self.call(
            cnxt,
            "delete_snapshot",
            stack_identity=stack_identity,
            snapshot_id=snapshot_id,
        )

    def stack_list_snapshots(
        self, cnxt: Any, stack_identity: StackIdentity
    ) -> list[JSONObject]:
        """Return the stack's snapshots."""
        return self.call(
            cnxt, "stack_list_snapshots", stack_identity=stack_identity
        )

    def stack_restore(
        self, cnxt: Any, stack_identity: StackIdentity, snapshot_id: str
    ) -> None:
        """Restore the stack from a snapshot."""
        self.call(
            cnxt,
            "stack_restore",
            stack_identity=stack_identity,
            snapshot_id=snapshot_id,
        )
