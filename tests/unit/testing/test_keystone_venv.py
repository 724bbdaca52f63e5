"""Where the Keystone venv is cached and when it counts as healthy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from keel_heat_core.testing import keystone_venv


def test_cache_location_order(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for var in (
        "KEEL_HEAT_KEYSTONE_VENV",
        "KEEL_HEAT_CACHE_DIR",
        "XDG_CACHE_HOME",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert keystone_venv.venv_path("1.0") == (
        tmp_path / ".cache" / "keel-heat" / "keystone-venv-1.0"
    )
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert keystone_venv.venv_path("1.0") == (
        tmp_path / "xdg" / "keel-heat" / "keystone-venv-1.0"
    )
    monkeypatch.setenv("KEEL_HEAT_CACHE_DIR", str(tmp_path / "c"))
    assert keystone_venv.venv_path("1.0") == tmp_path / "c/keystone-venv-1.0"
    monkeypatch.setenv("KEEL_HEAT_KEYSTONE_VENV", str(tmp_path / "mine"))
    assert keystone_venv.venv_path("1.0") == tmp_path / "mine"


def _fake_venv(root: Path, marker: str | None) -> Path:
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "python").symlink_to(sys.executable)
    if marker is not None:
        (root / ".keel-heat-ready").write_text(marker + "\n")
    return root


def test_unhealthy_venvs(tmp_path: Path) -> None:
    assert not keystone_venv.is_healthy(tmp_path / "absent", "30.0.0")
    no_marker = _fake_venv(tmp_path / "a", None)
    assert not keystone_venv.is_healthy(no_marker, "30.0.0")
    other = _fake_venv(tmp_path / "b", "29.0.0")
    assert not keystone_venv.is_healthy(other, "30.0.0")
    # The marker is right but this interpreter has no Keystone.
    lying = _fake_venv(tmp_path / "c", "30.0.0")
    assert not keystone_venv.is_healthy(lying, "30.0.0")


def test_explicit_venv_must_hold_keystone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = _fake_venv(tmp_path / "v", None)
    monkeypatch.setenv("KEEL_HEAT_KEYSTONE_VENV", str(empty))
    with pytest.raises(RuntimeError, match="holds no keystone==30.0.0"):
        keystone_venv.ensure_venv("30.0.0")
