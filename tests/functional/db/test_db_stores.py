"""The engine's store protocols over a real database."""

from __future__ import annotations

import dataclasses
import datetime
import threading
import uuid

import pytest
import sqlalchemy as sa

from keel_heat_core.convergence.node import Node, node_key
from keel_heat_core.convergence.store import FirstWrite, ReadAhead
from keel_heat_core.convergence.sync_point import (
    create_traversal_sync_points,
    propagate,
    sync,
)
from keel_heat_core.db import resource, sync_point
from keel_heat_core.db import resource_data as data_repo
from keel_heat_core.db.database import Database
from keel_heat_core.graph import Graph
from keel_heat_core.model import rows
from keel_heat_core.service.db_stores import (
    DbResourceStore,
    DbStackStore,
    DbSyncPointStore,
)
from keel_heat_core.worker.lock import ResourceLock, UpdateInProgress
from tests.functional.db import builders, databases


def _no_sleep(_: float) -> None:
    return None


def test_propagation_over_the_database(db: Database) -> None:
    st = builders.new_stack(db)
    trav = str(uuid.uuid4())
    graph: Graph[Node] = Graph()
    graph.add_edge(Node(2, True), Node(1, True))
    graph.add_edge(Node(3, True), Node(1, True))
    graph.add_edge(Node(3, True), Node(2, True))
    store = DbSyncPointStore(db)
    create_traversal_sync_points(store, st.id, trav, graph)
    assert len(store.list_sync_points(st.id, trav)) == 4

    def value(succ: Node) -> dict[str, int]:
        return {"to": int(succ.entity_id)}

    fired, done = propagate(
        store, graph, st.id, trav, Node(1, True), value, sleep=_no_sleep
    )
    assert [r.node for r in fired] == [Node(2, True)]
    assert fired[0].input_data == {"tuple:(1, True, 'resource')": {"to": 2}}
    propagate(store, graph, st.id, trav, Node(2, True), value, sleep=_no_sleep)
    fired, done = propagate(
        store, graph, st.id, trav, Node(3, True), value, sleep=_no_sleep
    )
    assert fired == [] and done is not None
    assert done.input_data == {node_key(Node(3, True)): None}
    assert store.delete_sync_points(st.id, trav) == 4


def test_a_first_write_matches_an_unwritten_row_once(db: Database) -> None:
    st = builders.new_stack(db)
    trav = str(uuid.uuid4())
    store = DbSyncPointStore(db)
    store.create_sync_points(st.id, trav, [("5", True), ("5", False)])
    key = node_key(Node(4, True))
    assert store.first_write("5", trav, True, {key: {"id": 4}})
    row = store.get_sync_point("5", trav, True)
    assert row is not None and row.atomic_key == 1
    assert row.input_data == {key: {"id": 4}}
    # written already, another traversal, the other direction: no match
    assert not store.first_write("5", trav, True, {key: None})
    assert not store.first_write("5", str(uuid.uuid4()), True, {key: None})
    untouched = store.get_sync_point("5", trav, False)
    assert untouched is not None and untouched.atomic_key == 0
    assert store.get_sync_point("5", trav, True) == row


def test_a_traversals_sync_points_go_in_one_transaction(db: Database) -> None:
    st = builders.new_stack(db)
    trav = str(uuid.uuid4())
    store = DbSyncPointStore(db)
    points = [(str(i), flag) for i in range(60) for flag in (True, False)]
    with databases.commits_of(db) as commits:
        store.create_sync_points(st.id, trav, [*points, (st.id, True)])
    assert len(commits) == 1
    stored = store.list_sync_points(st.id, trav)
    assert len(stored) == len(points) + 1
    assert {(p.entity_id, p.is_update) for p in stored} == {
        *points,
        (st.id, True),
    }
    assert {(p.atomic_key, str(p.input_data)) for p in stored} == {(0, "{}")}
    # some there already (a retried request): the others still go in
    store.create_sync_points(st.id, trav, [("0", True), ("new", True)])
    assert store.get_sync_point("new", trav, True) is not None


