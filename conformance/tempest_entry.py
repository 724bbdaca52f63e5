"""Test discovery of one heat-tempest-plugin suite (run by stestr).

This file is copied into the tempest work folder as
``discover/test_keel_suite.py`` and found by stestr's discovery there; it
imports nothing of keel-heat. It loads the test modules of
``heat_tempest_plugin.tests.<suite>`` (``$KEEL_CONFORMANCE_SUITE``) one by
one. A module that fails to import (its skip decorators ask the API for
the resource types at import time) becomes one failing test named
``<module>.ImportFailure.test_import`` instead of an import error, which
would make stestr refuse the whole run.
"""

import importlib
import os
import pkgutil
import traceback
import unittest

PACKAGE = "heat_tempest_plugin.tests."


def _import_failure(name, error):
    def test_import(self):
        self.fail(f"importing {name} failed: {error}")

    cls = type("ImportFailure", (unittest.TestCase,), {})
    cls.test_import = test_import
    cls.__module__ = name
    return cls("test_import")


def load_tests(loader, tests, pattern):
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
            last = traceback.format_exception_only(type(exc), exc)[-1]
            suite.addTest(_import_failure(name, last.strip()))
            continue
        suite.addTests(loader.loadTestsFromModule(module, pattern=pattern))
    return suite
