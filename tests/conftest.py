"""Fixtures shared by the core and API tests."""

import logging
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


@pytest.fixture(autouse=True)
def _root_log_handlers() -> Iterator[None]:
    """Take away the root logger's handlers a test added.

    A command's ``main()`` run in process (``keel-heat-manage``) sets up
    oslo.log, which hangs a handler on the root logger that writes to the
    ``sys.stderr`` of that moment: pytest's capture of that one test,
    closed when the test ends. Every record logged after that, by the
    same worker in a later test, would fail with "I/O operation on closed
    file". pytest's own handlers come and go by themselves.
    """
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler in before or type(handler).__module__.startswith("_pytest"):
            continue
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)
