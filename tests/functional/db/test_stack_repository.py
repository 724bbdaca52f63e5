"""Stack repository: create, visibility, listing, CAS, soft delete."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest
import sqlalchemy as sa

from keel_heat_core.db import (
    exceptions,
    records,
    resource,
    resource_data,
    stack,
    stack_tag,
)
from keel_heat_core.db.database import Database
from keel_heat_core.db.scope import Scope
from tests.functional.db import builders


def _project() -> str:
    return uuid.uuid4().hex


def test_create_defaults_and_name_uniqueness(db: Database) -> None:
    project = _project()
    first = builders.new_stack(db, project, name="web")
    assert first.backup is False and first.created_at is not None
    with pytest.raises(exceptions.StackExists) as err:
        builders.new_stack(db, project, name="web")
    assert str(err.value) == "The Stack (web) already exists."
    assert stack.count(db, Scope(project)) == 1
    # Same name in another project is fine.
    builders.new_stack(db, _project(), name="web")


def test_list_filters_sorting_and_paging(db: Database) -> None:
    project = _project()
    scope = Scope(project)
    made = [
        builders.new_stack(db, project, name=f"n{i}", status=status)
        for i, status in enumerate(["COMPLETE", "FAILED", "COMPLETE"] * 2)
    ]
    by_name = stack.list_stacks(
        db, scope, sort_keys=["stack_name"], sort_dir="asc"
    )
    assert [s.name for s in by_name] == [f"n{i}" for i in range(6)]
    page1 = stack.list_stacks(
        db, scope, sort_keys="stack_name", sort_dir="desc", limit=4
    )
    page2 = stack.list_stacks(
        db,
        scope,
        sort_keys="stack_name",
        sort_dir="desc",
        limit=4,
        marker=page1[-1].id,
    )
    assert [s.name for s in page1 + page2] == [
        f"n{i}" for i in reversed(range(6))
    ]
    failed = stack.list_stacks(db, scope, filters={"status": "FAILED"})
    assert {s.id for s in failed} == {made[1].id, made[4].id}
    assert stack.count(db, scope, filters={"name": ["n0", "n5"]}) == 2
    # Default order is newest first; unknown sort keys are ignored.
    default = stack.list_stacks(db, scope, sort_keys=["bogus"])
    assert len(default) == 6
    with pytest.raises(exceptions.Invalid):
        stack.list_stacks(db, scope, filters={"nope": 1})


def test_tags_filters(db: Database) -> None:
    project = _project()
    scope = Scope(project)
    a = builders.new_stack(db, project, name="a")
    b = builders.new_stack(db, project, name="b")
    c = builders.new_stack(db, project, name="c")
    stack_tag.set_tags(db, a.id, ["x", "y"])
    stack_tag.set_tags(db, b.id, ["x"])
    stack_tag.set_tags(db, c.id, ["hidden"])

    def names(**kw: object) -> set[str | None]:
        return {s.name for s in stack.list_stacks(db, scope, **kw)}  # type: ignore[arg-type]

    assert names(tags=["x", "y"]) == {"a"}
    assert names(tags_any=["y", "x"]) == {"a", "b"}
    assert names(not_tags=["x", "y"]) == {"b", "c"}
    assert names(not_tags_any=["y"]) == {"b", "c"}
    assert names(hidden_tags=["hidden"]) == {"a", "b"}
    assert names(hidden_tags=["hidden"], show_hidden=True) == {"a", "b", "c"}
    got = stack.get(db, a.id)
    assert got is not None and got.tags == ("x", "y")
    assert stack_tag.get(db, b.id) == ["x"]
    stack_tag.delete(db, b.id)
    assert stack_tag.get(db, b.id) == []


def test_visibility_and_admin(db: Database) -> None:
    project = _project()
    owned = builders.new_stack(
        db, project, stack_user_project_id="domain-" + project
    )
    assert stack.get(db, owned.id, Scope(project)) is not None
    assert stack.get(db, owned.id, Scope("domain-" + project)) is not None
    assert stack.get(db, owned.id, Scope(_project())) is None
    assert not stack.update(db, owned.id, {"status": "X"}, Scope(_project()))
    assert stack.update(db, owned.id, {"status": "X"}, Scope(project))


def test_traversal_cas_and_missing_stack(db: Database) -> None:
    st = builders.new_stack(db)
    assert not stack.update(
        db, st.id, {"current_traversal": "new"}, exp_trvsl="stale"
    )
    assert stack.update(
        db,
        st.id,
        {"current_traversal": "new", "status": "COMPLETE"},
        exp_trvsl=st.current_traversal,
    )
    with pytest.raises(exceptions.NotFound):
        stack.update(db, "missing", {"status": "X"})


def test_soft_delete_removes_resources(db: Database) -> None:
    project = _project()
    st = builders.new_stack(db, project)
    res = builders.new_resource(db, st)
    resource_data.set_value(db, res.id, "k", "v")
    attr = resource.store_attributes(db, res.id, res.atomic_key, {"a": 1})
    assert attr is not None
    stack.soft_delete(db, st.id)
    assert stack.get(db, st.id) is None
    gone = stack.get(db, st.id, show_deleted=True)
    assert gone is not None and gone.deleted_at is not None
    assert resource.get(db, res.id) is None
    assert stack.count(db, Scope(project)) == 0
    assert stack.count(db, Scope(project), show_deleted=True) == 1


def test_nested_lookups(db: Database) -> None:
    project = _project()
    root = builders.new_stack(db, project)
    child = builders.new_stack(
        db, project, owner_id=root.id, nested_depth=1, name="child"
    )
    grandchild = builders.new_stack(
        db, project, owner_id=child.id, nested_depth=2
    )
    assert stack.get_root_id(db, grandchild.id) == root.id
    found = stack.get_by_name_and_owner_id(
        db, "child", root.id, Scope(project)
    )
    assert found is not None and found.id == child.id
    assert {s.id for s in stack.get_all_by_root(db, root.id)} == {
        child.id,
        grandchild.id,
    }
    assert [s.id for s in stack.get_all_by_root(db, root.id, 1)] == [child.id]
    builders.new_resource(db, child, root_stack_id=root.id)
    assert stack.count_total_resources(db, root.id) == 1


def test_the_read_of_a_stack_for_the_api(db: Database) -> None:
    """``get_for_reading`` answers what ``get`` answers, tags in their
    order, without the traversal's graph."""
    project = _project()
    deps = {"edges": [[[1, True], None]]}
    made = builders.new_stack(
        db,
        project,
        stack_user_project_id="domain-" + project,
        current_deps=deps,
    )
    stack_tag.set_tags(db, made.id, ["b", "a", "c"])
    full = stack.get(db, made.id, Scope(project))
    read = stack.get_for_reading(db, made.id, Scope(project))
    assert full is not None and read is not None
    assert full.current_deps == deps and read.current_deps is None
    assert read.tags == ("b", "a", "c") == full.tags
    assert dataclasses.replace(read, current_deps=deps) == full
    assert stack.get_for_reading(db, made.id, Scope("domain-" + project))
    assert stack.get_for_reading(db, made.id, Scope(_project())) is None
    assert stack.get_for_reading(db, made.id) is not None  # admin
    assert stack.get_for_reading(db, "missing") is None
    stack.soft_delete(db, made.id)
    assert stack.get_for_reading(db, made.id) is None


