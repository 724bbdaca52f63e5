"""Heat's in-tree tests: taken from the wheel once, heat-manage for them."""

import stat
import subprocess
import zipfile
from pathlib import Path

import pytest

from conformance import integration

# Called as `<python> -m pip download ... --dest DIR openstack-heat==...`:
# copies the wheel named by $FAKE_WHEEL into DIR and counts the calls.
FAKE_PYTHON = """#!/bin/sh
echo x >> "$FAKE_CALLS"
while [ "$#" -gt 0 ]; do
    if [ "$1" = "--dest" ]; then cp "$FAKE_WHEEL" "$2"; fi
    shift
done
"""


def _wheel(tmp_path: Path) -> Path:
    wheel = tmp_path / "openstack_heat-27.0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("heat/__init__.py", "raise SystemExit('heat')\n")
        archive.writestr("heat/engine/service.py", "")
        archive.writestr("heat_integrationtests/__init__.py", "")
        archive.writestr("heat_integrationtests/functional/__init__.py", "")
        archive.writestr(
            "heat_integrationtests/functional/test_purge.py", "x = 1\n"
        )
        archive.writestr("openstack_heat-27.0.1.dist-info/METADATA", "")
    return wheel


def _executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_only_the_tests_leave_the_wheel(tmp_path: Path) -> None:
    target = tmp_path / "out"
    assert integration.extract(_wheel(tmp_path), target) == 3
    files = sorted(
        str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()
    )
    assert files == [
        "heat_integrationtests/__init__.py",
        "heat_integrationtests/functional/__init__.py",
        "heat_integrationtests/functional/test_purge.py",
    ]


def test_a_wheel_without_the_tests_is_refused(tmp_path: Path) -> None:
    wheel = tmp_path / "w.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("heat/__init__.py", "")
    with pytest.raises(RuntimeError, match="holds no heat_integrationtests"):
        integration.extract(wheel, tmp_path / "out")


def test_the_package_is_fetched_once_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KEEL_HEAT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_WHEEL", str(_wheel(tmp_path)))
    calls = tmp_path / "calls"
    monkeypatch.setenv("FAKE_CALLS", str(calls))
    python = _executable(tmp_path / "python", FAKE_PYTHON)

    folder = integration.ensure_package(python)
    assert folder == tmp_path / "cache" / integration.FOLDER_NAME
    assert (
        folder / "heat_integrationtests/functional/test_purge.py"
    ).is_file()
    assert not (folder / "heat").exists()
    assert integration.ensure_package(python) == folder
    assert calls.read_text().count("x") == 1

    (folder / ".keel-heat-ready").write_text("openstack-heat==26.0.0\n")
    assert integration.ensure_package(python) == folder
    assert calls.read_text().count("x") == 2


def test_a_failed_download_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KEEL_HEAT_CACHE_DIR", str(tmp_path / "cache"))
    python = _executable(
        tmp_path / "python", "#!/bin/sh\necho 'No matching' >&2\nexit 1\n"
    )
    with pytest.raises(RuntimeError, match="No matching"):
        integration.ensure_package(python)


def test_heat_manage_runs_keel_heat_manage_with_the_config(
    tmp_path: Path,
) -> None:
    manage = _executable(
        tmp_path / "keel manage", '#!/bin/sh\nprintf "%s|" "$@"\n'
    )
    config = tmp_path / "keel-heat.conf"
    command = integration.write_heat_manage(
        tmp_path / "bin", str(manage), config
    )
    assert command.name == "heat-manage"

    def run(*args: str) -> str:
        out = subprocess.run(
            [str(command), *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout

    # Heat's spelling, as test_purge types it, through a shell.
    purge = subprocess.run(
        "heat-manage purge_deleted 0",
        shell=True,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": f"{command.parent}:/usr/bin:/bin"},
    )
    assert purge.stdout == f"--config-file|{config}|purge-deleted|0|"
    assert run("db", "version") == f"--config-file|{config}|db|version|"
    assert run() == f"--config-file|{config}|"
