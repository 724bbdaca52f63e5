"""Test discovery of one suite's package, and a module runner.

This file is copied into the tempest work folder as
``discover/test_keel_suite.py``: stestr's discovery finds it there (the
api suite), and ``python test_keel_suite.py <module>`` runs one module
(the functional and integration suites,
:mod:`conformance.module_runner`). It imports nothing of keel-heat. It
loads the test modules of the package ``$KEEL_CONFORMANCE_PACKAGE``
(``heat_tempest_plugin.tests.api``, ``heat_integrationtests.functional``
...) one by one. A module that fails to import (its skip decorators ask
the API for the resource types at import time) becomes one failing test
named ``<module>.ImportFailure.test_import`` instead of an import error,
which would make stestr refuse the whole run.

``$OS_TEST_TIMEOUT`` (seconds), when set, bounds each test of a module
run: tempest's own test base class reads it, Heat's in-tree tests do not,
so the runner applies it around each test here.
"""

import importlib
import os
import pkgutil
import signal
import sys
import traceback
import unittest
from typing import Any

DEFAULT_PACKAGE = "heat_tempest_plugin.tests.api"


def _import_failure(name: str, error: str) -> unittest.TestCase:
    def test_import(self: unittest.TestCase) -> None:
        self.fail(f"importing {name} failed: {error}")

    cls = type(
        "ImportFailure",
        (unittest.TestCase,),
        {"test_import": test_import, "__module__": name},
    )
    case: unittest.TestCase = cls("test_import")
    return case


def _last_line(exc: BaseException) -> str:
    return traceback.format_exception_only(type(exc), exc)[-1].strip()


def load_tests(
    loader: unittest.TestLoader,
    tests: unittest.TestSuite,
    pattern: str | None,
) -> unittest.TestSuite:
    suite = unittest.TestSuite()
    package_name = os.environ.get("KEEL_CONFORMANCE_PACKAGE", DEFAULT_PACKAGE)
    package = importlib.import_module(package_name)
    for info in sorted(pkgutil.iter_modules(package.__path__)):
        if not info.name.startswith("test_"):
            continue
        name = f"{package_name}.{info.name}"
        try:
            module = importlib.import_module(name)
        except Exception as exc:
            suite.addTest(_import_failure(name, _last_line(exc)))
            continue
        suite.addTests(loader.loadTestsFromModule(module, pattern=pattern))
    return suite


class TestTimeout(Exception):
    """A test ran longer than ``$OS_TEST_TIMEOUT``."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise TestTimeout(
        f"the test ran longer than OS_TEST_TIMEOUT="
        f"{os.environ.get('OS_TEST_TIMEOUT')}s"
    )


class _Timed:
    """Runs one test with an alarm ``seconds`` after it starts.

    Everything else (``id()`` for subunit's listing...) is the test's.
    """

    def __init__(self, test: unittest.TestCase, seconds: int) -> None:
        self.test = test
        self.seconds = seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(self.test, name)

    def __call__(self, result: unittest.TestResult) -> None:
        self.run(result)

    def __str__(self) -> str:
        return str(self.test)

    def run(self, result: unittest.TestResult) -> None:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(self.seconds)
        try:
            self.test.run(result)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


def _each_test(suite: unittest.TestSuite) -> list[Any]:
    tests: list[Any] = []
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            tests.extend(_each_test(item))
        else:
            tests.append(item)
    return tests


def with_timeout(
    suite: unittest.TestSuite, seconds: int
) -> unittest.TestSuite:
    """Return ``suite`` with each test bounded to ``seconds`` (0: as is).

    A test still running then gets :class:`TestTimeout` raised where it
    is, so it fails (its cleanups still run) and the next one starts.
    """
    if seconds <= 0:
        return suite
    return unittest.TestSuite(_Timed(t, seconds) for t in _each_test(suite))


def run_module(name: str) -> int:
    """Run one test module, writing subunit v2 to stdout.

    Used as ``python test_keel_suite.py <module>`` by
    ``conformance.module_runner``. An import error is caught here and
    becomes the module's ``ImportFailure`` test: left alone, it would be
    swallowed by the logging excepthook tempest's configuration installs
    (into tempest.log) and the stream would stay empty.
    """
    from subunit.run import SubunitTestRunner

    loader = unittest.TestLoader()
    try:
        suite = loader.loadTestsFromModule(importlib.import_module(name))
    except Exception as exc:
        suite = unittest.TestSuite([_import_failure(name, _last_line(exc))])
    timeout = int(os.environ.get("OS_TEST_TIMEOUT") or 0)
    SubunitTestRunner(stream=sys.stdout).run(with_timeout(suite, timeout))
    return 0


if __name__ == "__main__":
    sys.exit(run_module(sys.argv[1]))
