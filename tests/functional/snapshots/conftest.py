"""The in-process cloud of :mod:`tests.functional.snapshots.harness`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.functional.engine import conftest as _engine_conftest  # noqa: F401
from tests.functional.snapshots.harness import SnapshotCloud


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SnapshotCloud]:
    with SnapshotCloud(tmp_path_factory.mktemp("snp")) as running:
        yield running
