"""The keel-heat.conf of the conformance deployment.

The settings are the ones Heat's own functional job runs with:
convergence, parameter encryption, 256
stacks per project, abandon and adopt, the ``hidden`` tag, new policy
defaults with scope checks, the metadata and wait-condition URLs on the
CFN API, and ``debug = false`` (Heat puts engine tracebacks in API error
bodies when debug is on). Keystone's part comes from the fixture's
:meth:`~keel_heat_core.testing.keystone.KeystoneServer.heat_config`.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENGINE_WORKERS = 2


@dataclass(frozen=True)
class Endpoints:
    """Where the deployment's pieces are.

    :ivar database: the SQLAlchemy URL of the deployment's database.
    :ivar transport: the oslo.messaging transport URL.
    :ivar cfn_url: the CFN API root (``http://127.0.0.1:PORT``).
    :ivar environment_dir: the global ``environment.d`` folder.
    :ivar exchange: the RPC ``control_exchange`` (Heat's ``heat`` on a
        private virtual host).
    """

    database: str
    transport: str
    cfn_url: str
    environment_dir: Path
    exchange: str = "heat"


def heat_settings(
    keystone: Mapping[str, Mapping[str, Any]], where: Endpoints
) -> dict[str, dict[str, Any]]:
    """Return every option of the deployment, per group.

    :param keystone: ``KeystoneServer.heat_config()``.
    :param where: the database, bus and CFN URL of this deployment.
    """
    values: dict[str, dict[str, Any]] = {
        group: dict(options) for group, options in keystone.items()
    }
    values.setdefault("DEFAULT", {}).update(
        {
            "debug": False,
            "transport_url": where.transport,
            "control_exchange": where.exchange,
            "num_engine_workers": ENGINE_WORKERS,
            "convergence_engine": True,
            "encrypt_parameters_and_properties": True,
            "auth_encryption_key": secrets.token_hex(16),
            "max_stacks_per_tenant": 256,
            "enable_stack_abandon": True,
            "enable_stack_adopt": True,
            "hidden_stack_tags": "hidden",
            "heat_metadata_server_url": where.cfn_url,
            "heat_waitcondition_server_url": (
                f"{where.cfn_url}/v1/waitcondition"
            ),
            "environment_dir": str(where.environment_dir),
        }
    )
    values["database"] = {"connection": where.database}
    values["api"] = {"auth_strategy": "keystone"}
    # oslo.policy 6 dropped enforce_scope (scope is always checked).
    values["oslo_policy"] = {"enforce_new_defaults": True}
    return values


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def render(values: Mapping[str, Mapping[str, Any]]) -> str:
    """Return ``values`` as an ini file, ``[DEFAULT]`` first.

    :param values: option values per group.
    """
    groups = sorted(values, key=lambda g: (g != "DEFAULT", g))
    out: list[str] = []
    for group in groups:
        out.append(f"[{group}]")
        out.extend(
            f"{name} = {_format(value)}"
            for name, value in values[group].items()
        )
        out.append("")
    return "\n".join(out)
