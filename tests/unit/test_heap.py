"""Start-up objects leave the garbage collector's walks."""

import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from cotyledon.types import WorkerId
from oslo_config import cfg

from keel_heat_core import heap
from keel_heat_core.cmd.engine import EngineWorker


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_freeze_collects_first_then_freezes_what_is_left() -> None:
    kept = [Cycle() for _ in range(10)]
    # a cycle that is garbage at freeze time is collected, not frozen
    gone = Cycle()
    probe = weakref.ref(gone)
    del gone
    frozen = heap.freeze_startup_objects()
    assert probe() is None
    # other threads of the test process may free frozen objects in the
    # meantime: the count can only have fallen
    assert frozen >= gc.get_freeze_count() > len(kept)
    # what was kept is out of the generations a collection walks
    tracked = {id(obj) for obj in gc.get_objects()}
    assert not any(id(obj) in tracked for obj in kept)


def test_later_garbage_is_still_collected() -> None:
    heap.freeze_startup_objects()
    made = Cycle()
    probe = weakref.ref(made)
    del made
    assert probe() is not None  # a cycle: only a collection frees it
    gc.collect()
    assert probe() is None


class FakeService:
    def __init__(self) -> None:
        self.started = False

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        pass

    def wait(self) -> None:
        pass


def test_an_engine_worker_freezes_once_its_service_started() -> None:
    made: list[FakeService] = []

    def factory(conf: Any, engine_id: str) -> FakeService:
        assert gc.get_freeze_count() == 0
        made.append(FakeService())
        return made[0]

    worker = EngineWorker(WorkerId(1), cfg.ConfigOpts(), factory)
    worker.run()
    assert made[0].started
    assert gc.get_freeze_count() > 0
