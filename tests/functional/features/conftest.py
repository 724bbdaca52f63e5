"""The in-process cloud of :mod:`tests.functional.software.harness`
(native API + one engine on SQLite, ``fake://``, resume every second)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.functional.engine import conftest as _engine_conftest  # noqa: F401
from tests.functional.software.harness import Cloud


@pytest.fixture(scope="module")
def cloud(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloud]:
    with Cloud(tmp_path_factory.mktemp("hooks")) as running:
        yield running
