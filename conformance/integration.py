"""Heat's in-tree functional tests (``heat_integrationtests``) and their tools.

The tests ship inside the openstack-heat wheel. Only the
``heat_integrationtests/`` folder is taken out of it, into a cached folder
beside the tempest venv under the cache root (reused while its marker
names the same wheel); that folder goes on the suite's ``PYTHONPATH``.
Heat's own code (the ``heat`` package) is never extracted, installed or
run. The tests run in the tempest venv (:mod:`conformance.venv`), which
holds the client libraries they import.

``test_purge`` runs ``heat-manage purge_deleted 0`` on this machine:
:func:`write_heat_manage` writes a ``heat-manage`` command for the
suite's ``PATH`` that runs ``keel-heat-manage`` with the deployment's
configuration.
"""

from __future__ import annotations

import fcntl
import shlex
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from keel_heat_core.testing.keystone_venv import cache_root

WHEEL = "openstack-heat==27.0.1"
"""The release whose tests are run."""

PACKAGE = "heat_integrationtests"

FOLDER_NAME = "heat-integrationtests-27.0.1"

DOWNLOAD_TIMEOUT = 900

_MARKER = ".keel-heat-ready"

#: Heat's ``heat-manage`` spellings that keel-heat-manage spells otherwise.
MANAGE_SPELLINGS = {"purge_deleted": "purge-deleted"}


def _healthy(folder: Path) -> bool:
    marker = folder / _MARKER
    return (
        marker.is_file()
        and marker.read_text().strip() == WHEEL
        and (folder / PACKAGE / "functional" / "__init__.py").is_file()
    )


def extract(wheel: Path, target: Path) -> int:
    """Unpack only ``heat_integrationtests/`` of ``wheel`` into ``target``.

    :param wheel: the openstack-heat wheel.
    :param target: the folder that will hold the package.
    :returns: how many files were written.
    :raises RuntimeError: when the wheel has no such package.
    """
    count = 0
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            name = member.filename
            if not name.startswith(f"{PACKAGE}/") or member.is_dir():
                continue
            if ".." in Path(name).parts:
                continue
            archive.extract(member, target)
            count += 1
    if not count:
        raise RuntimeError(f"{wheel.name} holds no {PACKAGE}/ package")
    return count


def _download(python: Path, folder: Path) -> None:
    with tempfile.TemporaryDirectory(dir=folder.parent) as scratch:
        result = subprocess.run(
            [str(python), "-m", "pip", "download", "--no-deps"]
            + ["--disable-pip-version-check", "--only-binary", ":all:"]
            + ["--dest", scratch, WHEEL],
            capture_output=True,
            text=True,
            timeout=DOWNLOAD_TIMEOUT,
            check=False,
        )
        wheels = sorted(Path(scratch).glob("openstack_heat-*.whl"))
        if result.returncode != 0 or not wheels:
            raise RuntimeError(
                f"pip download {WHEEL} failed:\n"
                f"{(result.stderr or result.stdout)[-3000:]}"
            )
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        extract(wheels[0], folder)
    (folder / _MARKER).write_text(WHEEL + "\n")


def ensure_package(python: Path) -> Path:
    """Return the folder holding ``heat_integrationtests``, fetching it once.

    :param python: an interpreter with pip (the tempest venv's).
    :returns: the folder to put on ``PYTHONPATH``.
    :raises RuntimeError: when the wheel cannot be downloaded or read.
    """
    folder = cache_root() / FOLDER_NAME
    if _healthy(folder):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f"{FOLDER_NAME}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _healthy(folder):
                _download(python, folder)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


def write_heat_manage(bin_dir: Path, manage: str, config: Path) -> Path:
    """Write a ``heat-manage`` command running keel-heat-manage.

    Heat's spellings in :data:`MANAGE_SPELLINGS` are mapped to
    keel-heat-manage's; other arguments are passed on unchanged.

    :param bin_dir: the folder to put on the suite's ``PATH``.
    :param manage: the keel-heat-manage executable.
    :param config: the deployment's keel-heat.conf.
    :returns: the command's path.
    """
    bin_dir.mkdir(parents=True, exist_ok=True)
    cases = "".join(
        f"    {heat}) cmd={ours} ;;\n"
        for heat, ours in MANAGE_SPELLINGS.items()
    )
    script = (
        "#!/bin/sh\n"
        "# heat-manage for heat_integrationtests: keel-heat-manage with the\n"
        "# conformance deployment's configuration.\n"
        'cmd="$1"\n'
        '[ "$#" -gt 0 ] && shift\n'
        'case "$cmd" in\n'
        f"{cases}"
        "esac\n"
        f"exec {shlex.quote(manage)} --config-file "
        f'{shlex.quote(str(config))} ${{cmd:+"$cmd"}} "$@"\n'
    )
    path = bin_dir / "heat-manage"
    path.write_text(script)
    path.chmod(0o755)
    return path
