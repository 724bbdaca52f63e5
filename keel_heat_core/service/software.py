"""Software configs and deployments of the engine API, with Heat's
arguments and answers.

Configs are immutable rows of a project; deployments apply one config to
one server and carry the values the server signals back. Whenever the
configs deployed to a server change, the server resource's metadata gets
``deployments`` (the list os-collect-config polls) and, when the server
has a ``metadata_put_url``, the same document is PUT there.

Lookups are project-scoped through :func:`stack_api.scope_of`: another
project's config is ``NotFound`` everywhere, including as the
``config_id`` of a new deployment (the 27.0.1 security fix).
"""

from __future__ import annotations

import json
import logging
import time
import urllib.request
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from oslo_config import cfg
from oslo_utils import timeutils

from keel_heat_core import exception
from keel_heat_core.db import exceptions as db_exceptions
from keel_heat_core.db import records
from keel_heat_core.db import resource as resource_repo
from keel_heat_core.db import resource_data as data_repo
from keel_heat_core.db import software_config as config_repo
from keel_heat_core.db import software_deployment as deployment_repo
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import Scope
from keel_heat_core.rpc.engine_api import EngineAPI, forward
from keel_heat_core.service import software_io, views
from keel_heat_core.service.stack_api import scope_of

LOG = logging.getLogger(__name__)

IN_PROGRESS, COMPLETE, FAILED = "IN_PROGRESS", "COMPLETE", "FAILED"
STATUS_CODE = "deploy_status_code"
#: outputs every deployment reports besides the declared ones
DEPLOY_OUTPUTS = ("deploy_stdout", "deploy_stderr", STATUS_CODE)


def format_config(
    sc: records.SoftwareConfigRecord,
    detail: bool = True,
    include_project: bool = False,
) -> dict[str, Any]:
    """Heat's ``format_software_config``."""
    out: dict[str, Any] = {
        "id": sc.id,
        "name": sc.name,
        "group": sc.group,
        "creation_time": views.timestamp(sc.created_at),
    }
    if detail:
        body = sc.config or {}
        for key in ("config", "inputs", "outputs", "options"):
            out[key] = body.get(key)
    if include_project:
        out["project"] = sc.tenant
    return out


def format_deployment(
    sd: records.SoftwareDeploymentRecord,
) -> dict[str, Any]:
    """Heat's ``format_software_deployment``."""
    out: dict[str, Any] = {
        "id": sd.id,
        "server_id": sd.server_id,
        "input_values": sd.input_values,
        "output_values": sd.output_values,
        "action": sd.action,
        "status": sd.status,
        "status_reason": sd.status_reason,
        "config_id": sd.config_id,
        "creation_time": views.timestamp(sd.created_at),
    }
    if sd.updated_at is not None:
        out["updated_time"] = views.timestamp(sd.updated_at)
    return out


def signal_outcome(
    deployment_id: str,
    declared: Sequence[Mapping[str, Any]],
    output_values: Mapping[str, Any] | None,
    details: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], str, str, str]:
    """What a server's signal makes of an IN_PROGRESS deployment.

    A non-zero ``deploy_status_code``, or a value for an output declared
    ``error_output``, fails it; otherwise it completes.

    :param declared: the outputs its config declares.
    :param output_values: the values it holds so far.
    :param details: the signal's body.
    :returns: ``(output_values, status, status_reason, outcome)``, the
        outcome being the text of the deployment resource's SIGNAL event.
    """
    details = dict(details or {})
    values = dict(output_values or {})
    reasons: dict[str, Any] = {}
    code = details.get(STATUS_CODE)
    failed = bool(code) and str(code) != "0"
    if failed:
        reasons[STATUS_CODE] = (
            f"Deployment exited with non-zero status code: {code}"
        )
        outcome = f"deployment {deployment_id} failed ({code})"
    else:
        outcome = f"deployment {deployment_id} succeeded"
    for output in declared:
        key = output["name"]
        if key in details:
            values[key] = details[key]
            if output.get("error_output", False):
                failed = True
                reasons[key] = details[key]
                outcome = f"deployment {deployment_id} failed"
    for key in DEPLOY_OUTPUTS:
        values[key] = details.get(key)
    if failed:
        reason = ", ".join(f"{k} : {v}" for k, v in reasons.items())
        return values, FAILED, reason, outcome
    return values, COMPLETE, "Outputs received", outcome


def _not_found(exc: db_exceptions.DBError) -> exception.NotFound:
    return exception.NotFound(str(exc))


