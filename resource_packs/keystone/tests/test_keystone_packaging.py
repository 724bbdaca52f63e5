"""The pack as a real wheel in a fresh virtual environment.

As ``tests/functional/test_packaging.py`` of the core does: a venv without
system site-packages gets the wheels of keel-heat-core and
keel-heat-client-keystone built from this tree; the third-party
dependencies come from a venv cached between runs (keyed by the
dependency lists), reached through a ``.pth`` file. Without the pack the
Keystone types are unknown, and a template using one fails validation
with Heat's error; with it, ``keel-heat-manage packs list`` shows the pack
and its version and the types resolve to the pack's classes.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from typing import Any

import pytest

PACK = pathlib.Path(__file__).resolve().parents[1]
ROOT = PACK.parents[1]
CLIENT = ROOT / "client_plugins" / "keystone"
CACHE = (
    pathlib.Path(
        os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")
    )
    / "keel-heat-tests"
)
VERSION = tomllib.loads((PACK / "pyproject.toml").read_text())["project"][
    "version"
]
TYPES = sorted(
    tomllib.loads((PACK / "pyproject.toml").read_text())["project"][
        "entry-points"
    ]["keel_heat.resources"]
)

pytestmark = pytest.mark.slow

#: Validates a template's resource types the way the engine's
#: validation does, printing the class of each or Heat's error.
VALIDATE = textwrap.dedent(
    """\
    import sys
    from keel_heat_core import exception
    from keel_heat_core.template import environment, format
    template = format.parse(sys.stdin.read())
    env = environment.Environment({})
    for name, rsrc in sorted(template["resources"].items()):
        try:
            cls = env.get_class_to_instantiate(rsrc["type"], name)
        except (
            exception.StackValidationFailed,
            exception.ResourceTypeUnavailable,
        ) as exc:
            print(f"{name}: {exc}")
        else:
            print(f"{name}: {cls.__module__}.{cls.__name__}")
    """
)

TEMPLATE = textwrap.dedent(
    """\
    heat_template_version: 2021-04-16
    resources:
      project:
        type: OS::Keystone::Project
      user:
        type: OS::Keystone::User
    """
)


def run(*args: Any, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=900,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        env=env,
        check=False,
    )


def check(*args: Any, stdin: str | None = None) -> str:
    result = run(*args, stdin=stdin)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@contextlib.contextmanager
def locked(path: pathlib.Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def site_packages(venv: pathlib.Path) -> pathlib.Path:
    out = check(
        venv / "bin" / "python",
        "-c",
        "import sysconfig; print(sysconfig.get_path('purelib'))",
    )
    return pathlib.Path(out.strip())


def dependencies_venv(wheels: dict[str, pathlib.Path]) -> pathlib.Path:
    """A cached venv with the dependencies of core, client and pack only."""
    wanted = []
    for source in (ROOT, CLIENT, PACK):
        project = tomllib.loads((source / "pyproject.toml").read_text())
        wanted.extend(project["project"]["dependencies"])
    key = hashlib.sha256("\n".join(sorted(wanted)).encode()).hexdigest()
    venv = CACHE / f"ksdeps-{key[:16]}"
    with locked(CACHE / "ksdeps.lock"):
        if not (venv / "ready").exists():
            shutil.rmtree(venv, ignore_errors=True)
            check(sys.executable, "-m", "venv", venv)
            pip = (venv / "bin" / "python", "-m", "pip")
            check(*pip, "install", "-q", *wheels.values())
            check(*pip, "uninstall", "-q", "-y", *DISTRIBUTIONS)
            (venv / "ready").write_text("")
    return venv


DISTRIBUTIONS = (
    "keel-heat-core",
    "keel-heat-client-keystone",
    "keel-heat-pack-keystone",
)


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: Any) -> dict[str, pathlib.Path]:
    """Wheels of the core, the client plugin and this pack."""
    out = tmp_path_factory.mktemp("wheels")
    check(
        sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", out,
        ROOT, CLIENT, PACK,
    )  # fmt: skip
    found = {w.name.split("-")[0]: w for w in out.glob("*.whl")}
    assert set(found) == {d.replace("-", "_") for d in DISTRIBUTIONS}
    return found


def pip(venv: pathlib.Path, *args: Any) -> str:
    return check(
        sys.executable, "-m", "pip", "--python", venv / "bin" / "python", *args
    )


def test_types_come_and_go_with_the_pack(
    wheels: dict[str, pathlib.Path], tmp_path: pathlib.Path
) -> None:
    deps = dependencies_venv(wheels)
    venv = tmp_path / "venv"
    check(sys.executable, "-m", "venv", "--without-pip", venv)
    (site_packages(venv) / "_keel_deps.pth").write_text(
        f"{site_packages(deps)}\n"
    )
    install = ("install", "-q", "--no-deps", "--no-index")
    pip(venv, *install, wheels["keel_heat_core"])
    pip(venv, *install, wheels["keel_heat_client_keystone"])
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    manage = (venv / "bin" / "keel-heat-manage", "--config-file", conf)
    python = venv / "bin" / "python"

    listed = check(*manage, "packs", "list", "--long")
    assert "keel-heat-client-keystone" in listed
    assert "keel-heat-pack-keystone" not in listed
    assert "OS::Keystone" not in listed
    missing = (
        "HEAT-E99001 Service keystone is not available for resource type "
        "{}, reason: no installed keel-heat pack provides it"
    )
    assert check(python, "-c", VALIDATE, stdin=TEMPLATE).splitlines() == [
        "project: " + missing.format("OS::Keystone::Project"),
        "user: " + missing.format("OS::Keystone::User"),
    ]

    pip(venv, *install, wheels["keel_heat_pack_keystone"])
    listed = check(*manage, "packs", "list", "--long")
    rows = [line.split() for line in listed.splitlines()]
    assert ["keel-heat-pack-keystone", VERSION, "10"] in [r[:3] for r in rows]
    for type_name in TYPES:
        assert (
            f"keel-heat-pack-keystone: keel_heat.resources: {type_name}"
            in listed
        )
    check(*manage, "packs", "check")
    assert check(python, "-c", VALIDATE, stdin=TEMPLATE).splitlines() == [
        "project: keel_heat_pack_keystone.project.KeystoneProject",
        "user: keel_heat_pack_keystone.user.KeystoneUser",
    ]
    rules = check(
        python,
        "-c",
        "from keel_heat_core.policies.enforcer import all_rules\n"
        "print('\\n'.join(r.name for r in all_rules()))",
    ).splitlines()
    assert {f"resource_types:{t}" for t in TYPES} <= set(rules)

    pip(venv, "uninstall", "-q", "-y", "keel-heat-pack-keystone")
    assert "OS::Keystone" not in check(*manage, "packs", "list", "--long")
    assert "no installed keel-heat pack provides it" in check(
        python, "-c", VALIDATE, stdin=TEMPLATE
    )
