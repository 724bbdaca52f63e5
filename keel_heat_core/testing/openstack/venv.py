"""The one virtualenv holding every service of the test cloud.

Keystone, Placement, Nova, Glance, Neutron, Cinder and Swift of the
2026.2 releases share one venv: their requirements do not conflict.
It is pinned by ``cloud.lock.txt`` (a ``pip freeze`` of a working venv)
under ``constraints.txt`` (OpenStack's upper constraints with the two
pins nova 34.0.0 needs raised), both shipped beside this module, and is
cached as ``openstack-venv`` under the test venv cache root
(:func:`keel_heat_core.testing.venv_cache.cache_root`). The marker of
the venv is the hash of the two files and of the Python version: when
either changes the venv is installed again.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from keel_heat_core.testing import venv_cache

HERE = Path(__file__).resolve().parent
LOCK_FILE = HERE / "cloud.lock.txt"
CONSTRAINTS_FILE = HERE / "constraints.txt"
VENV_NAME = "openstack-venv"

PROBE = (
    "import keystone, placement, nova, glance, neutron, cinder, swift, "
    "gunicorn, pymysql, pyroute2, openstackclient, swiftclient"
)
"""Imports that prove the venv serves the cloud (``pyroute2`` is named
because neutron's and os-vif's wheels lost it from their metadata)."""


def lock_hash(
    lock: bytes | None = None,
    constraints: bytes | None = None,
    python: str | None = None,
) -> str:
    """Return the marker of a venv installed from the lock files.

    :param lock: the lock file's content (the shipped one by default).
    :param constraints: the constraints' content (likewise).
    :param python: ``major.minor`` of the interpreter (this one's).
    """
    digest = hashlib.sha256()
    for part in (
        LOCK_FILE.read_bytes() if lock is None else lock,
        CONSTRAINTS_FILE.read_bytes() if constraints is None else constraints,
        (python or f"{sys.version_info[0]}.{sys.version_info[1]}").encode(),
    ):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:20]


def venv_path() -> Path:
    """Return where the cloud's venv lives.

    ``$KEEL_HEAT_OPENSTACK_VENV`` when set (used as is, never installed
    into), else ``openstack-venv`` under the cache root.
    """
    explicit = os.environ.get("KEEL_HEAT_OPENSTACK_VENV")
    if explicit:
        return Path(explicit)
    return venv_cache.cache_root() / VENV_NAME


def ensure_venv() -> Path:
    """Return the cloud's venv, installing it when the lock changed.

    :raises RuntimeError: when pip fails, or an explicitly configured
        venv cannot import the services.
    """
    venv = venv_path()
    if os.environ.get("KEEL_HEAT_OPENSTACK_VENV"):
        if not venv_cache.runs(venv, PROBE):
            raise RuntimeError(f"{venv} cannot import the cloud's services")
        return venv
    return venv_cache.ensure(
        venv,
        ["-c", str(CONSTRAINTS_FILE), "-r", str(LOCK_FILE)],
        lock_hash(),
        PROBE,
    )


def bin_of(venv: Path, name: str) -> str:
    """Return the path of console script ``name`` in ``venv``."""
    return str(venv / "bin" / name)


if __name__ == "__main__":  # pragma: no cover - a manual helper
    print(ensure_venv())