def _put_metadata(url: str, metadata: Mapping[str, Any]) -> None:
    # the URL is the Swift TempURL the server resource stored
    request = urllib.request.Request(  # noqa: S310
        url, data=json.dumps(metadata).encode(), method="PUT"
    )
    try:
        with urllib.request.urlopen(request, timeout=30):  # noqa: S310
            pass
    except Exception as exc:
        LOG.error("Failed to deliver deployment data to %s: %s", url, exc)


class SoftwareService:
    """The twelve software config and deployment calls.

    :param db: the database.
    :param conf: the service configuration (per-project limits); None
        for no limits.
    :param put_metadata: PUTs a server's metadata document to its
        ``metadata_put_url`` (Swift TempURL; a fake in tests).
    :param sleep: waits between retries and polls.
    """

    #: attempts at the server metadata compare-and-swap
    push_attempts = 11
    #: seconds between polls of ``check_software_deployment``
    poll_interval = 0.5

    def __init__(
        self,
        db: Database,
        conf: cfg.ConfigOpts | None = None,
        put_metadata: Callable[[str, Mapping[str, Any]], None] = (
            _put_metadata
        ),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.db = db
        self.conf = conf
        self._put_metadata = put_metadata
        self._sleep = sleep

    # -- configs -----------------------------------------------------------

    def _config(self, config_id: str | None, scope: Scope) -> Any:
        if not config_id:
            raise exception.NotFound(
                f"Software config with id {config_id} not found"
            )
        try:
            return config_repo.get(self.db, config_id, scope)
        except db_exceptions.NotFound as exc:
            raise _not_found(exc) from exc

    def show_software_config(self, ctxt: Any, config_id: str) -> Any:
        return format_config(self._config(config_id, scope_of(ctxt)))

    def list_software_configs(
        self,
        ctxt: Any,
        limit: int | None = None,
        marker: str | None = None,
    ) -> list[dict[str, Any]]:
        scope = scope_of(ctxt)
        found = config_repo.list_configs(self.db, scope, limit, marker)
        return [
            format_config(sc, detail=False, include_project=scope.is_admin)
            for sc in found
        ]

    def create_software_config(
        self,
        ctxt: Any,
        group: str | None,
        name: str | None,
        config: Any,
        inputs: Any,
        outputs: Any,
        options: Any,
    ) -> dict[str, Any]:
        scope = scope_of(ctxt)
        if not scope.is_admin:
            limit = (
                -1
                if self.conf is None
                else int(self.conf.max_software_configs_per_tenant)
            )
            if 0 <= limit <= config_repo.count(self.db, scope):
                raise exception.RequestLimitExceeded(
                    message="You have reached the maximum software configs "
                    f"per tenant, {limit}. Please delete some configs."
                )
        body = {
            "inputs": software_io.normalise_inputs(inputs),
            "outputs": software_io.normalise_outputs(outputs),
            "options": options,
            "config": config,
        }
        sc = config_repo.create(
            self.db,
            {
                "id": str(uuid.uuid4()),
                "group": group,
                "name": name,
                "config": body,
                "tenant": getattr(ctxt, "project_id", None),
            },
        )
        return format_config(sc)

    def delete_software_config(self, ctxt: Any, config_id: str) -> None:
        try:
            config_repo.delete(self.db, config_id, scope_of(ctxt))
        except db_exceptions.InvalidRestrictedAction as exc:
            raise exception.InvalidRestrictedAction(message=str(exc)) from exc
        except db_exceptions.NotFound as exc:
            raise _not_found(exc) from exc

    # -- deployments: reads --------------------------------------------------

    def _deployment(self, deployment_id: str, scope: Scope) -> Any:
        try:
            return deployment_repo.get(self.db, deployment_id, scope)
        except db_exceptions.NotFound as exc:
            raise _not_found(exc) from exc

    def list_software_deployments(
        self, ctxt: Any, server_id: str | None
    ) -> list[dict[str, Any]]:
        found = deployment_repo.list_deployments(
            self.db, scope_of(ctxt), server_id
        )
        return [format_deployment(sd) for sd in found]

    def _metadata(self, scope: Scope, server_id: str) -> list[Any]:
        configs = [
            sd.config
            for sd in deployment_repo.list_deployments(
                self.db, scope, server_id
            )
            if sd.config is not None
        ]
        configs.sort(key=lambda sc: sc.name or "")
        return [format_config(sc) for sc in configs]

    def metadata_software_deployments(
        self, ctxt: Any, server_id: str | None
    ) -> list[dict[str, Any]]:
        """The configs deployed to a server, sorted by config name."""
        if not server_id:
            raise ValueError("server_id must be specified")
        return self._metadata(scope_of(ctxt), server_id)

    def show_software_deployment(
        self, ctxt: Any, deployment_id: str
    ) -> dict[str, Any]:
        return format_deployment(
            self._deployment(deployment_id, scope_of(ctxt))
        )

    def check_software_deployment(
        self, ctxt: Any, deployment_id: str, timeout: float | None
    ) -> dict[str, Any]:
        """Wait (at most ``timeout`` s) until the deployment leaves
        IN_PROGRESS, then return it as it is."""
        scope = scope_of(ctxt)
        deadline = time.monotonic() + float(timeout or 0)
        sd = self._deployment(deployment_id, scope)
        while sd.status == IN_PROGRESS and time.monotonic() < deadline:
            self._sleep(self.poll_interval)
            sd = self._deployment(deployment_id, scope)
        return format_deployment(sd)

    # -- deployments: writes -------------------------------------------------

    def create_software_deployment(
        self,
        ctxt: Any,
        server_id: str | None,
        config_id: str | None,
        input_values: Any,
        action: str | None,
        status: str | None,
        status_reason: str | None,
        stack_user_project_id: str | None,
        deployment_id: str | None = None,
    ) -> dict[str, Any]:
        scope = scope_of(ctxt)
        if not scope.is_admin:
            limit = (
                -1
                if self.conf is None
                else int(self.conf.max_software_deployments_per_tenant)
            )
            if 0 <= limit <= deployment_repo.count(self.db, scope):
                raise exception.RequestLimitExceeded(
                    message="You have reached the maximum software "
                    f"deployments per tenant, {limit}. Please delete some "
                    "deployments."
                )
        # the 27.0.1 fix: the config must be visible to the caller
        self._config(config_id, scope)
        try:
            sd = deployment_repo.create(
                self.db,
                {
                    "id": deployment_id or str(uuid.uuid4()),
                    "config_id": config_id,
                    "server_id": server_id,
                    "input_values": input_values,
                    "tenant": getattr(ctxt, "project_id", None),
                    "stack_user_project_id": stack_user_project_id,
                    "action": action,
                    "status": status,
                    "status_reason": str(status_reason),
                },
            )
        except db_exceptions.Invalid as exc:
            raise exception.NotFound(
                f"Software config with id {config_id} not found"
            ) from exc
        self.push_metadata(ctxt, sd.server_id)
        return format_deployment(sd)

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
    ) -> dict[str, Any]:
        """Write the given (truthy) fields; ``updated_at`` now unless
        given as an ISO 8601 time."""
        scope = scope_of(ctxt)
        values: dict[str, Any] = {}
        if config_id:
            self._config(config_id, scope)
            values["config_id"] = config_id
        for key, value in (
            ("input_values", input_values),
            ("output_values", output_values),
            ("action", action),
            ("status", status),
        ):
            if value:
                values[key] = value
        if status_reason:
            values["status_reason"] = str(status_reason)
        values["updated_at"] = (
            timeutils.normalize_time(timeutils.parse_isotime(updated_at))
            if updated_at
            else timeutils.utcnow()
        )
        try:
            sd = deployment_repo.update(self.db, deployment_id, values, scope)
        except db_exceptions.NotFound as exc:
            raise _not_found(exc) from exc
        if config_id:
            self.push_metadata(ctxt, sd.server_id)
        return format_deployment(sd)

    def signal_software_deployment(
        self,
        ctxt: Any,
        deployment_id: str | None,
        details: Any,
        updated_at: str | None,
    ) -> str | None:
        """Record a server's outputs; COMPLETE or FAILED.

        :returns: the outcome, for the deployment resource's SIGNAL
            event; None when the deployment was not IN_PROGRESS.
        """
        if not deployment_id:
            raise ValueError("deployment_id must be specified")
        sd = self._deployment(deployment_id, scope_of(ctxt))
        if sd.status != IN_PROGRESS:
            return None
        declared = (sd.config.config or {}).get("outputs") if sd.config else []
        values, status, reason, outcome = signal_outcome(
            deployment_id, declared or [], sd.output_values, details
        )
        self.update_software_deployment(
            ctxt,
            deployment_id,
            output_values=values,
            status=status,
            status_reason=reason,
            updated_at=updated_at,
        )
        return outcome

    def delete_software_deployment(
        self, ctxt: Any, deployment_id: str
    ) -> None:
        scope = scope_of(ctxt)
        sd = self._deployment(deployment_id, scope)
        try:
            deployment_repo.delete(self.db, deployment_id, scope)
        except db_exceptions.NotFound as exc:
            raise _not_found(exc) from exc
        self.push_metadata(ctxt, sd.server_id)

    # -- the server's metadata -----------------------------------------------

    def push_metadata(self, ctxt: Any, server_id: str | None) -> None:
        """Give the server resource (if any) its ``deployments``.

        The write is a compare-and-swap that respects the resource lock;
        it is retried while someone else writes the row.

        :raises ConcurrentTransaction: the row stayed busy.
        """
        if not server_id:
            return
        scope = scope_of(ctxt)
        for attempt in range(self.push_attempts):
            if self._try_push(scope, server_id):
                return
            self._sleep(min(0.05 * 2**attempt, 2.0))
        raise exception.ConcurrentTransaction(
            action=f"deployments of server {server_id}"
        )

    def _try_push(self, scope: Scope, server_id: str) -> bool:
        found = resource_repo.get_by_physical_resource_id(
            self.db, server_id, scope
        )
        if not found:
            return True
        rs = found[0]
        if rs.action == "DELETE":
            return True
        metadata = dict(rs.rsrc_metadata or {})
        metadata["deployments"] = self._metadata(scope, server_id)
        if not resource_repo.update(
            self.db, rs.id, {"rsrc_metadata": metadata}, rs.atomic_key
        ):
            LOG.debug("Retrying server %s deployment metadata", server_id)
            return False
        data = data_repo.get_all(self.db, rs.id)
        url = data.get("metadata_put_url")
        if url:
            self._put_metadata(url, metadata)
        if data.get("metadata_queue_id"):
            LOG.warning(
                "Server %s polls a Zaqar queue; this engine has no Zaqar "
                "transport, the deployments stay in its metadata only",
                server_id,
            )
        return True


