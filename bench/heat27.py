"""The real Heat 27.0.1 as a benchmark deployment (``launcher heat27``).

Heat is installed from the package index, once, into a virtualenv
outside the repository (``$KEEL_HEAT_CACHE_DIR/heat27-venv``, by
default ``~/.cache/keel-heat/heat27-venv``), and only ever run from
there: nothing of Heat is imported into this process.

A run gets what the issue's targets name: ``heat-engine`` with two
engine workers, a database of its own on MariaDB (``heat-manage
db_sync``), a virtual host of its own on RabbitMQ, Heat's native API
application under gunicorn with the same worker settings as keel-heat's,
and the real Keystone fixture (``keel_heat_core.testing.keystone``).
The ``heat.conf`` is the conformance one (:mod:`conformance.heat_conf`,
Heat's functional job settings) with the benchmark's size limits.
"""

from __future__ import annotations

import fcntl
import pathlib
import shutil
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from keel_heat_core.testing.keystone_venv import cache_root

HEAT_VERSION = "27.0.1"
REQUIREMENTS = (f"openstack-heat=={HEAT_VERSION}", "PyMySQL", "gunicorn")
_MARKER = ".keel-heat-ready"

#: The gunicorn entry module: oslo.config parses ``sys.argv``, so the
#: application must see Heat's own arguments, not gunicorn's.
ENTRY = """\
import sys

sys.argv = ["heat-api", "--config-file", {conf!r}]

from heat.wsgi.api import application  # noqa: E402,F401
"""


def venv_path() -> pathlib.Path:
    """Where the Heat virtualenv lives (outside the repository)."""
    return cache_root() / "heat27-venv"


def _healthy(venv: pathlib.Path) -> bool:
    marker = venv / _MARKER
    if not marker.is_file() or marker.read_text().strip() != HEAT_VERSION:
        return False
    probe = "import importlib.metadata as m; print(m.version('%s'))"
    probe %= "openstack-heat"
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip() == HEAT_VERSION


def ensure_venv() -> pathlib.Path:
    """Return the Heat virtualenv, creating it on first use."""
    venv = venv_path()
    if _healthy(venv):
        return venv
    venv.parent.mkdir(parents=True, exist_ok=True)
    with (venv.parent / "heat27-venv.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _healthy(venv):
            return venv
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        log = venv.parent / "heat27-venv.install.log"
        with log.open("w") as out:
            result = subprocess.run(
                [str(venv / "bin" / "pip"), "install", *REQUIREMENTS],
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if result.returncode != 0:
            raise RuntimeError(f"installing Heat failed, see {log}")
        (venv / _MARKER).write_text(HEAT_VERSION + "\n")
    return venv


#: what each MariaDB driver of the launcher's ``--db-driver`` needs in
#: Heat's virtualenv beyond ``REQUIREMENTS``: ``(package, module)``, or
#: None (PyMySQL is one of the requirements)
DRIVER_PACKAGES = {"pymysql": None, "mysqldb": ("mysqlclient", "MySQLdb")}


def ensure_driver(venv: pathlib.Path, driver: str) -> None:
    """Install the database driver Heat is to run with, once.

    mysqlclient builds against libmariadb; it is installed only when a
    run asks for it, so a machine without the headers can still run
    Heat on PyMySQL.
    """
    needed = DRIVER_PACKAGES[driver]
    if needed is None:
        return
    package, module = needed
    python = str(venv / "bin" / "python")
    probe = subprocess.run(
        [python, "-c", f"import {module}"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        subprocess.run(
            [python, "-m", "pip", "install", "-q", package], check=True
        )


def paste_config(venv: pathlib.Path) -> pathlib.Path:
    """Heat's ``api-paste.ini`` as its package installed it."""
    found = sorted(venv.glob("etc/heat/api-paste.ini"))
    found += sorted(venv.glob("lib/python*/site-packages/etc/heat/*paste*"))
    if not found:
        raise RuntimeError(f"no api-paste.ini under {venv}")
    return found[0]


def heat_options(
    keystone: Mapping[str, Mapping[str, Any]],
    database: str,
    transport: str,
    workdir: pathlib.Path,
    extra: Mapping[str, Mapping[str, str]],
) -> dict[str, dict[str, Any]]:
    """The options of a benchmark deployment, per group, Heat's names.

    :param keystone: ``KeystoneServer.heat_config()``.
    :param database: the SQLAlchemy URL.
    :param transport: the oslo.messaging URL (a private virtual host).
    :param workdir: where logs and the environment folder go.
    :param extra: options laid over the result (size limits, logs).
    """
    from conformance.heat_conf import Endpoints, heat_settings

    envdir = workdir / "environment.d"
    envdir.mkdir(exist_ok=True)
    values = heat_settings(
        keystone,
        Endpoints(
            database=database,
            transport=transport,
            # No CFN API runs: the benchmark's resources never signal.
            cfn_url="http://127.0.0.1:9",
            environment_dir=envdir,
        ),
    )
    for group, options in extra.items():
        values.setdefault(group, {}).update(options)
    return values


def write_entry(workdir: pathlib.Path, conf: pathlib.Path) -> str:
    """Write the gunicorn entry module; return its ``module:app``."""
    (workdir / "heat27_wsgi_entry.py").write_text(ENTRY.format(conf=str(conf)))
    return "heat27_wsgi_entry:application"
