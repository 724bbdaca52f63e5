"""Fixtures shared by the core and API tests."""

pytest_plugins = ["keel_heat_core.testing.keystone"]
