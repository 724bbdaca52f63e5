"""A pack made for another plugin API is refused by the real commands.

A fake distribution (a dist-info and its modules in a directory put on
``PYTHONPATH``) declares a plugin API range this core is outside of:
``keel-heat-manage packs check`` names it, the range and the core's
version, and an engine does not start while it is installed and enabled
(whether ``[plugins] required_packs`` lists it or not).
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import pathlib
import subprocess
import sys

import pytest

from keel_heat_core.plugin_api import PLUGIN_API_VERSION

BIN = pathlib.Path(sys.executable).parent
DIST = "keel-heat-pack-future"


def _fake_site(root: pathlib.Path) -> pathlib.Path:
    site = root / "site"
    info = site / "keel_heat_pack_future-2.0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {DIST}\nVersion: 2.0.0\n"
    )
    (info / "entry_points.txt").write_text(
        "[keel_heat.plugin_api]\n"
        "requires = keel_heat_pack_future:PLUGIN_API_REQUIRES\n"
        "[keel_heat.resources]\n"
        "OS::Future::Thing = keel_heat_pack_future.thing:Thing\n"
    )
    package = site / "keel_heat_pack_future"
    package.mkdir()
    (package / "__init__.py").write_text('PLUGIN_API_REQUIRES = ">=2.0,<3"\n')
    # never imported: the range is refused first
    (package / "thing.py").write_text("raise SystemExit('imported')\n")
    return site


def _run(
    tmp_path: pathlib.Path, conf_text: str, *command: str
) -> tuple[int, str]:
    conf = tmp_path / "keel-heat.conf"
    conf.write_text(conf_text)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(_fake_site(tmp_path)),
        "KEEL_HEAT_STATE_DIR": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [str(BIN / command[0]), "--config-file", str(conf), *command[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def _names_all(text: str) -> None:
    core = metadata.version("keel-heat-core")
    assert f"{DIST} 2.0.0 is refused" in text, text
    assert "supports plugin API versions '<3,>=2.0'" in text, text
    assert (
        f"keel-heat-core {core} provides plugin API {PLUGIN_API_VERSION}"
        in text
    ), text


def test_packs_check_names_the_refused_pack(tmp_path: pathlib.Path) -> None:
    status, output = _run(tmp_path, "", "keel-heat-manage", "packs", "check")
    assert status == 1, output
    assert "imported" not in output
    last = output.strip().splitlines()[-1]
    assert last.startswith("packs check: "), output
    _names_all(last)


@pytest.mark.parametrize("required", [False, True])
def test_engine_does_not_start(tmp_path: pathlib.Path, required: bool) -> None:
    status, output = _run(
        tmp_path,
        f"[plugins]\nrequired_packs = {DIST}\n" if required else "",
        "keel-heat-engine",
    )
    assert status == 1, output
    assert "Traceback" not in output, output[-3000:]
    last = output.strip().splitlines()[-1]
    assert last.startswith("keel-heat-engine: "), output[-3000:]
    _names_all(last)
