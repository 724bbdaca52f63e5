"""keel-heat registered in the test cloud's Keystone, found by the
``openstack`` CLI through the catalog as in a real cloud."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from keel_heat_core.testing.cloud import BIN, InProcessCloud
from keel_heat_core.testing.cloud_setup import (
    private_vhost,
    rabbit_url,
    scratch_database,
)
from keel_heat_core.testing.openstack.fixture import CloudAccess

pytestmark = [pytest.mark.cloud, pytest.mark.slow]

TEMPLATE = """\
heat_template_version: 2018-08-31
resources:
  secret:
    type: OS::Heat::RandomString
    properties:
      length: 12
outputs:
  length:
    value: {get_attr: [secret, value]}
"""


@pytest.fixture(scope="module")
def heat(
    openstack_cloud: CloudAccess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcessCloud]:
    with (
        scratch_database("mariadb", prefix="keel_incloud_") as url,
        private_vhost() as vhost,
        InProcessCloud(
            tmp_path_factory.mktemp("heat"),
            database_url=url,
            transport_url=rabbit_url(vhost),
            keystone=openstack_cloud.keystone,
            cfn_api=True,
        ) as cloud,
    ):
        yield cloud


def _openstack(
    access: CloudAccess, workdir: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    for line in access.cloud.openrc(access.member).splitlines():
        key, _, value = line.removeprefix("export ").partition("=")
        env[key] = value
    result = subprocess.run(
        [str(BIN / "openstack"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=workdir,
        timeout=180,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result


def test_stack_list_and_create_through_the_catalog(
    openstack_cloud: CloudAccess, heat: InProcessCloud, tmp_path: Path
) -> None:
    catalog = json.loads(
        _openstack(
            openstack_cloud,
            tmp_path,
            "catalog",
            "show",
            "orchestration",
            "-f",
            "json",
        ).stdout
    )
    assert heat.server.url in json.dumps(catalog["endpoints"])
    listed = _openstack(
        openstack_cloud, tmp_path, "stack", "list", "-f", "json"
    )
    assert json.loads(listed.stdout) == []
    (tmp_path / "t.yaml").write_text(TEMPLATE)
    _openstack(
        openstack_cloud,
        tmp_path,
        "stack",
        "create",
        "--wait",
        "-t",
        "t.yaml",
        "incloud",
    )
    shown = json.loads(
        _openstack(
            openstack_cloud,
            tmp_path,
            "stack",
            "show",
            "incloud",
            "-f",
            "json",
        ).stdout
    )
    assert shown["stack_status"] == "CREATE_COMPLETE"
    listed = _openstack(
        openstack_cloud, tmp_path, "stack", "list", "-f", "json"
    )
    assert [s["Stack Name"] for s in json.loads(listed.stdout)] == ["incloud"]
    _openstack(
        openstack_cloud,
        tmp_path,
        "stack",
        "delete",
        "--yes",
        "--wait",
        "incloud",
    )
    listed = _openstack(
        openstack_cloud, tmp_path, "stack", "list", "-f", "json"
    )
    assert json.loads(listed.stdout) == []
