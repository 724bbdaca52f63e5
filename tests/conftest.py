"""Fixtures shared by the core and API tests."""

from collections.abc import Iterator

import pytest
from hypothesis import settings

from keel_heat_core.testing import cloud_setup

pytest_plugins = ["keel_heat_core.testing.keystone"]

# Property tests check results, not speed: on a loaded CI machine one
# example can take longer than Hypothesis's default 200 ms deadline.
settings.register_profile("keel", deadline=None)
settings.load_profile("keel")


@pytest.fixture
def rabbit_vhost() -> Iterator[str]:
    """A RabbitMQ virtual host of the test's own: clouds on one virtual
    host share their topic queues (``cloud_setup.private_vhost``)."""
    with cloud_setup.private_vhost() as name:
        yield name