class LocalSoftwareRPC:
    """The software calls of Heat's EngineClient, served in-process.

    Resource plugins (``OS::Heat::SoftwareConfig``, ``SoftwareDeployment``
    and the structured and multipart configs) reach them through their
    stack's ``rpc_client()``; the arguments and the client-side defaults
    (absent inputs and outputs are empty lists) are the client's.

    :param db: the database.
    :param conf: the service configuration.
    """

    def __init__(self, db: Database, conf: cfg.ConfigOpts | None) -> None:
        self._software = SoftwareService(db, conf)

    def show_software_config(self, ctxt: Any, config_id: str) -> Any:
        return self._software.show_software_config(ctxt, config_id)

    def create_software_config(
        self,
        ctxt: Any,
        group: str | None,
        name: str | None,
        config: Any,
        inputs: Any = None,
        outputs: Any = None,
        options: Any = None,
    ) -> Any:
        return self._software.create_software_config(
            ctxt,
            group,
            name,
            config,
            inputs or [],
            outputs or [],
            options or {},
        )

    def delete_software_config(self, ctxt: Any, config_id: str) -> None:
        self._software.delete_software_config(ctxt, config_id)

    def show_software_deployment(self, ctxt: Any, deployment_id: str) -> Any:
        return self._software.show_software_deployment(ctxt, deployment_id)

    def check_software_deployment(
        self, ctxt: Any, deployment_id: str, timeout: float
    ) -> Any:
        return self._software.check_software_deployment(
            ctxt, deployment_id, timeout
        )

    def create_software_deployment(
        self,
        ctxt: Any,
        server_id: str | None,
        config_id: str | None = None,
        input_values: Any = None,
        action: str | None = "INIT",
        status: str | None = "COMPLETE",
        status_reason: str | None = "",
        stack_user_project_id: str | None = None,
        deployment_id: str | None = None,
    ) -> Any:
        return self._software.create_software_deployment(
            ctxt,
            server_id=server_id,
            config_id=config_id,
            input_values=input_values,
            action=action,
            status=status,
            status_reason=status_reason,
            stack_user_project_id=stack_user_project_id,
            deployment_id=deployment_id,
        )

    update_software_deployment = forward(
        EngineAPI.update_software_deployment,
        lambda s: s._software.update_software_deployment,
    )

    def signal_software_deployment(
        self,
        ctxt: Any,
        deployment_id: str,
        details: Any,
        updated_at: str | None = None,
    ) -> Any:
        return self._software.signal_software_deployment(
            ctxt, deployment_id, details, updated_at
        )

    def delete_software_deployment(
        self, ctxt: Any, deployment_id: str
    ) -> None:
        self._software.delete_software_deployment(ctxt, deployment_id)
