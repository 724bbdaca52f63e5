"""Fixtures of the Keystone pack's tests.

The real Keystone fixture is shared with the core's tests (one Keystone per
process); pytest refuses ``pytest_plugins`` below the top-level conftest,
so the fixtures are imported instead.
"""

from keel_heat_core.testing.keystone import keystone  # noqa: F401
from keel_heat_core.testing.plugin import *  # noqa: F401,F403
