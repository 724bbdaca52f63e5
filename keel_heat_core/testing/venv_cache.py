"""Cached virtualenvs outside the repository clone, for test fixtures.

Real services the tests run against (Keystone, the OpenStack cloud of
:mod:`keel_heat_core.testing.openstack`) are installed from PyPI once,
into a venv under :func:`cache_root`, and reused by later test sessions.
A venv is reused while its marker file holds the text it was made for
(a version, a lock file's hash) and a probe still runs in it; otherwise
it is removed and installed again. A file lock beside it keeps parallel
test workers (or two clones) from installing at the same time.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

MARKER = ".keel-heat-ready"
"""The file in a venv that says what it was installed for."""

INSTALL_TIMEOUT = 1800
"""Seconds allowed for a cold install from PyPI."""


def cache_root() -> Path:
    """Return the folder holding cached test virtualenvs.

    :returns: ``$KEEL_HEAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/keel-heat``,
        else ``~/.cache/keel-heat``.
    """
    explicit = os.environ.get("KEEL_HEAT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "keel-heat"


def python_of(venv: Path) -> Path:
    """Return the interpreter of ``venv``."""
    return venv / "bin" / "python"


def runs(venv: Path, probe: str, timeout: float = 120) -> bool:
    """Tell whether Python code ``probe`` exits 0 in ``venv``."""
    python = python_of(venv)
    if not python.exists():
        return False
    try:
        result = subprocess.run(
            [str(python), "-c", probe],
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


def is_healthy(venv: Path, marker: str, probe: str) -> bool:
    """Tell whether ``venv`` was installed for ``marker`` and works.

    :param venv: the virtualenv folder.
    :param marker: the text its marker file must hold.
    :param probe: Python code that must exit 0 in it.
    """
    path = venv / MARKER
    if not path.is_file() or path.read_text().strip() != marker.strip():
        return False
    return runs(venv, probe)


def install(venv: Path, pip_args: Sequence[str], marker: str) -> None:
    """Make ``venv`` afresh and ``pip install`` ``pip_args`` into it.

    The pip log is kept beside the venv (``<name>.install.log``).

    :raises RuntimeError: when pip fails (with the log's tail).
    """
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
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
                *pip_args,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
    if result.returncode != 0:
        raise RuntimeError(
            f"pip install {' '.join(pip_args)} into {venv} failed "
            f"(log {log}):\n{log.read_text()[-3000:]}"
        )
    (venv / MARKER).write_text(marker.strip() + "\n")


def ensure(
    venv: Path, pip_args: Sequence[str], marker: str, probe: str
) -> Path:
    """Return ``venv`` healthy for ``marker``, installing it when needed.

    :param venv: the virtualenv folder (under :func:`cache_root`).
    :param pip_args: what ``pip install`` gets on a (re)install.
    :param marker: what the venv is installed for (a version, a hash).
    :param probe: Python code proving the venv works.
    :raises RuntimeError: when the installation fails.
    """
    if is_healthy(venv, marker, probe):
        return venv
    venv.parent.mkdir(parents=True, exist_ok=True)
    lock_path = venv.parent / f"{venv.name}.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            # another worker may have installed it while we waited
            if not is_healthy(venv, marker, probe):
                install(venv, pip_args, marker)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return venv