def test_summaries_are_the_rows_as_planning_sees_them(db: Database) -> None:
    st = builders.new_stack(db)
    first = builders.new_resource(db, st, name="a", action="CREATE")
    second = builders.new_resource(
        db,
        st,
        name="b",
        action="DELETE",
        status="COMPLETE",
        requires=[first.id],
        replaces=first.id,
    )
    builders.new_resource(db, builders.new_stack(db), name="elsewhere")
    store = DbResourceStore(db)
    summaries = store.get_summaries(st.id)
    assert summaries == [
        rows.RowSummary.of(row) for row in store.get_resources(st.id)
    ]
    assert [s.id for s in summaries] == [first.id, second.id]
    assert summaries[1].requires == (first.id,)


def test_old_two_element_keys_complete(db: Database) -> None:
    """A sync point half filled by a Heat ≤ 2025.2 engine completes."""
    st = builders.new_stack(db)
    trav = str(uuid.uuid4())
    sync_point.create(db, "9", trav, True, st.id)
    with db.engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE sync_point SET input_data = "
            '\'{"input_data": {"tuple:(1, True)": null}}\' '
            f"WHERE traversal_id = '{trav}'"
        )
    store = DbSyncPointStore(db)
    preds = [Node(1, True), Node(2, True)]
    ready = sync(
        store, "9", trav, True, preds, preds[1], None, None, False, _no_sleep
    )
    assert ready is not None
    assert set(ready.input_data) == {node_key(p) for p in preds}


def test_resource_store_and_lock(db: Database) -> None:
    st = builders.new_stack(db)
    store = DbResourceStore(db, encrypt_properties=True)
    new_id = store.insert_resource(
        rows.ResourceRow(
            id=0,
            name="vm",
            stack_id=st.id,
            current_template_id=st.raw_template_id,
            root_stack_id=st.id,
            properties={"flavor": "m1"},
        )
    )
    row = store.get_resource(new_id)
    assert row is not None and row.properties == {"flavor": "m1"}
    state = store.read_lock(new_id)
    assert state is not None
    lock = ResourceLock(store, new_id, "vm", state)
    lock.acquire("eng-1", {"action": "CREATE", "status": "IN_PROGRESS"})
    other = ResourceLock(store, new_id, "vm", state)
    with pytest.raises(UpdateInProgress):
        other.acquire("eng-2", {"status": "IN_PROGRESS"})
    lock.release(
        "eng-1",
        {"status": "COMPLETE", "physical_id": "srv-1", "properties": {"a": 1}},
    )
    done = store.get_resource(new_id)
    assert done is not None
    assert (done.engine_id, done.atomic_key) == (None, 2)
    assert (done.physical_id, done.properties) == ("srv-1", {"a": 1})
    # A missed CAS leaves no property row behind.
    before = resource.get(db, new_id)
    assert not store.cas_update(new_id, None, 0, {"properties": {"b": 2}})
    assert resource.get(db, new_id) == before
    store.update_resource(new_id, {"status_reason": "ok"})
    assert [r.status_reason for r in store.get_resources(st.id)] == ["ok"]
    store.add_event(
        rows.EventRecord(
            stack_id=st.id,
            resource_name="vm",
            physical_resource_id="srv-1",
            resource_type="OS::Nova::Server",
            resource_action="CREATE",
            resource_status="COMPLETE",
            resource_status_reason="state changed",
        )
    )
    store.delete_resource(new_id)
    assert store.get_resource(new_id) is None


def test_stack_store(db: Database) -> None:
    st = builders.new_stack(db, status="IN_PROGRESS")
    stacks = DbStackStore(db)
    row = stacks.get_stack(st.id)
    assert row is not None and row.current_traversal == st.current_traversal
    assert st.id in {s.id for s in stacks.list_in_progress()}
    assert not stacks.update_stack(st.id, "stale", {"status": "FAILED"})
    assert stacks.update_stack(
        st.id, row.current_traversal, {"status": "COMPLETE"}
    )
    assert not stacks.update_stack("missing", "x", {"status": "FAILED"})


