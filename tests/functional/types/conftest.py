"""The in-process cloud of :mod:`tests.functional.types.harness`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.functional.engine import conftest as _engine_conftest  # noqa: F401
from tests.functional.types.harness import Cloud


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    with Cloud(tmp_path_factory.mktemp("types")) as running:
        yield running
