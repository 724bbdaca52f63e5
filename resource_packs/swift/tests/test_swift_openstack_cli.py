"""The Swift types through python-heatclient's ``openstack stack``
commands, keel-heat found through the cloud's catalog, a handle
signalled with curl."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from swift_pack_checks import container_headers, run_openstack

from keel_heat_core.testing.cloud import InProcessCloud
from keel_heat_core.testing.openstack.fixture import CloudAccess

pytestmark = [pytest.mark.cloud, pytest.mark.slow]

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  color:
    type: string
resources:
  box:
    type: OS::Swift::Container
    properties:
      X-Container-Meta: {Color: {get_param: color}}
  handle:
    type: OS::Heat::SwiftSignalHandle
  signal:
    type: OS::Heat::SwiftSignal
    properties:
      handle: {get_resource: handle}
      timeout: 120
outputs:
  box:
    value: {get_resource: box}
  data:
    value: {get_attr: [signal, data]}
"""


def _json(result: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(result.stdout)


def _status(
    access: CloudAccess, heat: InProcessCloud, workdir: Path, stack: str
) -> str:
    shown = _json(
        run_openstack(
            access, heat, workdir, "stack", "show", stack, "-f", "json"
        )
    )
    return str(shown["stack_status"])


def _wait(
    access: CloudAccess,
    heat: InProcessCloud,
    workdir: Path,
    stack: str,
    state: str,
) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = _status(access, heat, workdir, stack)
        if status == state:
            return
        assert not status.endswith("FAILED"), status
        time.sleep(1)
    raise AssertionError(f"{stack} not {state} in time")


def test_openstack_stack_commands_and_curl(
    heat: InProcessCloud,
    openstack_cloud: CloudAccess,
    store: Any,
    unique: str,
    tmp_path: Path,
) -> None:
    access = openstack_cloud
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    run_openstack(
        access,
        heat,
        tmp_path,
        "stack",
        "create",
        "-t",
        "t.yaml",
        "--parameter",
        "color=blue",
        unique,
    )
    # the handle's curl_cli attribute is the start of the signal command
    deadline = time.monotonic() + 60
    while True:
        handle = _json(
            run_openstack(
                access,
                heat,
                tmp_path,
                "stack",
                "resource",
                "show",
                unique,
                "handle",
                "-f",
                "json",
            )
        )
        if handle["resource_status"] == "CREATE_COMPLETE":
            break
        assert time.monotonic() < deadline, handle
        time.sleep(0.5)
    curl_cli = handle["attributes"]["curl_cli"]
    assert curl_cli.startswith("curl -i -X PUT 'http://127.0.0.1:")
    body = json.dumps({"status": "SUCCESS", "data": "ready"})
    subprocess.run(
        f"{curl_cli} --data-binary '{body}'",
        shell=True,  # the attribute is a shell command prefix
        check=True,
        timeout=30,
        capture_output=True,
    )
    _wait(access, heat, tmp_path, unique, "CREATE_COMPLETE")
    output = _json(
        run_openstack(
            access,
            heat,
            tmp_path,
            "stack",
            "output",
            "show",
            unique,
            "--all",
            "-f",
            "json",
        )
    )
    data = json.loads(output["data"]["output_value"])
    assert data == {"1": "ready"}
    box = output["box"]["output_value"]
    headers = container_headers(store, box)
    assert headers is not None
    assert headers["x-container-meta-color"] == "blue"

    # a new colour makes a new container; the signal stays as it is
    run_openstack(
        access,
        heat,
        tmp_path,
        "stack",
        "update",
        "--wait",
        "--existing",
        "--parameter",
        "color=red",
        unique,
    )
    assert _status(access, heat, tmp_path, unique) == "UPDATE_COMPLETE"
    new_box = _json(
        run_openstack(
            access,
            heat,
            tmp_path,
            "stack",
            "output",
            "show",
            unique,
            "box",
            "-f",
            "json",
        )
    )["output_value"]
    assert new_box != box
    assert container_headers(store, box) is None
    new_headers = container_headers(store, new_box)
    assert new_headers is not None
    assert new_headers["x-container-meta-color"] == "red"

    run_openstack(
        access, heat, tmp_path, "stack", "delete", "--yes", "--wait", unique
    )
    assert container_headers(store, new_box) is None
    listed = _json(
        run_openstack(access, heat, tmp_path, "stack", "list", "-f", "json")
    )
    assert unique not in [s["Stack Name"] for s in listed]
