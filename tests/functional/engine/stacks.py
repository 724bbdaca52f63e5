"""A real engine on a real database, for the functional engine tests.

Engines share one migrated scratch database (``keel_eng_<random>``) and
one transport; each runs its own EngineService (its own RPC servers,
worker, listener and resume loop), as separate engine processes would.
The set-up is :class:`keel_heat_core.testing.kit.InProcessCloud`
without API servers.
"""

from __future__ import annotations

import contextlib
import pathlib
from collections.abc import Callable
from typing import Any

from oslo_config import cfg

from keel_heat_core.context import RequestContext
from keel_heat_core.db import stack as stack_repo
from keel_heat_core.testing import cloud as kit
from keel_heat_core.testing.cloud import KEY, serialize_sqlite_writers

__all__ = [
    "KEY",
    "Cloud",
    "make_conf",
    "scratch_database",
    "serialize_sqlite_writers",
    "settle",
    "state",
    "wait_for",
]


def scratch_database(
    backend: str, tmp: pathlib.Path
) -> contextlib.AbstractContextManager[str]:
    """An empty database named ``keel_eng_<random>``; dropped after."""
    return kit.scratch_database(backend, tmp, prefix="keel_eng_")


def make_conf(url: str, transport_url: str, exchange: str) -> cfg.ConfigOpts:
    return kit.make_conf(url, transport_url, exchange)


class Cloud(kit.InProcessCloud):
    """Engines on one database and bus, and an API-side context."""

    def __init__(
        self,
        url: str,
        transport_url: str = "inproc://",
        engines: int = 2,
        resume_interval: float = 1.0,
    ) -> None:
        super().__init__(
            database_url=url,
            transport_url=transport_url,
            prefix="keel_eng_",
            engines=engines,
            resume_interval=resume_interval,
        )
        self.ctxt = RequestContext(
            user_id="user-1",
            project_id="project-1",
            username="demo",
            roles=["member"],
            auth_token="SECRET-TOKEN",
        )


def wait_for(
    predicate: Callable[[], Any], timeout: float = 60.0, what: str = ""
) -> Any:
    """:func:`keel_heat_core.testing.cloud.wait_for`, polled often."""
    return kit.wait_for(predicate, timeout, what, interval=0.05)


def state(cloud: Cloud, stack_id: str) -> str:
    """``<action>_<status>`` of a stack, deleted or not, as stored."""
    rec = stack_repo.get(cloud.db, stack_id, show_deleted=True)
    assert rec is not None
    return f"{rec.action}_{rec.status}"


def settle(cloud: Cloud, stack_id: str, wanted: str) -> None:
    """Wait for the action of ``wanted`` (``CREATE_COMPLETE``...) to end;
    it must end in ``wanted``."""
    wait_for(
        lambda: (
            state(cloud, stack_id) != f"{wanted.split('_')[0]}_IN_PROGRESS"
        ),
        what=wanted,
    )
    rec = stack_repo.get(cloud.db, stack_id, show_deleted=True)
    assert rec is not None
    assert state(cloud, stack_id) == wanted, rec.status_reason