def test_the_read_of_a_stack_is_one_statement(db: Database) -> None:
    """The stack and its tags come from one SELECT, with or without
    tags."""
    project = _project()
    bare = builders.new_stack(db, project)
    tagged = builders.new_stack(db, project)
    stack_tag.set_tags(db, tagged.id, ["x", "y"])
    selects: list[str] = []

    def seen(_c: object, _cur: object, statement: str, *_: object) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            selects.append(statement)

    sa.event.listen(db.engine, "before_cursor_execute", seen)
    try:
        read_bare = stack.get_for_reading(db, bare.id, Scope(project))
        read_tagged = stack.get_for_reading(db, tagged.id, Scope(project))
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", seen)
    assert read_bare is not None and read_bare.tags == ()
    assert read_tagged is not None and read_tagged.tags == ("x", "y")
    assert len(selects) == 2, selects


def _summary_of(rec: records.StackRecord) -> records.StackSummaryRecord:
    fields = [f.name for f in dataclasses.fields(records.StackSummaryRecord)]
    return records.StackSummaryRecord(
        **{name: getattr(rec, name) for name in fields}
    )


def test_a_listing_shows_the_lists_stacks(db: Database) -> None:
    """``list_summaries`` (Core rows of the shown columns, what ``GET
    /stacks`` reads) answers the same page as the ORM list, filters,
    sorting, markers and tags alike, in one transaction."""
    project = _project()
    scope = Scope(project)
    made = [
        builders.new_stack(
            db,
            project,
            name=f"n{i}",
            status=status,
            current_deps={"edges": [[[i, True], None]]},
        )
        for i, status in enumerate(["COMPLETE", "FAILED", "COMPLETE"] * 2)
    ]
    stack_tag.set_tags(db, made[0].id, ["x", "y"])
    stack_tag.set_tags(db, made[3].id, ["x"])
    asks: list[dict[str, Any]] = [
        {},
        {"sort_keys": ["stack_name"], "sort_dir": "asc", "limit": 4},
        {"sort_keys": "stack_name", "limit": 2, "marker": made[2].id},
        {"filters": {"status": "FAILED"}},
        {"tags": ["x"]},
        {"not_tags_any": ["y"], "sort_keys": ["creation_time"]},
    ]
    selects: list[str] = []

    def seen(_c: object, _cur: object, statement: str, *_: object) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            selects.append(statement)

    for ask in asks:
        full = stack.list_stacks(db, scope, **ask)
        assert full, ask
        selects.clear()
        sa.event.listen(db.engine, "before_cursor_execute", seen)
        try:
            light = stack.list_summaries(db, scope, **ask)
        finally:
            sa.event.remove(db.engine, "before_cursor_execute", seen)
        assert light == [_summary_of(s) for s in full], ask
        # the page and its tags (and the marker's row)
        assert len(selects) == 2 + ("marker" in ask), selects
        assert "current_deps" not in selects[-2], selects
    assert light[0].name and light[0].tenant == project
    assert stack.list_summaries(db, Scope(_project())) == []
    with pytest.raises(TypeError, match="sort_key"):
        stack.list_summaries(db, scope, sort_key="name")  # type: ignore[call-arg]


def test_summary_columns_are_the_records_fields() -> None:
    """The summary record is built from its row by position."""
    assert [c.name for c in stack.SUMMARY_COLUMNS] == [
        f.name for f in dataclasses.fields(records.StackSummaryRecord)
    ][: len(stack.SUMMARY_COLUMNS)]
    assert len(stack.SUMMARY_COLUMNS) + 1 == len(
        dataclasses.fields(records.StackSummaryRecord)
    )


def test_the_first_stack_user_project_is_kept(db: Database) -> None:
    row = builders.new_stack(db)
    assert stack.claim_stack_user_project(db, row.id, "first") == "first"
    assert stack.claim_stack_user_project(db, row.id, "second") == "first"
    got = stack.get(db, row.id)
    assert got is not None and got.stack_user_project_id == "first"
    with pytest.raises(exceptions.NotFound):
        stack.claim_stack_user_project(db, str(uuid.uuid4()), "p")
