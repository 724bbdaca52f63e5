import pytest

from keel_heat_core.model import rows as r
from keel_heat_core.worker.lock import (
    LockState,
    ResourceLock,
    UpdateInProgress,
)
from tests.unit.worker.fakes import Stores


def locked_row() -> tuple[Stores, ResourceLock]:
    stores = Stores()
    rid = stores.insert_resource(r.ResourceRow(id=0, name="a", stack_id="s"))
    lock = ResourceLock(stores, rid, "a", LockState(None, None))
    return stores, lock


def test_acquire_release_and_respect_bump_the_key() -> None:
    stores, lock = locked_row()
    lock.acquire("e1", {"status": "IN_PROGRESS"})
    assert (lock.state.engine_id, lock.state.atomic_key) == ("e1", 1)
    with pytest.raises(UpdateInProgress):
        ResourceLock(
            stores, lock.resource_id, "a", LockState(None, 1)
        ).acquire("e2", {})
    lock.release("e1", {"status": "COMPLETE"})
    row = stores.get_resource(lock.resource_id)
    assert row is not None
    assert (row.engine_id, row.atomic_key, row.status) == (None, 2, "COMPLETE")
    lock.respect({"status_reason": "x"})
    assert lock.state.atomic_key == 3


def test_release_survives_a_metadata_write_while_held() -> None:
    stores, lock = locked_row()
    lock.acquire("e1", {})
    # a signal's metadata_set: CAS with the holder and the key it read
    assert stores.cas_update(lock.resource_id, "e1", 1, {"rsrc_metadata": {}})
    lock.release("e1", {"status": "COMPLETE"})
    row = stores.get_resource(lock.resource_id)
    assert row is not None and row.engine_id is None


def test_release_of_a_stolen_lock_fails() -> None:
    stores, lock = locked_row()
    lock.acquire("e1", {})
    stores.update_resource(lock.resource_id, {"engine_id": "e2"})
    with pytest.raises(UpdateInProgress):
        lock.release("e1", {})


class OperationalError(Exception):
    """Named like SQLAlchemy's: a lost connection."""


class Flaky:
    """Fails ``failures`` writes as a database that is down, and can
    commit a write whose answer is then lost."""

    def __init__(self, stores: Stores, failures: int, commit_first=False):  # type: ignore[no-untyped-def]
        self.stores = stores
        self.failures = failures
        self.commit_first = commit_first

    def cas_update(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if self.failures:
            self.failures -= 1
            if self.commit_first:
                self.commit_first = False
                self.stores.cas_update(*args, **kwargs)
            raise OperationalError("server closed the connection")
        return self.stores.cas_update(*args, **kwargs)

    def read_lock(self, resource_id):  # type: ignore[no-untyped-def]
        return self.stores.read_lock(resource_id)


def _flaky_lock(
    stores: Stores, lock: ResourceLock, flaky: Flaky, now: list[float]
):  # type: ignore[no-untyped-def]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    held = ResourceLock(
        flaky, lock.resource_id, "a", lock.state, sleep, lambda: now[0]
    )
    return held, slept


def test_release_retries_while_the_database_is_down() -> None:
    stores, lock = locked_row()
    lock.acquire("e1", {})
    held, slept = _flaky_lock(stores, lock, Flaky(stores, 3), [0.0])
    held.release("e1", {"status": "COMPLETE"})
    row = stores.get_resource(lock.resource_id)
    assert row is not None
    assert (row.engine_id, row.status) == (None, "COMPLETE")
    assert slept == [0.5, 1.0, 2.0]


def test_release_gives_up_after_its_bound() -> None:
    from keel_heat_core.worker import lock as lock_mod

    stores, lock = locked_row()
    lock.acquire("e1", {})
    held, slept = _flaky_lock(stores, lock, Flaky(stores, 10_000), [0.0])
    with pytest.raises(OperationalError):
        held.release("e1", {"status": "COMPLETE"})
    assert (
        lock_mod.RELEASE_RETRY_SECS
        <= sum(slept)
        <= (lock_mod.RELEASE_RETRY_SECS + 4)
    )
    row = stores.get_resource(lock.resource_id)
    assert row is not None and row.engine_id == "e1"  # resume frees it


def test_release_whose_commit_answer_was_lost() -> None:
    """The first write committed, its connection died before the answer:
    the retry misses, the lock is no longer ours, UpdateInProgress (the
    node is re-driven over the finished row)."""
    stores, lock = locked_row()
    lock.acquire("e1", {})
    flaky = Flaky(stores, 1, commit_first=True)
    held, _ = _flaky_lock(stores, lock, flaky, [0.0])
    with pytest.raises(UpdateInProgress):
        held.release("e1", {"status": "COMPLETE"})
    row = stores.get_resource(lock.resource_id)
    assert row is not None
    assert (row.engine_id, row.status) == (None, "COMPLETE")


def test_release_does_not_retry_other_errors() -> None:
    stores, lock = locked_row()
    lock.acquire("e1", {})

    class Broken(Flaky):
        def cas_update(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise ValueError("a bug")

    held, slept = _flaky_lock(stores, lock, Broken(stores, 0), [0.0])
    with pytest.raises(ValueError):
        held.release("e1", {"status": "COMPLETE"})
    assert slept == []
