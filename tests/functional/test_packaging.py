"""Packs as real wheels in real virtual environments.

Each test makes a fresh venv (no system site-packages), installs the
keel-heat-core wheel built from this tree and throwaway pack wheels into
it, and runs the console scripts. The third-party dependencies come from
a venv cached between runs (keyed by the core's dependency list), reached
through a ``.pth`` file, so that a run stays well under a minute.
"""

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
import zipfile

import pytest

from conformance import heat_conf
from tests.functional import embedded_stubs
from tests.functional.test_embedded_osc import BIN

ROOT = pathlib.Path(__file__).resolve().parents[2]
CACHE = (
    pathlib.Path(
        os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")
    )
    / "keel-heat-tests"
)

pytestmark = pytest.mark.slow


def run(*args: str | pathlib.Path, **kwargs) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
        env=env,
        **kwargs,
    )


def check(*args: str | pathlib.Path) -> str:
    result = run(*args)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def write_pack(where: pathlib.Path, dist: str, types: list[str]) -> None:
    """Write the source of a pack registering ``types``."""
    package = dist.replace("-", "_")
    (where / package).mkdir(parents=True)
    (where / package / "__init__.py").write_text(
        'PLUGIN_API_REQUIRES = ">=1.0,<2"\n\n\n'
        "class Thing:\n    '''A throwaway resource type.'''\n"
    )
    entries = "\n".join(f'"{t}" = "{package}:Thing"' for t in types)
    (where / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [build-system]
            requires = ["hatchling"]
            build-backend = "hatchling.build"

            [project]
            name = "{dist}"
            version = "0.0.1"
            dependencies = ["keel-heat-core"]

            [project.entry-points."keel_heat.plugin_api"]
            requires = "{package}:PLUGIN_API_REQUIRES"

            [project.entry-points."keel_heat.resources"]
            """
        )
        + entries
        + "\n"
    )


@contextlib.contextmanager
def locked(path: pathlib.Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def dependencies_venv(
    *dist_wheels: pathlib.Path, projects: tuple[pathlib.Path, ...] = (ROOT,)
) -> pathlib.Path:
    """Return a cached venv holding the third-party dependencies of the
    given keel-heat wheels (none of the keel-heat distributions)."""
    wanted = "\n".join(
        sorted(
            dep
            for where in projects
            for dep in tomllib.loads((where / "pyproject.toml").read_text())[
                "project"
            ]["dependencies"]
            if not dep.startswith("keel-heat-")
        )
    )
    key = hashlib.sha256(wanted.encode()).hexdigest()
    venv = CACHE / f"deps-{key[:16]}"
    with locked(CACHE / "deps.lock"):
        if not (venv / "ready").exists():
            shutil.rmtree(venv, ignore_errors=True)
            check(sys.executable, "-m", "venv", venv)
            python = venv / "bin" / "python"
            check(python, "-m", "pip", "install", "-q", *dist_wheels)
            names = [
                w.name.split("-")[0].replace("_", "-") for w in dist_wheels
            ]
            check(python, "-m", "pip", "uninstall", "-q", "-y", *names)
            (venv / "ready").write_text("")
    return venv


def site_packages(venv: pathlib.Path) -> pathlib.Path:
    out = check(
        venv / "bin" / "python",
        "-c",
        "import sysconfig; print(sysconfig.get_path('purelib'))",
    )
    return pathlib.Path(out.strip())


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> dict[str, pathlib.Path]:
    """Build the core wheel and three throwaway packs, in one pip call."""
    src = tmp_path_factory.mktemp("src")
    write_pack(src / "a", "keel-heat-pack-dupa", ["OS::Dup::Thing"])
    write_pack(src / "b", "keel-heat-pack-dupb", ["OS::Dup::Thing"])
    write_pack(src / "c", "keel-heat-pack-demo", ["OS::Demo::Thing"])
    found = build_wheels(
        tmp_path_factory.mktemp("wheels"),
        ROOT,
        src / "a",
        src / "b",
        src / "c",
    )
    assert set(found) == {
        "keel_heat_core",
        "keel_heat_pack_dupa",
        "keel_heat_pack_dupb",
        "keel_heat_pack_demo",
    }
    return found


def build_wheels(
    out: pathlib.Path, *projects: pathlib.Path
) -> dict[str, pathlib.Path]:
    """Wheels of ``projects`` (no dependencies) in ``out``, by the
    distribution's module name."""
    check(
        sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", out,
        *projects,
    )  # fmt: skip
    return {w.name.split("-")[0]: w for w in out.glob("*.whl")}


def fresh_venv(where: pathlib.Path, deps: pathlib.Path) -> pathlib.Path:
    """A venv without pip that sees the dependencies venv ``deps``."""
    venv = where / "venv"
    check(sys.executable, "-m", "venv", "--without-pip", venv)
    (site_packages(venv) / "_keel_deps.pth").write_text(
        f"{site_packages(deps)}\n"
    )
    return venv


@pytest.fixture
def venv(tmp_path, wheels) -> pathlib.Path:
    """A fresh venv with the core wheel and its cached dependencies."""
    venv = fresh_venv(tmp_path, dependencies_venv(wheels["keel_heat_core"]))
    install(venv, wheels["keel_heat_core"])
    return venv


def pip(venv: pathlib.Path, *args: str | pathlib.Path) -> str:
    # The venv has no pip of its own: the dependencies venv's pip acts on
    # it through --python.
    return check(
        sys.executable, "-m", "pip", "--python", venv / "bin" / "python", *args
    )


def install(venv: pathlib.Path, *wheel_files: pathlib.Path) -> None:
    pip(venv, "install", "-q", "--no-deps", "--no-index", *wheel_files)


def test_same_type_in_two_packs_stops_start_up(venv, wheels, tmp_path):
    install(venv, wheels["keel_heat_pack_dupa"], wheels["keel_heat_pack_dupb"])
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    result = run(venv / "bin" / "keel-heat-engine", "--config-file", conf)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "'OS::Dup::Thing'" in result.stderr
    assert "keel-heat-pack-dupa 0.0.1" in result.stderr
    assert "keel-heat-pack-dupb 0.0.1" in result.stderr

    result = run(
        venv / "bin" / "keel-heat-manage",
        "--config-file",
        conf,
        "packs",
        "check",
    )
    assert result.returncode == 1
    assert "keel-heat-pack-dupa" in result.stderr
    assert "keel-heat-pack-dupb" in result.stderr

    conf.write_text("[plugins]\ndisabled_packs = keel-heat-pack-dupb\n")
    check(
        venv / "bin" / "keel-heat-manage",
        "--config-file",
        conf,
        "packs",
        "check",
    )


def test_pack_appears_and_disappears(venv, wheels, tmp_path):
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    manage = (venv / "bin" / "keel-heat-manage", "--config-file", conf)
    before = check(*manage, "packs", "list", "--long")
    assert "OS::Demo::Thing" not in before
    assert "keel-heat-core" in before

    install(venv, wheels["keel_heat_pack_demo"])
    listed = check(*manage, "packs", "list", "--long")
    rows = [line.split() for line in listed.splitlines()]
    assert [
        "keel-heat-pack-demo",
        "0.0.1",
        "1",
        "0",
        "0",
        "0",
        "yes",
        "0",
    ] in rows
    assert "keel-heat-pack-demo: keel_heat.resources: OS::Demo::Thing" in (
        listed
    )

    pip(venv, "uninstall", "-q", "-y", "keel-heat-pack-demo")
    after = check(*manage, "packs", "list", "--long")
    assert "OS::Demo::Thing" not in after
    assert "keel-heat-pack-demo" not in after


#: the projects of the service distributions, besides the core
SERVICE_PROJECTS = (
    ROOT / "api",
    ROOT / "client_plugins" / "keystone",
    ROOT / "resource_packs" / "keystone",
)
#: the types the Keystone pack's wheel declares (its entry points)
KEYSTONE_TYPES = set(
    tomllib.loads((SERVICE_PROJECTS[2] / "pyproject.toml").read_text())[
        "project"
    ]["entry-points"]["keel_heat.resources"]
)
REGION_TEMPLATE = """heat_template_version: 2018-08-31
resources:
  region:
    type: OS::Keystone::Region
"""


@pytest.fixture(scope="module")
def service_wheels(tmp_path_factory) -> dict[str, pathlib.Path]:
    """Wheels of the API and of the Keystone client plugin and pack."""
    return build_wheels(
        tmp_path_factory.mktemp("service-wheels"), *SERVICE_PROJECTS
    )


@contextlib.contextmanager
def serving(venv: pathlib.Path, where: pathlib.Path, keystone):
    """keel-heat-all of ``venv`` with Keystone auth against ``keystone``,
    on free ports, its endpoints in the catalog."""
    where.mkdir()
    settings = keystone.heat_config()
    settings["api"] = {"auth_strategy": "keystone"}
    settings["heat_api"] = {"bind_port": 0}
    settings["heat_api_cfn"] = {"bind_port": 0}
    conf = where / "keel-heat.conf"
    conf.write_text(heat_conf.render(settings))
    running = embedded_stubs.start(
        [str(venv / "bin" / "keel-heat-all"), "--config-file", str(conf)],
        where,
        {"KEEL_HEAT_STATE_DIR": str(where / "state")},
    )
    try:
        keystone.register_heat_endpoints(running.native_url, running.cfn_url)
        yield running
    finally:
        assert running.stop() == 0, running.output()


def _osc(keystone, *args: str) -> subprocess.CompletedProcess:
    """The real ``openstack`` CLI as Keystone's admin (catalog lookup)."""
    admin = keystone.admin
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env.update(
        OS_AUTH_URL=keystone.v3_url,
        OS_IDENTITY_API_VERSION="3",
        OS_USER_ID=admin.user_id,
        OS_PASSWORD=admin.password,
        OS_PROJECT_ID=admin.project_id or "",
        OS_REGION_NAME=keystone.region,
        OS_INTERFACE="public",
    )
    return subprocess.run(
        [str(BIN / "openstack"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def _types(keystone) -> set[str]:
    listed = _osc(
        keystone, "orchestration", "resource", "type", "list", "-f", "value"
    )
    assert listed.returncode == 0, listed.stderr
    return set(listed.stdout.split())


def _validate(keystone, template: pathlib.Path):
    return _osc(
        keystone, "orchestration", "template", "validate", "-t", str(template)
    )


@pytest.mark.keystone
def test_keystone_pack_in_a_fresh_venv(
    tmp_path, wheels, service_wheels, keystone
):
    core = wheels["keel_heat_core"]
    api = service_wheels["keel_heat_api"]
    client = service_wheels["keel_heat_client_keystone"]
    pack = service_wheels["keel_heat_pack_keystone"]
    deps = dependencies_venv(
        core, api, client, pack, projects=(ROOT, *SERVICE_PROJECTS)
    )
    venv = fresh_venv(tmp_path, deps)
    install(venv, core, api)
    template = tmp_path / "region.yaml"
    template.write_text(REGION_TEMPLATE)
    conf = tmp_path / "empty.conf"
    conf.write_text("")
    manage = (venv / "bin" / "keel-heat-manage", "--config-file", conf)

    # without the pack: no Keystone type, and a template using one is
    # refused with Heat's error for a type whose service is missing
    with serving(venv, tmp_path / "without", keystone):
        types = _types(keystone)
        assert "OS::Heat::None" not in types  # no Heat pack either
        assert not types & KEYSTONE_TYPES
        refused = _validate(keystone, template)
        assert refused.returncode != 0
        assert (
            "HEAT-E99001 Service keystone is not available for resource "
            "type OS::Keystone::Region, reason: no installed keel-heat pack "
            "provides it" in refused.stderr
        ), refused.stderr
    assert "keel-heat-pack-keystone" not in check(*manage, "packs", "list")

    # with it: the ten types, the pack and its version
    install(venv, client, pack)
    version = tomllib.loads(
        (SERVICE_PROJECTS[2] / "pyproject.toml").read_text()
    )["project"]["version"]
    rows = [
        line.split() for line in check(*manage, "packs", "list").splitlines()
    ]
    assert any(
        row[:2] == ["keel-heat-pack-keystone", version] for row in rows
    ), rows
    with serving(venv, tmp_path / "with", keystone):
        assert _types(keystone) >= KEYSTONE_TYPES
        accepted = _validate(keystone, template)
        assert accepted.returncode == 0, accepted.stderr

    # and uninstalled again: gone
    pip(venv, "uninstall", "-q", "-y", "keel-heat-pack-keystone")
    with serving(venv, tmp_path / "after", keystone):
        assert not _types(keystone) & KEYSTONE_TYPES


def test_wheels_carry_the_license_and_the_core_its_types(
    wheels, service_wheels
) -> None:
    """Every distribution ships Apache-2.0's text, and the core and API
    mark themselves typed (PEP 561) for the packs' type checkers."""
    ours = {"keel_heat_core": wheels["keel_heat_core"], **service_wheels}
    for name, wheel in ours.items():
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
            licences = [n for n in names if n.endswith("/licenses/LICENSE")]
            assert licences, f"{name} has no LICENSE"
            text = archive.read(licences[0]).decode()
        assert "Apache License" in text and "Version 2.0" in text, name
    for name in ("keel_heat_core", "keel_heat_api"):
        with zipfile.ZipFile(ours[name]) as archive:
            assert f"{name}/py.typed" in archive.namelist(), name
