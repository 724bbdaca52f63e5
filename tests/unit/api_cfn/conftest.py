"""Fixtures of the CFN API unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.api_cfn.harness import CfnHarness


@pytest.fixture
def cfn() -> Iterator[CfnHarness]:
    """The CFN app (noauth, project ``tenant-1``) on a fake engine."""
    harness = CfnHarness()
    try:
        yield harness
    finally:
        harness.stop()
