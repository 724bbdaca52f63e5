"""Run the gabbi YAML contract tests in-process.

Each YAML file gets a fresh API app wired to a fresh fake engine over
oslo.messaging's ``fake://`` transport and runs as one test (the requests
of a file build on each other). Files named ``member-*.yaml`` run as a
non-admin member of the project; the others as the embedded-mode admin.
"""

from __future__ import annotations

import pathlib
import shutil
import tempfile
import unittest

import pytest
from gabbi import driver

from tests.contract.harness import Harness

GABBITS = pathlib.Path(__file__).parent / "gabbits"
FILES = sorted(p.name for p in GABBITS.glob("*.yaml"))


def _harness_for(name: str) -> Harness:
    overrides = {}
    if name.startswith("member-"):
        overrides[("api", "noauth_roles")] = ["member", "reader"]
    overrides[("api", "template_url_allowed_hosts")] = []
    return Harness(overrides=overrides)


@pytest.mark.parametrize("yaml_file", FILES)
def test_gabbi_file(yaml_file: str) -> None:
    harness = _harness_for(yaml_file)
    tmp = tempfile.mkdtemp(prefix="gabbi-")
    try:
        shutil.copy(GABBITS / yaml_file, tmp)
        suite = driver.build_tests(
            tmp,
            unittest.TestLoader(),
            intercept=lambda: harness.app,
            test_loader_name=__name__,
        )
        result = unittest.TestResult()
        suite.run(result)
        problems = [
            f"{test.id()}:\n{trace}"
            for test, trace in result.failures + result.errors
        ]
        assert not problems, "\n\n".join(problems)
        assert result.testsRun > 0
    finally:
        shutil.rmtree(tmp)
        harness.stop()
