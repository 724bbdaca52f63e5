"""Cached virtualenvs for the test suites, outside the repository clone.

A venv lives under the cache root shared with the Keystone fixture
(``$KEEL_HEAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/keel-heat``, else
``~/.cache/keel-heat``). It is reused while its marker file names the same
requirements and a probe import still works; otherwise it is removed and
installed again. A file lock beside it serialises concurrent installs
(:mod:`keel_heat_core.testing.venv_cache`, shared by every cached test
venv).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from keel_heat_core.testing import venv_cache
from keel_heat_core.testing.venv_cache import cache_root, python_of

__all__ = ["cache_root", "ensure_venv", "is_healthy", "python_of"]

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


def is_healthy(venv: Path, requirements: Sequence[str], probe: str) -> bool:
    """Tell whether ``venv`` was installed with ``requirements`` and works.

    :param venv: the virtualenv folder.
    :param requirements: the pip requirements it must have been made with.
    :param probe: Python code that must run without error in it.
    """
    return venv_cache.is_healthy(venv, " ".join(requirements), probe)


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
    venv = venv_cache.ensure(
        cache_root() / name, requirements, " ".join(requirements), probe
    )
    if not is_healthy(venv, requirements, probe):
        raise RuntimeError(f"{venv} was installed but `{probe}` fails")
    return venv
