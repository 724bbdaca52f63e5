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

import pytest

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


def dependencies_venv(core_wheel: pathlib.Path) -> pathlib.Path:
    """Return a cached venv holding keel-heat-core's dependencies only."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = "\n".join(sorted(project["dependencies"]))
    key = hashlib.sha256(wanted.encode()).hexdigest()
    venv = CACHE / f"deps-{key[:16]}"
    with locked(CACHE / "deps.lock"):
        if not (venv / "ready").exists():
            shutil.rmtree(venv, ignore_errors=True)
            check(sys.executable, "-m", "venv", venv)
            check(
                venv / "bin" / "python",
                "-m",
                "pip",
                "install",
                "-q",
                core_wheel,
            )
            check(
                venv / "bin" / "python",
                "-m",
                "pip",
                "uninstall",
                "-q",
                "-y",
                "keel-heat-core",
            )
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
    out = tmp_path_factory.mktemp("wheels")
    check(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "-w",
        out,
        ROOT,
        src / "a",
        src / "b",
        src / "c",
    )
    found = {w.name.split("-")[0]: w for w in out.glob("*.whl")}
    assert set(found) == {
        "keel_heat_core",
        "keel_heat_pack_dupa",
        "keel_heat_pack_dupb",
        "keel_heat_pack_demo",
    }
    return found


@pytest.fixture
def venv(tmp_path, wheels) -> pathlib.Path:
    """A fresh venv with the core wheel and its cached dependencies."""
    deps = dependencies_venv(wheels["keel_heat_core"])
    venv = tmp_path / "venv"
    check(sys.executable, "-m", "venv", "--without-pip", venv)
    (site_packages(venv) / "_keel_deps.pth").write_text(
        f"{site_packages(deps)}\n"
    )
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
