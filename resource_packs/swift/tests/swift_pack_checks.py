"""Helpers of the Swift pack's tests: Swift's state through openstacksdk
and the ``openstack`` CLI as the cloud's member user."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from openstack import exceptions as sdk_exc

from keel_heat_core.testing.cloud import BIN, InProcessCloud
from keel_heat_core.testing.openstack.fixture import CloudAccess


def container_headers(store: Any, name: str) -> dict[str, str] | None:
    """Swift's headers of a container by lower-case name, or ``None``."""
    try:
        store.get_container_metadata(name)
    except sdk_exc.NotFoundException:
        return None
    response = store.head(f"/{name}")
    return {k.lower(): v for k, v in response.headers.items()}


def empty_and_delete(store: Any, name: str) -> None:
    """Delete a container and its objects, if it is there."""
    try:
        objects = list(store.objects(name))
    except sdk_exc.NotFoundException:
        return
    for obj in objects:
        store.delete_object(obj, container=name)
    store.delete_container(name)


def run_openstack(
    access: CloudAccess,
    heat: InProcessCloud,
    workdir: Path,
    *args: str,
    check: bool = True,
) -> subprocess.CompletedProcess[str]:
    """The ``openstack`` CLI as the member, with a token of the cloud's
    Keystone and this keel-heat's endpoint.

    The endpoint is given rather than read from the catalog: the catalog
    has one ``orchestration`` endpoint, which another keel-heat of the
    same run (another xdist worker) may have moved to itself.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    member = access.member
    env.update(
        OS_AUTH_TYPE="admin_token",
        OS_ENDPOINT=heat.url(project=member.project_id),
        OS_TOKEN=heat.token(member, fresh=True),
    )
    result = subprocess.run(
        [str(BIN / "openstack"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=workdir,
        timeout=240,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if check:
        assert result.returncode == 0, result.stderr
    return result
