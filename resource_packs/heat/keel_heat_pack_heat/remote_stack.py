"""``OS::Heat::Stack``: a stack created through a Heat API, maybe remote."""

from __future__ import annotations

import json
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api.templates import parse_template

Schema = api.properties.Schema


class RemoteStack(api.Resource):
    """A stack created through the Heat API of a region (this one by default).

    ``context.region_name`` picks the region; the stack is created with the
    caller's credentials (``credential_secret_id`` is not supported here).
    Every stack update updates the remote stack, whose resources decide
    what changes.  ``outputs`` maps the remote stack's output keys to their
    values.
    """

    default_client_name = "heat"

    PROPERTIES = (CONTEXT, TEMPLATE, TIMEOUT, PARAMETERS) = (
        "context",
        "template",
        "timeout",
        "parameters",
    )
    _CONTEXT_KEYS = (REGION_NAME, CREDENTIAL_SECRET_ID, CA_CERT, INSECURE) = (
        "region_name",
        "credential_secret_id",
        "ca_cert",
        "insecure",
    )
    ATTRIBUTES = (NAME_ATTR, OUTPUTS) = ("stack_name", "outputs")

    properties_schema = {
        CONTEXT: Schema(
            Schema.MAP,
            "Where and how to reach the Heat API.",
            update_allowed=True,
            schema={
                REGION_NAME: Schema(
                    Schema.STRING, "The region of the Heat API."
                ),
                CREDENTIAL_SECRET_ID: Schema(
                    Schema.STRING,
                    "A Barbican secret holding credentials for the region.",
                    update_allowed=True,
                    support_status=api.SupportStatus(version="13.0.0"),
                ),
                CA_CERT: Schema(
                    Schema.STRING,
                    "CA certificate of the Heat API, for TLS.",
                    update_allowed=True,
                    support_status=api.SupportStatus(version="13.0.0"),
                ),
                INSECURE: Schema(
                    Schema.BOOLEAN,
                    "Skip the TLS certificate check.",
                    default=False,
                    update_allowed=True,
                    support_status=api.SupportStatus(version="13.0.0"),
                ),
            },
        ),
        TEMPLATE: Schema(
            Schema.STRING,
            "The template of the stack.",
            required=True,
            update_allowed=True,
        ),
        TIMEOUT: Schema(
            Schema.INTEGER,
            "Minutes to wait for the stack.",
            update_allowed=True,
        ),
        PARAMETERS: Schema(
            Schema.MAP,
            "Parameter values of the stack.",
            default={},
            update_allowed=True,
        ),
    }

    attributes_schema = {
        NAME_ATTR: api.attributes.Schema(
            "The name of the stack.", type=api.attributes.Schema.STRING
        ),
        OUTPUTS: api.attributes.Schema(
            "Output key to value, of the stack.",
            type=api.attributes.Schema.MAP,
        ),
    }

    def _region_name(self) -> str | None:
        ctx = self.properties[self.CONTEXT] or {}
        region = ctx.get(self.REGION_NAME)
        return region or getattr(self.context, "region_name", None)

    def _clients(self) -> Any:
        region = self._region_name()
        if region and region != getattr(self.context, "region_name", None):
            for_region = getattr(self.stack, "clients_for_region", None)
            if not callable(for_region):
                raise api.exception.NotSupported(
                    feature=f"Heat API of region {region}"
                )
            return for_region(region)
        return self.stack.clients

    def heat(self) -> Any:
        """The Heat client of the chosen region."""
        return self._clients().client(self.default_client_name)

    def _ignore_not_found(self, exc: Exception) -> None:
        self._clients().client_plugin(
            self.default_client_name
        ).ignore_not_found(exc)

    def _stack_args(self) -> dict[str, Any]:
        params = dict(self.properties[self.PARAMETERS] or {})
        make_env = getattr(self.stack, "child_environment", None)
        env = (
            make_env(params, self.name)
            if callable(make_env)
            else {"parameters": params}
        )
        return {
            "template": parse_template(self.properties[self.TEMPLATE]),
            "parameters": params,
            "files": dict(getattr(self.stack.t, "files", {}) or {}),
            "environment": env,
        }

    def validate(self) -> None:
        super().validate()
        ctx = self.properties[self.CONTEXT] or {}
        if ctx.get(self.CREDENTIAL_SECRET_ID):
            raise api.exception.StackValidationFailed(
                message="credential_secret_id is not supported by this "
                "deployment"
            )
        region = self._region_name()
        try:
            heat = self.heat()
        except Exception as ex:
            raise api.exception.StackValidationFailed(
                message="Cannot establish connection to Heat endpoint at "
                f'region "{region}" due to "{ex}"'
            ) from ex
        try:
            args = self._stack_args()
            args.pop("parameters")
            heat.stacks.validate(**args)
        except Exception as ex:
            raise api.exception.StackValidationFailed(
                message="Failed validating stack template using Heat "
                f'endpoint at region "{region}" due to "{ex}"'
            ) from ex

    def handle_create(self) -> None:
        args = self._stack_args()
        args.update(
            stack_name=self.physical_resource_name() or self.name,
            timeout_mins=self.properties[self.TIMEOUT],
            disable_rollback=True,
        )
        created = self.heat().stacks.create(**args)
        self.resource_id_set(created["stack"]["id"])

    def _needs_update(self, *args: Any, **kwargs: Any) -> bool:
        # Always update the remote stack; its resources decide.
        return True

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> None:
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        if self.resource_id is None:
            return
        args = self._stack_args()
        args.update(
            stack_id=self.resource_id,
            timeout_mins=self.properties[self.TIMEOUT],
            disable_rollback=getattr(self.stack, "disable_rollback", True),
        )
        self.heat().stacks.update(**args)

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            self.heat().stacks.delete(stack_id=self.resource_id)
        except Exception as exc:
            self._ignore_not_found(exc)

    def handle_suspend(self) -> None:
        if self.resource_id is None:
            raise api.exception.Error(
                f"Cannot suspend {self.name}, resource not found"
            )
        self.heat().actions.suspend(stack_id=self.resource_id)

    def handle_resume(self) -> None:
        if self.resource_id is None:
            raise api.exception.Error(
                f"Cannot resume {self.name}, resource not found"
            )
        self.heat().actions.resume(stack_id=self.resource_id)

    def handle_check(self) -> None:
        self.heat().actions.check(stack_id=self.resource_id)

    def handle_snapshot(self) -> None:
        snapshot = self.heat().stacks.snapshot(stack_id=self.resource_id)
        self.data_set("snapshot_id", snapshot["id"])

    def handle_restore(self, defn: Any, restore_data: Any) -> Any:
        snapshot_id = restore_data["resource_data"]["snapshot_id"]
        snapshot = self.heat().stacks.snapshot_show(
            self.resource_id, snapshot_id
        )
        data = snapshot["snapshot"]["data"]
        props = {
            k: self.properties.resolve(v)
            for k, v in self.properties.data.items()
        }
        props[self.TEMPLATE] = json.dumps(data["template"])
        props[self.PARAMETERS] = (data.get("environment") or {}).get(
            "parameters", {}
        )
        return defn.freeze(properties=props)

    def _check_action_complete(self, action: str) -> bool:
        stack = self.heat().stacks.get(stack_id=self.resource_id)
        if stack.action != action or stack.status == self.IN_PROGRESS:
            return False
        if stack.status == self.COMPLETE:
            return True
        if stack.status == self.FAILED:
            raise api.exception.ResourceInError(
                resource_status=stack.stack_status,
                status_reason=stack.stack_status_reason,
            )
        raise api.exception.ResourceUnknownStatus(
            resource_status=stack.stack_status,
            status_reason=stack.stack_status_reason,
        )

    def check_create_complete(self, *args: Any) -> bool:
        return self._check_action_complete(self.CREATE)

    def check_update_complete(self, *args: Any) -> bool:
        return self._check_action_complete(self.UPDATE)

    def check_suspend_complete(self, *args: Any) -> bool:
        return self._check_action_complete(self.SUSPEND)

    def check_resume_complete(self, *args: Any) -> bool:
        return self._check_action_complete(self.RESUME)

    def check_check_complete(self, *args: Any) -> bool:
        return self._check_action_complete(self.CHECK)

    def check_snapshot_complete(self, *args: Any) -> bool:
        return self._check_action_complete(self.SNAPSHOT)

    def check_delete_complete(self, *args: Any) -> bool:
        if self.resource_id is None:
            return True
        try:
            return self._check_action_complete(self.DELETE)
        except Exception as exc:
            self._ignore_not_found(exc)
            return True

    def _resolve_attribute(self, name: str) -> Any:
        try:
            stack = self.heat().stacks.get(stack_id=self.resource_id)
        except Exception as exc:
            self._ignore_not_found(exc)
            return None
        if name == self.NAME_ATTR:
            value = getattr(stack, name, None)
            return value or self.physical_resource_name() or self.name
        if name == self.OUTPUTS:
            return {
                o["output_key"]: o["output_value"]
                for o in getattr(stack, "outputs", None) or []
            }
        return None

    def get_reference_id(self) -> str:
        return str(self.resource_id) if self.resource_id else self.name
