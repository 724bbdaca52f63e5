"""A cached virtualenv holding a real Keystone for the test fixture.

Keystone and its dependencies are installed from PyPI once, into a venv
outside the repository clone, and reused by every later test session:

* ``$KEEL_HEAT_KEYSTONE_VENV`` when set (used as is, never installed into);
* else ``$KEEL_HEAT_CACHE_DIR/keystone-venv-<version>``;
* else ``$XDG_CACHE_HOME/keel-heat/keystone-venv-<version>``, which is
  ``~/.cache/keel-heat/keystone-venv-<version>`` by default.

A venv counts as healthy when its marker file names the wanted version
and its interpreter still reports that Keystone version; anything else is
removed and installed again. A file lock next to the venv keeps parallel
test workers from installing at the same time.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

KEYSTONE_VERSION = "30.0.0"
"""The Keystone release the fixture runs (2026.2)."""

EXTRA_REQUIREMENTS = ("gunicorn>=22",)
"""What the fixture needs next to Keystone to serve it."""

INSTALL_TIMEOUT = 1800
"""Seconds allowed for a cold install from PyPI."""

_MARKER = ".keel-heat-ready"


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


def venv_path(version: str = KEYSTONE_VERSION) -> Path:
    """Return where the Keystone venv of ``version`` lives.

    :param version: the Keystone release.
    """
    explicit = os.environ.get("KEEL_HEAT_KEYSTONE_VENV")
    if explicit:
        return Path(explicit)
    return cache_root() / f"keystone-venv-{version}"


def venv_python(venv: Path) -> Path:
    """Return the interpreter of ``venv``."""
    return venv / "bin" / "python"


def is_healthy(venv: Path, version: str = KEYSTONE_VERSION) -> bool:
    """Tell whether ``venv`` holds a usable Keystone ``version``.

    :param venv: the virtualenv folder.
    :param version: the Keystone release expected there.
    """
    marker = venv / _MARKER
    python = venv_python(venv)
    if not (marker.is_file() and python.exists()):
        return False
    if marker.read_text().strip() != version:
        return False
    probe = (
        "import importlib.metadata as m, gunicorn; "
        "print(m.version('keystone'))"
    )
    try:
        out = subprocess.run(
            [str(python), "-c", probe],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return out.stdout.strip() == version


def _install(venv: Path, version: str) -> None:
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "venv", str(venv)],
        check=True,
        timeout=300,
    )
    log = venv.parent / f"{venv.name}.install.log"
    with log.open("w") as out:
        result = subprocess.run(
            [
                str(venv_python(venv)),
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                f"keystone=={version}",
                *EXTRA_REQUIREMENTS,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=INSTALL_TIMEOUT,
            check=False,
        )
    if result.returncode != 0:
        tail = log.read_text()[-3000:]
        raise RuntimeError(
            f"installing keystone=={version} into {venv} failed "
            f"(log {log}):\n{tail}"
        )
    (venv / _MARKER).write_text(version + "\n")


def ensure_venv(version: str = KEYSTONE_VERSION) -> Path:
    """Return a healthy Keystone venv, installing it when needed.

    :param version: the Keystone release.
    :returns: the virtualenv folder.
    :raises RuntimeError: when the installation fails, or when an
        explicitly configured venv (``$KEEL_HEAT_KEYSTONE_VENV``) is not
        healthy.
    """
    venv = venv_path(version)
    if os.environ.get("KEEL_HEAT_KEYSTONE_VENV"):
        if not is_healthy(venv, version) and not _has_keystone(venv):
            raise RuntimeError(f"{venv} holds no keystone=={version}")
        return venv
    if is_healthy(venv, version):
        return venv
    venv.parent.mkdir(parents=True, exist_ok=True)
    lock_path = venv.parent / f"{venv.name}.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            # Another worker may have installed it while we waited.
            if not is_healthy(venv, version):
                _install(venv, version)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return venv


def _has_keystone(venv: Path) -> bool:
    python = venv_python(venv)
    if not python.exists():
        return False
    result = subprocess.run(
        [str(python), "-c", "import keystone, gunicorn"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    return result.returncode == 0
