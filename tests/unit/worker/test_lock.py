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
