"""The discovery entry: import failures, the per-test timeout."""

import signal
import time
import unittest

from conformance.tempest_entry import _import_failure, with_timeout


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


def test_a_test_running_past_the_timeout_fails_and_the_next_runs() -> None:
    cleaned = []

    # Defined here so that pytest does not collect it.
    class Slow(unittest.TestCase):
        def test_sleeps(self) -> None:
            self.addCleanup(cleaned.append, True)
            time.sleep(5)

        def test_quick(self) -> None:
            """Passes at once: it must still run after the slow one."""

    loader = unittest.TestLoader()
    suite = with_timeout(loader.loadTestsFromTestCase(Slow), 1)
    ids = [t.id() for t in suite]
    assert ids[0].endswith("Slow.test_quick")
    result = unittest.TestResult()
    started = time.monotonic()
    suite.run(result)
    assert time.monotonic() - started < 4
    assert result.testsRun == 2
    assert len(result.errors) == 1
    failed, text = result.errors[0]
    assert failed.id().endswith("Slow.test_sleeps")
    assert "TestTimeout: the test ran longer than" in text
    assert cleaned == [True]
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_no_timeout_leaves_the_suite_alone() -> None:
    suite = unittest.TestSuite()
    assert with_timeout(suite, 0) is suite
