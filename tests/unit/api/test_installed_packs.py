"""The packs an admin's ``GET /build_info`` lists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_api.controllers import discovery


class _Dist:
    def __init__(self, name: str, version: str) -> None:
        self.metadata = {"Name": name}
        self.version = version


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Installed distributions faked; the number of walks over them."""
    walks: list[int] = []

    def distributions() -> Iterator[Any]:
        walks.append(1)
        yield _Dist("keel_heat_pack_zeta", "2.0")
        yield _Dist("requests", "2.32")
        yield _Dist("keel-heat-client-keystone", "1.1")

    discovery._scan_packs.cache_clear()
    monkeypatch.setattr(discovery.metadata, "distributions", distributions)
    yield walks
    discovery._scan_packs.cache_clear()


def test_packs_are_found_once_per_process(scans: list[int]) -> None:
    first = discovery.installed_packs()
    assert first == [
        {"name": "keel-heat-client-keystone", "version": "1.1"},
        {"name": "keel-heat-pack-zeta", "version": "2.0"},
    ]
    first[0]["name"] = "changed by a caller"
    assert discovery.installed_packs()[0]["name"] == (
        "keel-heat-client-keystone"
    )
    assert len(scans) == 1
