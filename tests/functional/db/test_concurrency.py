"""Compare-and-swap under contention on MariaDB and PostgreSQL.

Eight threads race on one resource row and on one sync point; every round
has exactly one winner and no update is lost.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from keel_heat_core.db import resource, resource_data, stack, sync_point
from keel_heat_core.db.database import Database
from tests.functional.db import builders

THREADS = 8
ROUNDS = 15


def _race(attempt: Callable[[int], bool]) -> list[int]:
    barrier = threading.Barrier(THREADS)

    def run(n: int) -> bool:
        barrier.wait()
        return attempt(n)

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(run, range(THREADS)))
    return [n for n, won in enumerate(results) if won]


def test_resource_lock_has_one_winner_per_round(server_db: Database) -> None:
    db = server_db
    st = builders.new_stack(db)
    res = builders.new_resource(db, st)
    key = res.atomic_key
    for _ in range(ROUNDS):
        engines = [str(uuid.uuid4()) for _ in range(THREADS)]
        winners = _race(
            lambda n, k=key, e=engines: resource.update(
                db, res.id, {"engine_id": e[n], "status": "IN_PROGRESS"}, k
            )
        )
        assert len(winners) == 1
        holder = engines[winners[0]]
        key = 1 if key is None else key + 1
        row = resource.get(db, res.id)
        assert row is not None
        assert (row.engine_id, row.atomic_key) == (holder, key)
        # Only the holder can release.
        assert not resource.update(
            db, res.id, {"engine_id": None}, key, engines[winners[0] - 1]
        )
        assert resource.update(
            db, res.id, {"engine_id": None, "status": "COMPLETE"}, key, holder
        )
        key += 1


def test_sync_point_has_one_winner_per_round(server_db: Database) -> None:
    db = server_db
    st = builders.new_stack(db)
    traversal = st.current_traversal
    assert traversal is not None
    assert sync_point.create(db, 7, traversal, True, st.id)
    for round_no in range(ROUNDS):
        current = sync_point.get(db, 7, traversal, True)
        assert current is not None
        assert current.atomic_key == round_no

        def attempt(n: int, cur=current, rnd=round_no) -> bool:
            data = dict(cur.input_data)
            data[(100 + n, True)] = {"round": rnd, "sender": n}
            return sync_point.update_input_data(
                db, 7, traversal, True, cur.atomic_key, data
            )

        assert len(_race(attempt)) == 1


def test_sync_point_no_lost_update(server_db: Database) -> None:
    """Every sender retries until its key is in: all keys arrive."""
    db = server_db
    st = builders.new_stack(db)
    traversal = st.current_traversal
    assert traversal is not None
    sync_point.create(db, 9, traversal, False, st.id)

    def sender(n: int) -> bool:
        while True:
            cur = sync_point.get(db, 9, traversal, False)
            assert cur is not None
            data = dict(cur.input_data)
            data[(200 + n, False)] = n
            if sync_point.update_input_data(
                db, 9, traversal, False, cur.atomic_key, data
            ):
                return True

    assert len(_race(sender)) == THREADS
    final = sync_point.get(db, 9, traversal, False)
    assert final is not None
    assert final.atomic_key == THREADS
    assert final.input_data == {
        (200 + n, False, "resource"): n for n in range(THREADS)
    }


def test_stack_traversal_cas_has_one_winner(server_db: Database) -> None:
    db = server_db
    st = builders.new_stack(db)
    old = st.current_traversal
    new_ids = [str(uuid.uuid4()) for _ in range(THREADS)]
    winners = _race(
        lambda n: stack.update(
            db, st.id, {"current_traversal": new_ids[n]}, exp_trvsl=old
        )
    )
    assert len(winners) == 1
    got = stack.get(db, st.id)
    assert got is not None
    assert got.current_traversal == new_ids[winners[0]]


def test_unchanged_update_counts_as_matched(server_db: Database) -> None:
    """Found-rows semantics: matching without changing is a success."""
    db = server_db
    st = builders.new_stack(db)
    assert stack.update(
        db,
        st.id,
        {"status": st.status, "current_traversal": st.current_traversal},
        exp_trvsl=st.current_traversal,
    )


def test_new_resource_data_of_many_resources_never_deadlocks(
    server_db: Database,
) -> None:
    """Resources created together each write their first data key.

    Called without the retry on deadlock, so that a deadlock fails the
    test: an ``UPDATE ... WHERE resource_id AND key`` that found nothing
    took a gap lock on MariaDB, and the inserts of concurrent writers into
    that gap deadlocked (a wide stack's create retried half a second for
    each one).
    """
    db = server_db
    write = resource_data.set_value.__wrapped__  # type: ignore[attr-defined]
    st = builders.new_stack(db)
    for _ in range(ROUNDS):
        rows = [builders.new_resource(db, st) for _ in range(THREADS)]
        _race(lambda n, rows=rows: write(db, rows[n].id, "value", f"v{n}"))
        for n, row in enumerate(rows):
            assert resource_data.get_all(db, row.id) == {"value": f"v{n}"}
    # and a second write of a key overwrites it in place
    rows = [builders.new_resource(db, st) for _ in range(THREADS)]
    for key_round in ("a", "b"):
        _race(
            lambda n, rows=rows, k=key_round: write(
                db, rows[n].id, "value", f"{k}{n}"
            )
        )
    for n, row in enumerate(rows):
        assert resource_data.get_all(db, row.id) == {"value": f"b{n}"}
