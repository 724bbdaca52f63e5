"""Resource, event, snapshot, discovery and software calls of the fake
engine (see :mod:`keel_heat_core.testing.fake_engine`)."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from keel_heat_core import exception as exc
from keel_heat_core.service import software_io
from keel_heat_core.service.software import signal_outcome

CFN_VERSIONS = ("AWSTemplateFormatVersion", "HeatTemplateFormatVersion")


def caller(ctxt: Any) -> Mapping[str, Any]:
    """The request context as a dict: over the bus it is one; a
    resource's ``rpc_client()`` passes the context object itself."""
    if isinstance(ctxt, Mapping):
        return ctxt
    return {
        "project_id": getattr(ctxt, "project_id", None),
        "is_admin": bool(getattr(ctxt, "is_admin", False)),
    }


def is_cfn(template: Any) -> bool:
    """Whether a template is in the CFN format."""
    return any(key in (template or {}) for key in CFN_VERSIONS)


TEMPLATE_VERSIONS = [
    {
        "version": "AWSTemplateFormatVersion.2010-09-09",
        "type": "cfn",
        "aliases": [],
    },
    {
        "version": "HeatTemplateFormatVersion.2012-12-12",
        "type": "cfn",
        "aliases": [],
    },
    {
        "version": "heat_template_version.2021-04-16",
        "type": "hot",
        "aliases": ["heat_template_version.wallaby"],
    },
]
#: types whose resources refuse signals
NOT_SIGNALLED = ("OS::Heat::RandomString",)
RESOURCE_TYPES = [
    "OS::Heat::None",
    "OS::Heat::RandomString",
    "OS::Heat::TestResource",
    "OS::Nova::Flavor",
]


def _cfn_parameter(name: str, decl: Any) -> dict[str, Any]:
    shown = {
        "Type": decl.get("Type", "String"),
        "NoEcho": str(decl.get("NoEcho", "false")).lower(),
        "Description": decl.get("Description", ""),
        "Label": name,
    }
    if "Default" in decl:
        shown["Default"] = decl["Default"]
    return shown


