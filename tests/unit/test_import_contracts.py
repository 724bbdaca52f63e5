"""The import-linter contracts cover the whole tree.

A contract that lists modules by name silently stops holding when a new
pack or a new core package appears; these tests fail instead, naming
what to add to ``[tool.importlinter]`` in pyproject.toml.
"""

from __future__ import annotations

import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
    "importlinter"
]


def _contract(name: str) -> dict[str, object]:
    (found,) = [c for c in CONFIG["contracts"] if c["name"] == name]
    return found


def _plugin_packages() -> set[str]:
    found = set()
    for folder in ("resource_packs", "client_plugins", "hook_packs"):
        for dist in (ROOT / folder).iterdir():
            if not (dist / "pyproject.toml").exists():
                continue
            found |= {
                p.name
                for p in dist.iterdir()
                if p.name.startswith(
                    (
                        "keel_heat_pack_",
                        "keel_heat_client_",
                        "keel_heat_metrics_",
                    )
                )
                and (p / "__init__.py").exists()
            }
    return found


def _core_packages() -> set[str]:
    core = ROOT / "keel_heat_core"
    return {
        f"keel_heat_core.{p.stem}"
        for p in core.iterdir()
        if (p.is_dir() and (p / "__init__.py").exists())
        or (p.suffix == ".py" and p.stem != "__init__")
    }


def test_every_pack_is_a_root_package_under_the_plugin_api_contract():
    packs = _plugin_packages()
    assert packs
    assert packs <= set(CONFIG["root_packages"])
    contract = _contract("Packs and client plugins import only the plugin API")
    assert set(contract["source_modules"]) == packs


def test_packs_may_import_nothing_of_the_core_but_the_plugin_api():
    contract = _contract("Packs and client plugins import only the plugin API")
    expected = _core_packages() - {"keel_heat_core.plugin_api"}
    assert set(contract["forbidden_modules"]) == expected | {"keel_heat_api"}


def test_no_shipped_module_imports_the_testing_kit():
    contract = _contract(
        "No shipped module imports the testing kit (tests do)"
    )
    expected = _core_packages() - {"keel_heat_core.testing"}
    assert set(contract["source_modules"]) == expected | {"keel_heat_api"}
