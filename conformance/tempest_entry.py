"""Test discovery of one heat-tempest-plugin suite, and a module runner.

This file is copied into the tempest work folder as
``discover/test_keel_suite.py``: stestr's discovery finds it there (the
api suite), and ``python test_keel_suite.py <module>`` runs one module
(the functional suite, :mod:`conformance.module_runner`). It imports
nothing of keel-heat. It loads the test modules of
``heat_tempest_plugin.tests.<suite>`` (``$KEEL_CONFORMANCE_SUITE``) one by
one. A module that fails to import (its skip decorators ask the API for
the resource types at import time) becomes one failing test named
``<module>.ImportFailure.test_import`` instead of an import error, which
would make stestr refuse the whole run.
"""

import importlib
import os
import pkgutil
import sys
import traceback
import unittest

PACKAGE = "heat_tempest_plugin.tests."


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
    package_name = PACKAGE + os.environ.get("KEEL_CONFORMANCE_SUITE", "api")
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
    SubunitTestRunner(stream=sys.stdout).run(suite)
    return 0


if __name__ == "__main__":
    sys.exit(run_module(sys.argv[1]))
