from keel_heat_core.testing.plugin import *  # noqa: F401,F403
