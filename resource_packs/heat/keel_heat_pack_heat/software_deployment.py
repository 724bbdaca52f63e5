"""``OS::Heat::SoftwareDeployment``: apply a software config to a server."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from keel_heat_core import plugin_api as api
from keel_heat_core.plugin_api import signal_responder as sr
from keel_heat_core.plugin_api.errors import ignore_error_by_name
from keel_heat_pack_heat.software_config_io import InputConfig, OutputConfig

Schema = api.properties.Schema

DEPLOYMENT_SIGNAL_TRANSPORTS = (
    sr.CFN_SIGNAL,
    sr.TEMP_URL_SIGNAL,
    sr.HEAT_SIGNAL,
    sr.NO_SIGNAL,
    sr.ZAQAR_SIGNAL,
)
#: Heat's ``default_deployment_signal_transport``.
DEFAULT_SIGNAL_TRANSPORT = sr.CFN_SIGNAL


class SoftwareDeployment(sr.SignalResponder):
    """Deploys a software config to a server and waits for its outputs.

    At each of its ``actions`` (CREATE and UPDATE by default) the
    deployment stores a derived config: the source config plus the input
    values and ``deploy_*`` inputs telling the server which action runs
    and how to signal back.  The server applies it and signals its outputs;
    the deployment completes then (or at once with ``NO_SIGNAL``), fails
    on a non-zero ``deploy_status_code`` or on an ``error_output``, and
    exposes the outputs as attributes besides ``deploy_stdout``,
    ``deploy_stderr`` and ``deploy_status_code``.
    """

    #: Any output of the config is an attribute: get_attr names are not
    #: checked against the schema at validation.
    dynamic_attributes = True

    support_status = api.SupportStatus(version="2014.1")
    default_client_name = "heat"
    no_signal_actions: tuple[str, ...] = ()
    signal_needs_metadata_updates = False

    PROPERTIES = (
        CONFIG,
        SERVER,
        INPUT_VALUES,
        DEPLOY_ACTIONS,
        NAME,
        SIGNAL_TRANSPORT,
    ) = (
        "config",
        "server",
        "input_values",
        "actions",
        "name",
        "signal_transport",
    )
    ALLOWED_DEPLOY_ACTIONS = (
        api.Resource.CREATE,
        api.Resource.UPDATE,
        api.Resource.DELETE,
        api.Resource.SUSPEND,
        api.Resource.RESUME,
    )
    ATTRIBUTES = (STDOUT, STDERR, STATUS_CODE) = (
        "deploy_stdout",
        "deploy_stderr",
        "deploy_status_code",
    )

    properties_schema = {
        CONFIG: Schema(
            Schema.STRING,
            "The id of the software config to apply.",
            update_allowed=True,
        ),
        SERVER: Schema(
            Schema.STRING,
            "The id of the server (or other resource) to configure.",
            required=True,
        ),
        INPUT_VALUES: Schema(
            Schema.MAP,
            "Values of the config's inputs.",
            update_allowed=True,
        ),
        DEPLOY_ACTIONS: Schema(
            Schema.LIST,
            "The actions of this resource that trigger the deployment.",
            update_allowed=True,
            default=[api.Resource.CREATE, api.Resource.UPDATE],
            constraints=[
                api.constraints.AllowedValues(ALLOWED_DEPLOY_ACTIONS)
            ],
        ),
        NAME: Schema(
            Schema.STRING,
            "The derived config's name; servers apply configs in name order.",
            update_allowed=True,
        ),
        SIGNAL_TRANSPORT: Schema(
            Schema.STRING,
            "How the server signals its outputs: a pre-signed heat-api-cfn "
            "URL (CFN_SIGNAL), a Swift temporary URL (TEMP_URL_SIGNAL), the "
            "Heat API with the deployment's credentials (HEAT_SIGNAL), a "
            "Zaqar queue (ZAQAR_SIGNAL), or not at all (NO_SIGNAL).",
            default=DEFAULT_SIGNAL_TRANSPORT,
            constraints=[
                api.constraints.AllowedValues(DEPLOYMENT_SIGNAL_TRANSPORTS)
            ],
        ),
    }

    attributes_schema = {
        STDOUT: api.attributes.Schema(
            "What the config wrote on standard output.",
            type=api.attributes.Schema.STRING,
        ),
        STDERR: api.attributes.Schema(
            "What the config wrote on standard error.",
            type=api.attributes.Schema.STRING,
        ),
        STATUS_CODE: api.attributes.Schema(
            "The exit status of the config.",
            type=api.attributes.Schema.STRING,
        ),
    }

    # -- derived configs ---------------------------------------------------

    def _no_signal(self) -> bool:
        return self.properties[self.SIGNAL_TRANSPORT] == sr.NO_SIGNAL

    def _load_config(self, config_id: str | None = None) -> dict[str, Any]:
        if config_id is None:
            config_id = self.properties[self.CONFIG]
        config: dict[str, Any] = {}
        if config_id:
            config = dict(
                self.rpc_client().show_software_config(self.context, config_id)
            )
        config["inputs"] = [
            InputConfig(**i) for i in config.get("inputs") or []
        ]
        config["outputs"] = [
            OutputConfig(**o) for o in config.get("outputs") or []
        ]
        return config

    def empty_config(self) -> Any:
        return ""

    def _build_derived_config(
        self, action: str, source: dict[str, Any], inputs: Any, options: Any
    ) -> Any:
        return source.get("config")

    def _signal_inputs(self) -> list[InputConfig]:
        transport = self.properties[self.SIGNAL_TRANSPORT]
        found: list[InputConfig] = []
        if transport == sr.CFN_SIGNAL:
            found.append(
                InputConfig(
                    name="deploy_signal_id",
                    value=self._get_ec2_signed_url(),
                    description="Where to signal the outputs",
                )
            )
            found.append(
                InputConfig(
                    name="deploy_signal_verb",
                    value="POST",
                    description="The HTTP verb of the signal",
                )
            )
        elif transport in (sr.HEAT_SIGNAL, sr.ZAQAR_SIGNAL):
            creds = self._get_heat_signal_credentials()
            for key, cred in (
                ("deploy_auth_url", "auth_url"),
                ("deploy_username", "username"),
                ("deploy_user_id", "user_id"),
                ("deploy_password", "password"),
                ("deploy_project_id", "project_id"),
            ):
                found.append(
                    InputConfig(
                        name=key,
                        value=creds[cred],
                        description="Credentials to signal the outputs",
                    )
                )
            if creds.get("region_name"):
                found.append(
                    InputConfig(
                        name="deploy_region_name",
                        value=creds["region_name"],
                        description="Region of the signal API",
                    )
                )
        if transport in (sr.TEMP_URL_SIGNAL, sr.ZAQAR_SIGNAL):
            raise api.exception.NotSupported(
                feature=f"Signal transport {transport} in this deployment"
            )
        return found

    def _build_derived_inputs(
        self, action: str, source: dict[str, Any]
    ) -> list[InputConfig]:
        values = dict(self.properties[self.INPUT_VALUES] or {})
        derived = [
            InputConfig(value=values.pop(i.name(), i.default()), **i.as_dict())
            for i in source["inputs"]
        ]
        derived.extend(InputConfig(name=k, value=v) for k, v in values.items())
        ident = self.identifier()
        derived.extend(
            [
                InputConfig(
                    name="deploy_server_id",
                    value=self.properties[self.SERVER],
                    description="ID of the server being deployed to",
                ),
                InputConfig(
                    name="deploy_action",
                    value=action,
                    description="The action being deployed",
                ),
                InputConfig(
                    name="deploy_stack_id",
                    value=f"{ident.stack_name}/{ident.stack_id}",
                    description="The stack of this deployment",
                ),
                InputConfig(
                    name="deploy_resource_name",
                    value=self.name,
                    description="The name of this deployment",
                ),
                InputConfig(
                    name="deploy_signal_transport",
                    value=self.properties[self.SIGNAL_TRANSPORT],
                    description="How to signal the outputs",
                ),
            ]
        )
        derived.extend(self._signal_inputs())
        return derived

    def _build_derived_config_params(
        self, action: str, source: dict[str, Any]
    ) -> dict[str, Any]:
        inputs = self._build_derived_inputs(action, source)
        options = source.get("options")
        config = self._build_derived_config(action, source, inputs, options)
        name = self.properties[self.NAME] or source.get("name")
        return {
            "group": source.get("group") or "Heat::Ungrouped",
            "config": config or self.empty_config(),
            "options": options,
            "inputs": [i.as_dict() for i in inputs],
            "outputs": [o.as_dict() for o in source["outputs"]],
            "name": name or self.physical_resource_name(),
        }

    def _delete_derived_config(self, config_id: str) -> None:
        with ignore_error_by_name("NotFound"):
            self.rpc_client().delete_software_config(self.context, config_id)

    def _get_derived_config_id(self) -> Any:
        sd = self.rpc_client().show_software_deployment(
            self.context, self.resource_id
        )
        return sd["config_id"]

    # -- actions -----------------------------------------------------------

    def _handle_action(
        self,
        action: str,
        config: dict[str, Any] | None = None,
        prev_derived_config: Any = None,
    ) -> Any:
        if config is None:
            config = self._load_config()
        if config.get("group") == "component":
            valid: set[str] = set()
            for conf in config["config"]["configs"]:
                valid.update(conf["actions"])
            if action not in valid:
                return None
        elif action not in self.properties[self.DEPLOY_ACTIONS]:
            return None
        params = self._build_derived_config_params(action, config)
        derived = self.rpc_client().create_software_config(
            self.context, **params
        )
        props: dict[str, Any] = {
            "config_id": derived["id"],
            "action": action,
            "input_values": self.properties[self.INPUT_VALUES],
        }
        if self._no_signal():
            props["status"] = self.COMPLETE
            props["status_reason"] = "Not waiting for outputs signal"
        else:
            props["status"] = self.IN_PROGRESS
            props["status_reason"] = "Deploy data available"
        rpc = self.rpc_client()
        if self.resource_id is None:
            deployment_id = str(uuid.uuid4())
            self.resource_id_set(deployment_id)
            sd = rpc.create_software_deployment(
                self.context,
                deployment_id=deployment_id,
                server_id=self.properties[self.SERVER],
                stack_user_project_id=self.stack.stack_user_project_id,
                **props,
            )
        else:
            if prev_derived_config is None:
                prev_derived_config = self._get_derived_config_id()
            sd = rpc.update_software_deployment(
                self.context, deployment_id=self.resource_id, **props
            )
            if prev_derived_config:
                self._delete_derived_config(prev_derived_config)
        return None if self._no_signal() else sd

    def _check_complete(self) -> bool:
        sd = self.rpc_client().show_software_deployment(
            self.context, self.resource_id
        )
        if sd["status"] == self.COMPLETE:
            return True
        if sd["status"] == self.FAILED:
            raise api.exception.Error(
                "Deployment to server failed: {}".format(sd["status_reason"])
            )
        return False

    def handle_create(self) -> Any:
        return self._handle_action(self.CREATE)

    def check_create_complete(self, sd: Any) -> bool:
        return True if not sd else self._check_complete()

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: Any
    ) -> Any:
        prev_derived = self._get_derived_config_id()
        old_inputs = {
            i.name(): i for i in self._load_config(prev_derived)["inputs"]
        }
        self.properties = json_snippet.properties(
            self.properties_schema, self.context
        )
        config = self._load_config()
        for inp in self._build_derived_inputs(self.UPDATE, config):
            name = inp.name()
            if (
                inp.replace_on_change()
                and name in old_inputs
                and (inp.input_data() != old_inputs[name].input_data())
            ):
                raise api.exception.UpdateReplace(self.name)
        return self._handle_action(
            self.UPDATE, config=config, prev_derived_config=prev_derived
        )

    def check_update_complete(self, sd: Any) -> bool:
        return True if not sd else self._check_complete()

    def handle_delete(self) -> Any:
        try:
            return self._handle_action(self.DELETE)
        except Exception as exc:
            if not api.errors.is_error_named(exc, "NotFound"):
                raise
        return None

    def _server_exists(self, sd: Any) -> bool:
        try:
            self.client_plugin("nova").get_server(sd["server_id"])
        except api.exception.EntityNotFound:
            return False
        return True

    def check_delete_complete(self, sd: Any = None) -> bool:
        if not sd or not self._server_exists(sd) or self._check_complete():
            self._delete_resource()
            return True
        return False

    def _delete_resource(self) -> None:
        for key in ("ec2_signed_url", "heat_signal_url"):
            self.data_delete(key)
        self._delete_user()
        derived = None
        if self.resource_id is not None:
            with ignore_error_by_name("NotFound"):
                derived = self._get_derived_config_id()
                self.rpc_client().delete_software_deployment(
                    self.context, self.resource_id
                )
        if derived:
            self._delete_derived_config(derived)

    def handle_suspend(self) -> Any:
        return self._handle_action(self.SUSPEND)

    def check_suspend_complete(self, sd: Any) -> bool:
        return True if not sd else self._check_complete()

    def handle_resume(self) -> Any:
        return self._handle_action(self.RESUME)

    def check_resume_complete(self, sd: Any) -> bool:
        return True if not sd else self._check_complete()

    def handle_signal(self, details: Any = None) -> Any:
        return self.rpc_client().signal_software_deployment(
            self.context,
            self.resource_id,
            details,
            datetime.datetime.now(datetime.UTC).isoformat(),
        )

    def get_attribute(self, key: str, *path: Any) -> Any:
        """Attributes are the deployment's output values."""
        if self.resource_id is None:
            return None
        sd = self.rpc_client().show_software_deployment(
            self.context, self.resource_id
        )
        values = sd.get("output_values") or {}
        if key in values:
            return api.attributes.select_from_attribute(values[key], path)
        config = self.rpc_client().show_software_config(
            self.context, self.properties[self.CONFIG]
        )
        names = [o["name"] for o in config.get("outputs") or []]
        if key not in names and key not in self.ATTRIBUTES:
            raise api.exception.InvalidTemplateAttribute(
                resource=self.name, key=key
            )
        return None

    def FnGetAtt(self, key: str, *path: Any) -> Any:  # noqa: N802 - Heat
        if self.action == self.INIT:
            return None
        return self.get_attribute(key, *path)

    def validate(self) -> None:
        super().validate()
        server = self.properties[self.SERVER]
        if server:
            res = self.stack.resource_by_refid(server)
            fmt = (
                None if res is None else res.properties.get("user_data_format")
            )
            # as Heat: only a server that says otherwise is refused
            if fmt and fmt != "SOFTWARE_CONFIG":
                raise api.exception.StackValidationFailed(
                    message=f"Resource {server}'s property user_data_format "
                    "should be set to SOFTWARE_CONFIG since there are "
                    "software deployments on it."
                )
