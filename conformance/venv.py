"""Cached virtualenvs for the test suites, outside the repository clone.

A venv lives under the cache root shared with the Keystone fixture
(``$KEEL_HEAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/keel-heat``, else
``~/.cache/keel-heat``). It is reused while its marker file names the same
requirements and a probe import still works; otherwise it is removed and
installed again. A file lock beside it serialises concurrent installs.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from keel_heat_core.testing.keystone_venv import cache_root

TEMPEST_REQUIREMENTS = (
    "tempest==47.0.0",
    "heat-tempest-plugin==3.0.0",
    # What Heat's in-tree functional tests (heat_integrationtests) import
    # beyond the two above; pinned so that the venv is rebuilt on change.
    "kombu==5.7.0",
    "python-keystoneclient==6.0.0",
    "python-novaclient==18.13.1",
    "python-swiftclient==4.11.0",
    "testscenarios==0.7.0",
)
"""What the tempest venv holds (gabbi and stestr come with them)."""

TEMPEST_VENV_NAME = "tempest-venv-47"

TEMPEST_PROBE = (
    "import heat_tempest_plugin, stestr, subunit, testtools, kombu, "
    "keystoneclient, novaclient, swiftclient, testscenarios"
)

INSTALL_TIMEOUT = 1800
"""Seconds allowed for a cold install."""

_MARKER = ".keel-heat-ready"


def python_of(venv: Path) -> Path:
    """Return the interpreter of ``venv``."""
    return venv / "bin" / "python"


def is_healthy(venv: Path, requirements: Sequence[str], probe: str) -> bool:
    """Tell whether ``venv`` was installed with ``requirements`` and works.

    :param venv: the virtualenv folder.
    :param requirements: the pip requirements it must have been made with.
    :param probe: Python code that must run without error in it.
    """
    marker = venv / _MARKER
    if not (marker.is_file() and python_of(venv).exists()):
        return False
    if marker.read_text().split() != list(requirements):
        return False
    try:
        subprocess.run(
            [str(python_of(venv)), "-c", probe],
            capture_output=True,
            timeout=120,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return True


def _install(venv: Path, requirements: Sequence[str]) -> None:
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run(
        [sys.executable, "-m", "venv", str(venv)], check=True, timeout=300
    )
    log = venv.parent / f"{venv.name}.install.log"
    with log.open("w") as out:
        result = subprocess.run(
            [
                str(python_of(venv)),
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                *requirements,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
    if result.returncode != 0:
        raise RuntimeError(
            f"pip install {' '.join(requirements)} into {venv} failed "
            f"(log {log}):\n{log.read_text()[-3000:]}"
        )
    (venv / _MARKER).write_text(" ".join(requirements) + "\n")


def ensure_venv(
    name: str = TEMPEST_VENV_NAME,
    requirements: Sequence[str] = TEMPEST_REQUIREMENTS,
    probe: str = TEMPEST_PROBE,
) -> Path:
    """Return a healthy cached venv, installing it when needed.

    :param name: the folder name under the cache root.
    :param requirements: pip requirements to install.
    :param probe: Python code proving the venv works.
    :returns: the virtualenv folder.
    :raises RuntimeError: when the installation fails.
    """
    venv = cache_root() / name
    if is_healthy(venv, requirements, probe):
        return venv
    venv.parent.mkdir(parents=True, exist_ok=True)
    with (venv.parent / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not is_healthy(venv, requirements, probe):
                _install(venv, requirements)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if not is_healthy(venv, requirements, probe):
        raise RuntimeError(f"{venv} was installed but `{probe}` fails")
    return venv