class StackParts:
    """Calls on one stack's parts."""

    stacks: dict[str, dict[str, Any]]
    clock: Callable[[], str]

    def _get(
        self, ctxt: Any, identity: Any, show_deleted: bool = False
    ) -> Any:
        raise NotImplementedError

    def _project_stacks(self, ctxt: Any, show_deleted: bool) -> list[Any]:
        raise NotImplementedError

    def _ident(self, st: Any, path: str = "") -> Any:
        raise NotImplementedError

    def _run(self, st: Any, action: str) -> None:
        raise NotImplementedError

    def _outputs(self, st: Any) -> Any:
        raise NotImplementedError

    def get_template(self, ctxt: Any, stack_identity: Any) -> Any:
        # a copy, as the engine's: callers build new templates from it
        return copy.deepcopy(self._get(ctxt, stack_identity)["template"])

    def get_environment(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._get(ctxt, stack_identity)["env"]

    def get_files(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._get(ctxt, stack_identity)["files"]

    def _abandon_data(self, st: Any) -> dict[str, Any]:
        return {
            "name": st["name"],
            "id": st["id"],
            "action": st["action"],
            "environment": st["env"],
            "files": st["files"],
            "status": st["status"],
            "template": st["template"],
            "resources": {
                n: {
                    "name": n,
                    "resource_id": r["physical_id"],
                    "type": r["type"],
                    "action": r["action"],
                    "status": r["status"],
                    "metadata": r["metadata"],
                    "resource_data": {},
                }
                for n, r in st["resources"].items()
            },
            "project_id": st["tenant"],
            "stack_user_project_id": None,
            "tags": st["tags"],
        }

    def abandon_stack(self, ctxt: Any, stack_identity: Any) -> Any:
        st = self._get(ctxt, stack_identity)
        data = self._abandon_data(st)
        del self.stacks[st["id"]]
        return data

    def export_stack(self, ctxt: Any, stack_identity: Any) -> Any:
        return self._abandon_data(self._get(ctxt, stack_identity))

    def stack_suspend(self, ctxt: Any, stack_identity: Any) -> None:
        self._run(self._get(ctxt, stack_identity), "SUSPEND")

    def stack_resume(self, ctxt: Any, stack_identity: Any) -> None:
        self._run(self._get(ctxt, stack_identity), "RESUME")

    def stack_check(self, ctxt: Any, stack_identity: Any) -> None:
        self._run(self._get(ctxt, stack_identity), "CHECK")

    def stack_cancel_update(
        self, ctxt: Any, stack_identity: Any, cancel_with_rollback: bool = True
    ) -> None:
        st = self._get(ctxt, stack_identity)
        state = f"{st['action']}_{st['status']}"
        if state != "UPDATE_IN_PROGRESS":  # only an update is cancelled
            raise exc.NotSupported(
                feature=f"Cancelling update when stack is {state}"
            )

    def list_outputs(self, ctxt: Any, stack_identity: Any) -> Any:
        outputs = self._outputs(self._get(ctxt, stack_identity))
        return [
            {"output_key": o["output_key"], "description": o["description"]}
            for o in outputs
        ]

    def show_output(
        self, ctxt: Any, stack_identity: Any, output_key: str
    ) -> Any:
        for out in self._outputs(self._get(ctxt, stack_identity)):
            if out["output_key"] == output_key:
                return out
        raise exc.NotFound(f"Specified output key {output_key} not found.")

    def _resource(self, st: Any, name: str, detail: bool) -> Any:
        res = st["resources"].get(name)
        if res is None:
            raise exc.ResourceNotFound(
                resource_name=name, stack_name=st["name"]
            )
        info = {
            "updated_time": st["created"],
            "creation_time": st["created"],
            "resource_name": name,
            "physical_resource_id": res["physical_id"],
            "resource_action": res["action"],
            "resource_status": res["status"],
            "resource_status_reason": res.get("reason", "state changed"),
            "resource_type": res["type"],
            "resource_identity": self._ident(st, "/resources/" + name),
            "stack_identity": self._ident(st),
            "stack_name": st["name"],
            "required_by": [],
        }
        info["description"] = ""
        if detail:
            info["attributes"] = {"value": None}
        info["metadata"] = copy.deepcopy(res["metadata"])
        return info

    def find_physical_resource(
        self, ctxt: Any, physical_resource_id: str
    ) -> Any:
        for st in self.stacks.values():
            for name, res in st["resources"].items():
                if res["physical_id"] == physical_resource_id:
                    return self._ident(st, f"/resources/{name}")
        raise exc.EntityNotFound(entity="Resource", name=physical_resource_id)

    def describe_stack_resources(
        self, ctxt: Any, stack_identity: Any, resource_name: str | None
    ) -> Any:
        st = self._get(ctxt, stack_identity)
        return [
            self._resource(st, name, True)
            for name in st["resources"]
            if resource_name in (None, name)
        ]

    def list_stack_resources(
        self,
        ctxt: Any,
        stack_identity: Any,
        nested_depth: int = 0,
        with_detail: bool = False,
        filters: Any = None,
    ) -> Any:
        st = self._get(ctxt, stack_identity)
        result = [self._resource(st, n, with_detail) for n in st["resources"]]
        for key, value in (filters or {}).items():
            if key == "type":
                result = [r for r in result if value in r["resource_type"]]
            elif key == "name":
                result = [r for r in result if r["resource_name"] == value]
        return result

    def describe_stack_resource(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        with_attr: Any = False,
    ) -> Any:
        st = self._get(ctxt, stack_identity)
        return self._resource(st, resource_name, True)

    def resource_signal(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        details: Any,
        sync_call: bool = False,
    ) -> Any:
        st = self._get(ctxt, stack_identity)
        res = self._resource(st, resource_name, False)
        if res["resource_type"] in NOT_SIGNALLED:
            raise exc.ResourceActionNotSupported(action="signal")
        # a wait condition handle keeps each signal under its UniqueId
        metadata = st["resources"][resource_name]["metadata"]
        if isinstance(details, dict) and "UniqueId" in details:
            metadata[details["UniqueId"]] = {
                "status": details.get("Status"),
                "reason": details.get("Reason"),
                "data": details.get("Data"),
            }
        return copy.deepcopy(metadata) if sync_call else None

    def resource_mark_unhealthy(
        self,
        ctxt: Any,
        stack_identity: Any,
        resource_name: str,
        mark_unhealthy: bool,
        resource_status_reason: Any = None,
    ) -> None:
        st = self._get(ctxt, stack_identity)
        self._resource(st, resource_name, False)
        res = st["resources"][resource_name]
        if mark_unhealthy:
            res["action"], res["status"] = "CHECK", "FAILED"
        res["reason"] = (
            resource_status_reason
            or "state changed by resource_mark_unhealthy api"
        )

    def list_events(
        self,
        ctxt: Any,
        stack_identity: Any,
        filters: Any = None,
        limit: Any = None,
        marker: Any = None,
        sort_keys: Any = None,
        sort_dir: Any = None,
        nested_depth: Any = None,
    ) -> Any:
        if stack_identity is None:  # the events of every stack
            stacks = self._project_stacks(ctxt, False)
        else:
            stacks = [self._get(ctxt, stack_identity)]
        events = [copy.deepcopy(e) for st in stacks for e in st["events"]]
        filters = dict(filters or {})
        uuid_ = filters.pop("uuid", None)
        if uuid_:
            # one event is shown with its resource's properties
            events = [
                {"resource_properties": {}, **e}
                for e in events
                if e["event_identity"]["path"].endswith("/" + uuid_)
            ]
        for key, value in filters.items():
            wanted = value if isinstance(value, list) else [value]
            events = [e for e in events if e.get(key) in wanted]
        if sort_dir != "asc":
            events.reverse()
        if marker:
            ids = [
                e["event_identity"]["path"].rsplit("/", 1)[-1] for e in events
            ]
            if marker in ids:
                events = events[ids.index(marker) + 1 :]
        if limit is not None:
            events = events[: int(limit)]
        return events

    def stack_snapshot(self, ctxt: Any, stack_identity: Any, name: Any) -> Any:
        st = self._get(ctxt, stack_identity)
        snap = {
            "id": str(uuid.uuid4()),
            "name": name,
            "action": "CREATE",
            "status": "COMPLETE",
            "status_reason": "",
            "data": self._abandon_data(st),
            "creation_time": self.clock(),
        }
        st["snapshots"][snap["id"]] = snap
        return snap

    def _snapshot(self, ctxt: Any, stack_identity: Any, sid: str) -> Any:
        st = self._get(ctxt, stack_identity)
        if sid not in st["snapshots"]:
            raise exc.EntityNotFound(entity="Snapshot", name=sid)
        return st, st["snapshots"][sid]

    def show_snapshot(
        self, ctxt: Any, stack_identity: Any, snapshot_id: str
    ) -> Any:
        return self._snapshot(ctxt, stack_identity, snapshot_id)[1]

    def delete_snapshot(
        self, ctxt: Any, stack_identity: Any, snapshot_id: str
    ) -> None:
        st, _snap = self._snapshot(ctxt, stack_identity, snapshot_id)
        del st["snapshots"][snapshot_id]

    def stack_list_snapshots(self, ctxt: Any, stack_identity: Any) -> Any:
        return list(self._get(ctxt, stack_identity)["snapshots"].values())

    def stack_restore(
        self, ctxt: Any, stack_identity: Any, snapshot_id: str
    ) -> None:
        st, _snap = self._snapshot(ctxt, stack_identity, snapshot_id)
        self._run(st, "RESTORE")


class DiscoveryAndSoftware(StackParts):
    """Discovery, validation and software config/deployment calls."""

    def __init__(self) -> None:
        self.configs: dict[str, dict[str, Any]] = {}
        self.deployments: dict[str, dict[str, Any]] = {}

    def list_template_versions(self, ctxt: Any) -> Any:
        return TEMPLATE_VERSIONS

    def list_template_functions(
        self, ctxt: Any, template_version: str, with_condition: bool = False
    ) -> Any:
        known = {v["version"] for v in TEMPLATE_VERSIONS}
        known |= {a for v in TEMPLATE_VERSIONS for a in v["aliases"]}
        if template_version not in known:
            raise exc.NotFound(
                f"Template with version {template_version} not found"
            )
        funcs = [
            {
                "functions": "get_param",
                "description": "A function for resolving parameters.",
            }
        ]
        if with_condition:
            funcs.append(
                {
                    "functions": "equals",
                    "description": "A function for comparing.",
                }
            )
        return funcs

    def list_resource_types(
        self,
        ctxt: Any,
        support_status: Any = None,
        type_name: Any = None,
        heat_version: Any = None,
        with_description: bool = False,
    ) -> Any:
        names = [
            n
            for n in RESOURCE_TYPES
            if not type_name or n.startswith(type_name)
        ]
        if with_description:
            return [
                {"resource_type": n, "description": "No description available"}
                for n in names
            ]
        return names

    def _type(self, type_name: str) -> None:
        if type_name not in RESOURCE_TYPES:
            raise exc.EntityNotFound(entity="Resource Type", name=type_name)

    def resource_schema(
        self, ctxt: Any, type_name: str, with_description: bool = False
    ) -> Any:
        self._type(type_name)
        schema = {
            "resource_type": type_name,
            "properties": {},
            "attributes": {"show": {"type": "map"}},
            "support_status": {
                "status": "SUPPORTED",
                "message": None,
                "version": None,
                "previous_status": None,
            },
        }
        if with_description:
            schema["description"] = "No description available"
        return schema

    def generate_template(
        self, ctxt: Any, type_name: str, template_type: str = "cfn"
    ) -> Any:
        self._type(type_name)
        if template_type == "hot":
            return {
                "heat_template_version": "2016-10-14",
                "resources": {
                    type_name.replace("::", ""): {
                        "type": type_name,
                        "properties": {},
                    }
                },
            }
        return {
            "HeatTemplateFormatVersion": "2012-12-12",
            "Resources": {
                type_name.replace("::", ""): {
                    "Type": type_name,
                    "Properties": {},
                }
            },
        }

    def validate_template(
        self,
        ctxt: Any,
        template: Any,
        params: Any = None,
        files: Any = None,
        environment_files: Any = None,
        files_container: Any = None,
        show_nested: bool = False,
        ignorable_errors: Any = None,
    ) -> Any:
        if is_cfn(template):
            if "Resources" not in template:
                return {"Error": "Template has no Resources section"}
            return {
                "Description": template.get("Description", "No description"),
                "Parameters": {
                    name: _cfn_parameter(name, decl)
                    for name, decl in (
                        template.get("Parameters") or {}
                    ).items()
                },
                "Environment": {"parameters": {}, "resource_registry": {}},
            }
        for name, res in (template.get("resources") or {}).items():
            if not isinstance(res, dict) or "type" not in res:
                return {"Error": f'Resource {name} is missing "type"'}
        parameters = {
            name: {
                "Type": (p or {}).get("type", "String").capitalize(),
                "Description": (p or {}).get("description", ""),
                "NoEcho": "false",
                "Label": name,
            }
            for name, p in (template.get("parameters") or {}).items()
        }
        return {
            "Description": template.get("description", ""),
            "Parameters": parameters,
            "Environment": params or {},
        }

    def authenticated_to_backend(self, ctxt: Any) -> bool:
        return True

    def migrate_convergence_1(self, ctxt: Any, stack_id: str) -> None:
        # every stack here is a convergence stack already
        if stack_id not in self.stacks:
            raise exc.EntityNotFound(entity="Stack", name=stack_id)

    def check_software_deployment(
        self, ctxt: Any, deployment_id: str, timeout: float
    ) -> Any:
        return self._deployment(deployment_id)

    def signal_software_deployment(
        self,
        ctxt: Any,
        deployment_id: str,
        details: Any,
        updated_at: str | None = None,
    ) -> Any:
        sd = self._deployment(deployment_id)
        if sd["status"] != "IN_PROGRESS":
            return None
        declared = self.configs[sd["config_id"]]["outputs"]
        values, status, reason, outcome = signal_outcome(
            deployment_id, declared, sd["output_values"], details
        )
        sd.update(output_values=values, status=status, status_reason=reason)
        return outcome

    def get_revision(self, ctxt: Any) -> str:
        return "fake-engine-revision"

    def list_services(self, ctxt: Any) -> Any:
        return [
            {
                "id": "svc-1",
                "host": "engine-host",
                "hostname": "engine-host",
                "binary": "keel-heat-engine",
                "topic": "engine",
                "engine_id": "eng-1",
                "report_interval": 60,
                "created_at": "2026-01-01T00:00:00.000000",
                "updated_at": "2026-01-01T00:00:00.000000",
                "deleted_at": None,
                "status": "up",
            }
        ]

    # -- software configs and deployments ------------------------------

    def create_software_config(
        self,
        ctxt: Any,
        group: Any,
        name: Any,
        config: Any,
        inputs: Any = None,
        outputs: Any = None,
        options: Any = None,
    ) -> Any:
        sc = {
            "id": str(uuid.uuid4()),
            "name": name,
            "group": group,
            "creation_time": self.clock(),
            "config": config,
            "inputs": software_io.normalise_inputs(inputs or []),
            "outputs": software_io.normalise_outputs(outputs or []),
            "options": options or {},
            "project": caller(ctxt).get("project_id"),
        }
        self.configs[sc["id"]] = sc
        return {k: v for k, v in sc.items() if k != "project"}

    def _config(self, ctxt: Any, config_id: str) -> Any:
        sc = self.configs.get(config_id)
        if sc is None or sc["project"] != caller(ctxt).get("project_id"):
            raise exc.NotFound(
                f"Software config with id {config_id} not found"
            )
        return sc

    def show_software_config(self, ctxt: Any, config_id: str) -> Any:
        sc = self._config(ctxt, config_id)
        return {k: v for k, v in sc.items() if k != "project"}

    def list_software_configs(
        self, ctxt: Any, limit: Any = None, marker: Any = None
    ) -> Any:
        items = [
            {
                "id": c["id"],
                "name": c["name"],
                "group": c["group"],
                "creation_time": c["creation_time"],
            }
            for c in self.configs.values()
            if c["project"] == caller(ctxt).get("project_id")
        ]
        return items[: int(limit)] if limit is not None else items

    def delete_software_config(self, ctxt: Any, config_id: str) -> None:
        self._config(ctxt, config_id)
        if any(d["config_id"] == config_id for d in self.deployments.values()):
            raise exc.InvalidRestrictedAction(
                message=(
                    f"Software config with id {config_id} can not be deleted "
                    "as it is referenced."
                )
            )
        del self.configs[config_id]

    def create_software_deployment(
        self,
        ctxt: Any,
        server_id: Any,
        config_id: Any = None,
        input_values: Any = None,
        action: Any = "INIT",
        status: Any = "COMPLETE",
        status_reason: Any = "",
        stack_user_project_id: Any = None,
        deployment_id: Any = None,
    ) -> Any:
        self._config(ctxt, config_id)
        sd = {
            "id": deployment_id or str(uuid.uuid4()),
            "server_id": server_id,
            "input_values": input_values or {},
            "output_values": {},
            "action": action,
            "status": status,
            "status_reason": status_reason,
            "config_id": config_id,
            "creation_time": self.clock(),
        }
        self.deployments[sd["id"]] = sd
        return sd

    def _deployment(self, deployment_id: str) -> Any:
        if deployment_id not in self.deployments:
            raise exc.NotFound(f"Deployment with id {deployment_id} not found")
        return self.deployments[deployment_id]

    def show_software_deployment(self, ctxt: Any, deployment_id: str) -> Any:
        return self._deployment(deployment_id)

    def list_software_deployments(
        self, ctxt: Any, server_id: Any = None
    ) -> Any:
        return [
            d
            for d in self.deployments.values()
            if server_id is None or d["server_id"] == server_id
        ]

    def metadata_software_deployments(self, ctxt: Any, server_id: Any) -> Any:
        return [
            self.configs[d["config_id"]] | {"id": d["id"]}
            for d in self.deployments.values()
            if d["server_id"] == server_id
        ]

    def update_software_deployment(
        self,
        ctxt: Any,
        deployment_id: str,
        config_id: str | None = None,
        input_values: Any = None,
        output_values: Any = None,
        action: str | None = None,
        status: str | None = None,
        status_reason: str | None = None,
        updated_at: str | None = None,
    ) -> Any:
        values = {
            "config_id": config_id,
            "input_values": input_values,
            "output_values": output_values,
            "action": action,
            "status": status,
            "status_reason": status_reason,
        }
        sd = self._deployment(deployment_id)
        sd.update({k: v for k, v in values.items() if v is not None})
        sd["updated_time"] = self.clock()
        return sd

    def delete_software_deployment(
        self, ctxt: Any, deployment_id: str
    ) -> None:
        self._deployment(deployment_id)
        del self.deployments[deployment_id]
