"""Fixtures of the CFN API unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.api_cfn.harness import CfnHarness


@pytest.fixture(scope="module")
def cfn_module() -> Iterator[CfnHarness]:
    """One app and fake engine per module (stopping one takes a second)."""
    harness = CfnHarness()
    try:
        yield harness
    finally:
        harness.stop()


@pytest.fixture
def cfn(cfn_module: CfnHarness) -> CfnHarness:
    """The CFN app (noauth, project ``tenant-1``) on a fresh fake engine."""
    cfn_module.reset()
    return cfn_module