def test_a_traversal_graph_is_fetched_once_and_a_new_one_is_read(
    db: Database,
) -> None:
    st = builders.new_stack(db, status="IN_PROGRESS")
    first = {"edges": [[[1, True], None]]}
    second = {"edges": [[[2, True], None], [[1, False], [2, True]]]}
    stacks = DbStackStore(db)
    # a traversal without its graph yet (converge_stack writes it second)
    assert stacks.update_stack(
        st.id, st.current_traversal, {"current_deps": None}
    )
    row = stacks.get_stack(st.id)
    assert row is not None and row.current_deps is None
    assert stacks.update_stack(
        st.id, st.current_traversal, {"current_deps": first}
    )
    with databases.selects_of(db) as selects:
        for _ in range(3):
            row = stacks.get_stack(st.id)
            assert row is not None and row.current_deps == first
        reads_of_graph = [s for s in selects if "current_deps" in s]
        assert len(reads_of_graph) == 1, selects
        # a new traversal comes with its own graph, which is read
        traversal = str(uuid.uuid4())
        assert stacks.update_stack(
            st.id,
            st.current_traversal,
            {"current_traversal": traversal, "current_deps": second},
        )
        row = stacks.get_stack(st.id)
        assert row is not None and row.current_traversal == traversal
        assert row.current_deps == second


def test_a_node_reads_its_row_and_stack_with_one_statement(
    db: Database,
) -> None:
    graph = {"edges": [[[1, True], None]]}
    st = builders.new_stack(db, status="IN_PROGRESS", current_deps=graph)
    res = builders.new_resource(db, st, action="CREATE", status="COMPLETE")
    stacks = DbStackStore(db)
    stacks.get_resource_and_stack(res.id)  # the graph, once per traversal
    with databases.selects_of(db) as statements:
        row, stack = stacks.get_resource_and_stack(res.id)
    assert len(statements) == 1, statements
    # what the two reads of their own give
    assert row == DbResourceStore(db).get_resource(res.id)
    alone = stacks.get_stack(st.id)
    assert stack == alone and stack is not None
    assert stack.id == st.id and stack.current_deps == graph
    assert stack.current_traversal == st.current_traversal
    assert (row is not None) and row.name == res.name and row.id == res.id


def test_a_node_of_a_deleted_stack_reads_no_stack(db: Database) -> None:
    st = builders.new_stack(db)
    res = builders.new_resource(db, st)
    stacks = DbStackStore(db)
    assert stacks.get_resource_and_stack(res.id + 1000) == (None, None)
    db_stack_delete = {"deleted_at": datetime.datetime(2026, 12, 6)}
    assert stacks.update_stack(st.id, st.current_traversal, db_stack_delete)
    row, stack = stacks.get_resource_and_stack(res.id)
    assert row is not None and row.id == res.id
    assert stack is None


def test_a_release_reads_the_node_it_hands_over_in_its_transaction(
    db: Database,
) -> None:
    graph = {"edges": [[[1, True], None]]}
    st = builders.new_stack(db, status="IN_PROGRESS", current_deps=graph)
    done = builders.new_resource(db, st, action="CREATE", status="COMPLETE")
    nxt = builders.new_resource(db, st, name="next")
    stacks = DbStackStore(db)
    store = DbResourceStore(db, stacks=stacks)
    syncs = DbSyncPointStore(db)
    trav = st.current_traversal
    syncs.create_sync_points(st.id, trav, [(str(nxt.id), True)])
    state = store.read_lock(done.id)
    assert state is not None
    lock = ResourceLock(store, done.id, done.name, state)
    lock.acquire("eng-1", {"action": "UPDATE", "status": "IN_PROGRESS"})
    write = FirstWrite(str(nxt.id), trav, True, {"k": 1})
    ahead = ReadAhead(nxt.id, write)
    # a read ahead of a write that will miss finds nothing
    stale = FirstWrite(str(nxt.id), "gone", True, {"k": 1})
    missed = ReadAhead(nxt.id, stale)
    with databases.commits_of(db) as commits:
        lock.release(
            "eng-1", {"status": "COMPLETE"}, (), [write, stale, ahead, missed]
        )
    assert write.matched and not stale.matched
    assert ahead.found == stacks.get_resource_and_stack(nxt.id)
    assert ahead.found is not None and ahead.found[1] is not None
    assert ahead.found[1].current_deps == graph
    assert missed.found is None
    assert len(commits) == 1


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_line_read_ahead_answers_the_next_reads_while_fresh(
    db: Database,
) -> None:
    graph = {"edges": [[[1, True], None]]}
    st = builders.new_stack(db, status="IN_PROGRESS", current_deps=graph)
    line = [builders.new_resource(db, st, name=f"r{i}") for i in range(4)]
    ids = [res.id for res in line]
    clock = _Clock()
    stacks = DbStackStore(db, clock=clock)
    alone = {key: stacks.get_resource_and_stack(key) for key in ids}
    with databases.selects_of(db) as selects, db.connection() as conn:
        # the first read takes the rows of the line after it as well
        first = stacks.read_ahead_in(conn, ids[0], ids[1:])
        assert len(selects) == 1
        # which answer the reads of the next nodes without a statement
        clock.now += stacks.LINE_FRESH_S
        second = stacks.read_ahead_in(conn, ids[1], ids[2:])
        assert len(selects) == 1
        # a row read with the line is too old now: it is read again, and
        # what the line left is forgotten
        clock.now += 0.001
        third = stacks.read_ahead_in(conn, ids[2], ())
        assert len(selects) == 2
        fourth = stacks.read_ahead_in(conn, ids[3], ())
        assert len(selects) == 3
    assert [first, second, third, fourth] == [alone[key] for key in ids]
    assert first[1] is not None and first[1].current_deps == graph


