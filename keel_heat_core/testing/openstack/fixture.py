"""The ``openstack_cloud`` pytest fixture: one test cloud per test run.

Which cloud a test gets:

* ``KEEL_HEAT_TEST_CLOUD=<state dir>`` set: the cloud started there by
  ``python -m keel_heat_core.testing.openstack up --state-dir <dir>``
  (CI, or a person keeping one cloud across runs); it is left running.
* otherwise one cloud for the whole run, started by the first test that
  asks for it, in a folder every pytest-xdist worker of the run shares
  (the parent of the workers' base temporary folders). A file lock
  there makes the other workers wait and reuse it; each worker counts
  itself in and out of a users file, and the last one out stops the
  cloud and drops its databases. So a run that collects no cloud test
  starts no cloud, and two workers never start two.

When a test using the cloud fails, the tail of every service's log is
added to its report (section ``cloud logs``).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from keel_heat_core.testing.keystone import Credentials, KeystoneServer
from keel_heat_core.testing.openstack.cloud import OpenStackCloud

ENV_VAR = "KEEL_HEAT_TEST_CLOUD"
_USERS = "users"


@dataclass
class CloudAccess:
    """What a test gets of the cloud.

    :ivar cloud: the cloud (layout, logs, sessions).
    :ivar keystone: its Keystone with the users keel-heat needs.
    :ivar auth_url: the unversioned identity endpoint.
    :ivar admin: the cloud admin.
    :ivar member: a member user (project ``demo``).
    :ivar conn: an openstacksdk connection of the member.
    """

    cloud: OpenStackCloud
    keystone: KeystoneServer
    auth_url: str
    admin: Credentials
    member: Credentials
    conn: Any

    def connection(self, creds: Credentials | None = None) -> Any:
        """A new openstacksdk connection (the member's by default)."""
        return self.cloud.connection(creds or self.member)


def _access(cloud: OpenStackCloud) -> CloudAccess:
    assert cloud.keystone is not None
    ks = cloud.keystone
    return CloudAccess(
        cloud=cloud,
        keystone=ks,
        auth_url=ks.url,
        admin=ks.admin,
        member=ks.demo,
        conn=cloud.connection(ks.demo),
    )


def _check_running(cloud: OpenStackCloud, where: Path) -> None:
    stopped = [name for name, up in cloud.status().items() if not up]
    if not cloud.ready or stopped:
        raise RuntimeError(
            f"the test cloud in {where} is not ready "
            f"(stopped: {', '.join(stopped) or 'none'}); "
            "start it with `python -m keel_heat_core.testing.openstack up "
            f"--state-dir {where}`"
        )


class _SharedCloud:
    """The run's cloud in a folder shared by its xdist workers."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._lock_file = (folder.parent / f"{folder.name}.lock").open("a")

    def _count(self, delta: int) -> int:
        path = self.folder / _USERS
        users = int(path.read_text() or 0) if path.exists() else 0
        users += delta
        path.write_text(str(users))
        return users

    def __enter__(self) -> OpenStackCloud:
        fcntl.flock(self._lock_file, fcntl.LOCK_EX)
        try:
            try:
                cloud = OpenStackCloud.load(self.folder)
                if not (cloud.ready and all(cloud.status().values())):
                    cloud.stop(drop=True)
                    raise FileNotFoundError
            except FileNotFoundError:
                cloud = OpenStackCloud.start(self.folder)
            self._count(+1)
            return cloud
        finally:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self._lock_file, fcntl.LOCK_EX)
        try:
            if self._count(-1) <= 0:
                OpenStackCloud.load(self.folder).stop(drop=True)
        finally:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()


@pytest.fixture(scope="session")
def openstack_cloud(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[CloudAccess]:
    """The run's test cloud (see the module docstring)."""
    given = os.environ.get(ENV_VAR)
    if given:
        where = Path(given).resolve()
        cloud = OpenStackCloud.load(where)
        _check_running(cloud, where)
        yield _access(cloud)
        return
    # under xdist each worker's base folder is popen-gwN of one parent
    base = tmp_path_factory.getbasetemp()
    parent = base.parent if base.name.startswith("popen-gw") else base
    with _SharedCloud(parent / "openstack-cloud") as cloud:
        yield _access(cloud)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Add the services' log tails to a failed cloud test's report."""
    report = yield
    access = getattr(item, "funcargs", {}).get("openstack_cloud")
    if report.failed and isinstance(access, CloudAccess):
        report.sections.append(("cloud logs", access.cloud.log_tails()))
    return report
