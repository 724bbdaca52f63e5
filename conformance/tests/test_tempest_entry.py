"""The discovery entry: a module that fails to import fails one test."""

import unittest

from conformance.tempest_entry import _import_failure


def test_import_failure_is_a_failing_test_named_after_the_module() -> None:
    case = _import_failure(
        "heat_tempest_plugin.tests.functional.test_x", "HTTPBadRequest: no"
    )
    assert case.id() == (
        "heat_tempest_plugin.tests.functional.test_x.ImportFailure.test_import"
    )
    result = unittest.TestResult()
    case.run(result)
    assert len(result.failures) == 1
    assert (
        "importing heat_tempest_plugin.tests.functional.test_x failed: "
        "HTTPBadRequest: no" in result.failures[0][1]
    )
