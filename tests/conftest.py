"""Fixtures shared by the core and API tests."""

from hypothesis import settings

pytest_plugins = ["keel_heat_core.testing.keystone"]

# Property tests check results, not speed: on a loaded CI machine one
# example can take longer than Hypothesis's default 200 ms deadline.
settings.register_profile("keel", deadline=None)
settings.load_profile("keel")