def test_a_line_read_ahead_is_used_once_and_by_its_thread_only(
    db: Database,
) -> None:
    graph = {"edges": [[[1, True], None]]}
    st = builders.new_stack(db, status="IN_PROGRESS", current_deps=graph)
    line = [builders.new_resource(db, st, name=f"r{i}") for i in range(3)]
    ids = [res.id for res in line]
    stacks = DbStackStore(db)
    stacks.get_resource_and_stack(ids[0])  # the graph, once per traversal
    with databases.selects_of(db) as selects:
        # (a transaction each: SQLite takes its write lock at BEGIN)
        with db.connection() as conn:
            stacks.read_ahead_in(conn, ids[0], ids[1:])

        def elsewhere() -> None:
            with db.connection() as own:
                stacks.read_ahead_in(own, ids[1], ())

        # another thread finds nothing the line left
        other = threading.Thread(target=elsewhere)
        other.start()
        other.join()
        assert len(selects) == 2
        with db.connection() as conn:
            # a read ahead of a row off the line reads, and forgets the
            # line: the row it left is not used afterwards
            stacks.read_ahead_in(conn, ids[2] + 1000, ())
            stacks.read_ahead_in(conn, ids[1], ())
            assert len(selects) == 4
            # nor is a row used twice
            stacks.read_ahead_in(conn, ids[0], ids[1:])
            stacks.read_ahead_in(conn, ids[1], ())
            stacks.read_ahead_in(conn, ids[1], ())
            assert len(selects) == 6


def test_a_local_outcome_is_one_commit_with_its_data(db: Database) -> None:
    st = builders.new_stack(db)
    row = builders.new_resource(db, st, name="r", action="INIT")
    data_repo.set_value(db, row.id, "gone", "x")
    data_repo.set_value(db, row.id, "kept", "old")
    store = DbResourceStore(db)
    state = store.read_lock(row.id)
    assert state is not None
    read = dataclasses.replace(state)
    lock = ResourceLock(store, row.id, row.name, state)
    event = rows.EventRecord(st.id, "r", "p-1", "T", "CREATE", "COMPLETE", "")
    writes = [
        rows.DataWrite("kept", "new"),
        rows.DataWrite("secret", "s3", redact=True),
        rows.DataWrite("gone", None),
        rows.DataWrite("never", None),
    ]
    with databases.commits_of(db) as commits:
        lock.finish(
            {"action": "CREATE", "status": "COMPLETE", "physical_id": "p-1"},
            [event],
            (),
            writes,
        )
    assert len(commits) == 1
    assert data_repo.get_all(db, row.id) == {"kept": "new", "secret": "s3"}
    stored = resource.get(db, row.id)
    assert stored is not None and stored.nova_instance == "p-1"
    assert (stored.engine_id, stored.status) == (None, "COMPLETE")
    # a second outcome from the same (now stale) read misses: no data
    stale = ResourceLock(store, row.id, row.name, read)
    with pytest.raises(UpdateInProgress):
        stale.finish({"status": "FAILED"}, (), (), [rows.DataWrite("x", "1")])
    assert "x" not in data_repo.get_all(db, row.id)


