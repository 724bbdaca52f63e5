"""A cached virtualenv holding a real Keystone for the test fixture.

Keystone and its dependencies are installed from PyPI once, into a venv
outside the repository clone, and reused by every later test session:

* ``$KEEL_HEAT_KEYSTONE_VENV`` when set (used as is, never installed into);
* else ``$KEEL_HEAT_CACHE_DIR/keystone-venv-<version>``;
* else ``$XDG_CACHE_HOME/keel-heat/keystone-venv-<version>``, which is
  ``~/.cache/keel-heat/keystone-venv-<version>`` by default.

A venv counts as healthy when its marker file names the wanted version
and its interpreter still reports that Keystone version; anything else is
removed and installed again (:mod:`keel_heat_core.testing.venv_cache`,
the mechanism every cached test venv uses).
"""

from __future__ import annotations

import os
from pathlib import Path

from keel_heat_core.testing import venv_cache
from keel_heat_core.testing.venv_cache import cache_root

__all__ = [
    "EXTRA_REQUIREMENTS",
    "KEYSTONE_VERSION",
    "cache_root",
    "ensure_venv",
    "is_healthy",
    "venv_path",
    "venv_python",
]

KEYSTONE_VERSION = "30.0.0"
"""The Keystone release the fixture runs (2026.2)."""

EXTRA_REQUIREMENTS = ("gunicorn>=22",)
"""What the fixture needs next to Keystone to serve it."""


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
    return venv_cache.python_of(venv)


def _probe(version: str) -> str:
    return (
        "import importlib.metadata as m, sys, gunicorn; "
        f"sys.exit(m.version('keystone') != {version!r})"
    )


def is_healthy(venv: Path, version: str = KEYSTONE_VERSION) -> bool:
    """Tell whether ``venv`` holds a usable Keystone ``version``.

    :param venv: the virtualenv folder.
    :param version: the Keystone release expected there.
    """
    return venv_cache.is_healthy(venv, version, _probe(version))


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
        if not is_healthy(venv, version) and not venv_cache.runs(
            venv, "import keystone, gunicorn", timeout=60
        ):
            raise RuntimeError(f"{venv} holds no keystone=={version}")
        return venv
    return venv_cache.ensure(
        venv,
        [f"keystone=={version}", *EXTRA_REQUIREMENTS],
        version,
        _probe(version),
    )
