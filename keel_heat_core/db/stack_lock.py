"""Legacy stack lock repository (``stack_lock``, convergence=0 stacks).

Return conventions are Heat's, so the legacy lock logic ports directly:

- :func:`create` returns ``None`` when the lock was taken, else the
  holder's engine id (a duplicate-key race is retried);
- :func:`steal` returns ``None`` when taken over from ``old_engine_id``,
  else the current holder, or ``True`` when the lock vanished;
- :func:`release` returns ``None`` when released, ``True`` when this
  engine did not hold it;
- :func:`persist_state_and_release` writes the stack's final state and
  deletes the lock in one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, update

from keel_heat_core.db import models
from keel_heat_core.db.database import Database, retry_on_duplicate


@retry_on_duplicate
def create(db: Database, stack_id: str, engine_id: str) -> str | None:
    """Take the lock, or say who holds it."""
    with db.transaction() as session:
        lock = session.get(models.StackLock, stack_id)
        if lock is not None:
            return lock.engine_id or ""
        session.add(models.StackLock(stack_id=stack_id, engine_id=engine_id))
    return None


def get_engine_id(db: Database, stack_id: str) -> str | None:
    """The holder of a stack's lock, or ``None``."""
    with db.transaction() as session:
        lock = session.get(models.StackLock, stack_id)
        return lock.engine_id if lock is not None else None


def steal(
    db: Database, stack_id: str, old_engine_id: str, new_engine_id: str
) -> str | bool | None:
    """Take the lock over from a dead ``old_engine_id``."""
    lock_t = models.StackLock
    with db.transaction() as session:
        result = session.execute(
            update(lock_t)
            .where(
                lock_t.stack_id == stack_id,
                lock_t.engine_id == old_engine_id,
            )
            .values(engine_id=new_engine_id, updated_at=models.utcnow())
        )
        if result.rowcount:  # type: ignore[attr-defined]
            return None
        lock = session.get(lock_t, stack_id)
        return (lock.engine_id or "") if lock is not None else True


def release(db: Database, stack_id: str, engine_id: str) -> bool | None:
    """Release the lock if ``engine_id`` holds it."""
    lock_t = models.StackLock
    with db.transaction() as session:
        result = session.execute(
            delete(lock_t).where(
                lock_t.stack_id == stack_id, lock_t.engine_id == engine_id
            )
        )
        return None if result.rowcount else True  # type: ignore[attr-defined]


def persist_state_and_release(
    db: Database, stack_id: str, engine_id: str, values: Mapping[str, Any]
) -> bool | None:
    """Write stack ``values`` and drop the lock atomically.

    :returns: ``None`` on success, ``True`` when the lock was not held.
    """
    lock_t, stack_t = models.StackLock, models.Stack
    with db.transaction() as session:
        written = session.execute(
            update(stack_t)
            .where(stack_t.id == stack_id)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
        released = 0
        if written.rowcount:  # type: ignore[attr-defined]
            released = session.execute(
                delete(lock_t).where(
                    lock_t.stack_id == stack_id,
                    lock_t.engine_id == engine_id,
                )
            ).rowcount  # type: ignore[attr-defined]
        return None if released else True