def test_a_row_read_without_data_gets_its_keys_without_a_lookup(
    db: Database,
) -> None:
    st = builders.new_stack(db, status="IN_PROGRESS")
    row = builders.new_resource(db, st, name="r", action="INIT")
    stacks = DbStackStore(db)
    store = DbResourceStore(db)
    read, _ = stacks.get_resource_and_stack(row.id)
    assert read is not None and read.has_data is False
    state = store.read_lock(row.id)
    assert state is not None
    lock = ResourceLock(store, row.id, row.name, state)
    statements: list[str] = []

    def seen(_c: object, _cur: object, stmt: str, *_: object) -> None:
        statements.append(" ".join(stmt.split()).lower())

    sa.event.listen(db.engine, "before_cursor_execute", seen)
    try:
        lock.finish(
            {"action": "CREATE", "status": "COMPLETE"},
            (),
            (),
            [rows.DataWrite("value", "v", fresh=True)],
        )
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", seen)
    touching = [s for s in statements if "resource_data" in s]
    assert len(touching) == 1 and touching[0].startswith("insert"), touching
    assert data_repo.get_all(db, row.id) == {"value": "v"}
    # a created row is not looked at (an update looks its keys up)
    again, _ = stacks.get_resource_and_stack(row.id)
    assert again is not None and again.has_data is None
    # a row not created yet that has data says so
    hooked = builders.new_resource(db, st, name="h", action="INIT")
    data_repo.set_value(db, hooked.id, "pre-create", "paused")
    seen_hooked, _ = stacks.get_resource_and_stack(hooked.id)
    assert seen_hooked is not None and seen_hooked.has_data is True
    # a key known to exist is looked up and overwritten, not doubled
    state = store.read_lock(row.id)
    assert state is not None
    ResourceLock(store, row.id, row.name, state).finish(
        {"action": "UPDATE", "status": "COMPLETE"},
        (),
        (),
        [rows.DataWrite("value", "w")],
    )
    assert data_repo.get_all(db, row.id) == {"value": "w"}
    with db.connection() as conn:
        count = conn.execute(
            sa.text(
                "SELECT COUNT(*) FROM resource_data WHERE resource_id = :r"
            ),
            {"r": row.id},
        ).scalar()
    assert count == 1


def test_a_read_and_swap_reads_the_node_it_fires_in_its_transaction(
    db: Database,
) -> None:
    st = builders.new_stack(db, status="IN_PROGRESS")
    nxt = builders.new_resource(db, st, name="next")
    stacks = DbStackStore(db)
    syncs = DbSyncPointStore(db, stacks)
    trav = st.current_traversal
    syncs.create_sync_points(st.id, trav, [(str(nxt.id), False)])

    def plan(row: object) -> tuple[dict[str, int], None]:
        return {"k": 1}, None

    ahead = ReadAhead(nxt.id)
    with databases.commits_of(db) as commits:
        found = syncs.read_and_swap(str(nxt.id), trav, False, plan, ahead)
    assert found is not None and found[1]
    assert len(commits) == 1
    assert ahead.found == stacks.get_resource_and_stack(nxt.id)
    assert ahead.found is not None and ahead.found[1] is not None

    if db.dialect == "sqlite":  # (its writers queue: no write in between)
        return
    # a swap that misses (the row moved on under it) reads nothing
    missed = ReadAhead(nxt.id)
    row = found[0]
    sync_point.update_stored_input_data(
        db, str(nxt.id), trav, False, row.atomic_key, {"other": 2}, None
    )

    def stale(_: object) -> tuple[dict[str, int], None]:
        # a writer commits between this read and its swap
        sync_point.update_stored_input_data(
            db, str(nxt.id), trav, False, row.atomic_key + 1, {"x": 3}, None
        )
        return {"k": 2}, None

    assert syncs.read_and_swap(str(nxt.id), trav, False, stale, missed)
    assert missed.found is None
