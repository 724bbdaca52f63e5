"""Resource repository: locking, replacement, bounded loading, purge."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy import event as sa_event

from keel_heat_core.db import raw_template, resource, resource_data
from keel_heat_core.db import resource_properties_data as rpd
from keel_heat_core.db.database import Database
from tests.functional.db import builders


@contextlib.contextmanager
def count_queries(db: Database) -> Iterator[list[str]]:
    seen: list[str] = []

    def listener(*args: object) -> None:
        seen.append(str(args[2]))

    sa_event.listen(db.engine, "before_cursor_execute", listener)
    try:
        yield seen
    finally:
        sa_event.remove(db.engine, "before_cursor_execute", listener)


def _selects(statements: list[str]) -> list[str]:
    return [q for q in statements if q.lstrip().upper().startswith("SELECT")]


def test_lock_acquire_release_null_safe(db: Database) -> None:
    st = builders.new_stack(db)
    res = builders.new_resource(db, st)
    assert res.atomic_key is None and res.engine_id is None
    assert resource.update(db, res.id, {"engine_id": "e1"}, None)
    # Stale key or wrong expected engine: no match.
    assert not resource.update(db, res.id, {"engine_id": "e2"}, None)
    assert not resource.update(db, res.id, {"engine_id": None}, 1, "e2")
    assert resource.update(db, res.id, {"engine_id": None}, 1, "e1")
    row = resource.get(db, res.id)
    assert row is not None and (row.engine_id, row.atomic_key) == (None, 2)
    assert resource.steal_lock(db, res.id, {"status": "FAILED"})


def test_replacement(db: Database) -> None:
    st = builders.new_stack(db)
    old = builders.new_resource(db, st, atomic_key=4, name="srv")
    values = {
        "name": "srv",
        "stack_id": st.id,
        "action": "INIT",
        "status": "COMPLETE",
        "replaces": old.id,
        "current_template_id": st.raw_template_id,
        "root_stack_id": st.id,
        "requires": [],
        "needed_by": [],
    }
    assert resource.create_replacement(db, old.id, values, 3) is None
    assert len(resource.get_all_by_stack(db, st.id)) == 1
    new = resource.create_replacement(db, old.id, values, 4)
    assert new is not None and new.replaces == old.id
    again = resource.get(db, old.id)
    assert again is not None and again.replaced_by == new.id


def test_loading_a_big_stack_is_one_query(db: Database) -> None:
    st = builders.new_stack(db)
    props = rpd.create(db, {"size": 1, "secret": "x"}, encrypted=True)
    with db.transaction() as session:
        from keel_heat_core.db import models

        session.add_all(
            models.Resource(
                name=f"r{i}",
                stack_id=st.id,
                root_stack_id=st.id,
                action="CREATE",
                status="COMPLETE",
                rsrc_prop_data_id=props.id,
                requires=[],
            )
            for i in range(1000)
        )
    with count_queries(db) as seen:
        rows = resource.get_all_by_stack(db, st.id)
    assert len(rows) == 1000
    assert rows[0].properties_data == {"size": 1, "secret": "x"}
    assert len(_selects(seen)) == 1
    with count_queries(db) as seen:
        data = resource_data.get_all_by_resources(db, [r.id for r in rows])
    assert data == {} and len(_selects(seen)) == 1


def test_attribute_cache(db: Database) -> None:
    st = builders.new_stack(db)
    res = builders.new_resource(db, st)
    attrs = {("addresses", "net", 0): "10.1.1.1", "name": "vm"}
    attr_id = resource.store_attributes(db, res.id, None, attrs)
    assert attr_id is not None
    row = resource.get(db, res.id)
    assert row is not None and row.attr_data == attrs
    # A stale atomic key misses and the orphan rpd row is removed.
    assert resource.store_attributes(db, res.id, None, {"x": 1}) is None
    resource.delete_attr_data(db, res.id, attr_id)
    row = resource.get(db, res.id)
    assert row is not None and row.attr_data is None


def test_purge_deleted_removes_rows_and_orphan_templates(db: Database) -> None:
    st = builders.new_stack(db)
    old_tmpl = raw_template.create(db, {"t": 1}, {}, files={"f": "x"})
    keep = builders.new_resource(db, st, action="CREATE")
    gone = builders.new_resource(
        db,
        st,
        action="DELETE",
        status="COMPLETE",
        current_template_id=old_tmpl.id,
    )
    resource.purge_deleted(db, st.id)
    assert resource.get(db, gone.id) is None
    assert resource.get(db, keep.id) is not None
    try:
        raw_template.get(db, old_tmpl.id)
    except Exception as exc:  # noqa: BLE001 - any NotFound
        assert "not found" in str(exc)
    else:
        raise AssertionError("template should be purged")
    assert len(resource.get_all_active_by_stack(db, st.id)) == 1


def test_delete_finished_removes_only_the_stacks_deleted_rows(
    db: Database,
) -> None:
    st = builders.new_stack(db)
    other = builders.new_stack(db)
    keep = builders.new_resource(db, st, action="DELETE", status="FAILED")
    gone = [
        builders.new_resource(db, st, action="DELETE", status="COMPLETE")
        for _ in range(3)
    ]
    elsewhere = builders.new_resource(
        db, other, action="DELETE", status="COMPLETE"
    )
    resource_data.set_value(db, gone[0].id, "k", "v")
    assert resource.delete_finished(db, st.id) == 3
    assert [r.id for r in resource.get_all_by_stack(db, st.id)] == [keep.id]
    assert resource.get(db, elsewhere.id) is not None
    assert resource_data.get_all(db, gone[0].id) == {}
    assert resource.delete_finished(db, st.id) == 0


def test_resource_data(db: Database) -> None:
    st = builders.new_stack(db)
    res = builders.new_resource(db, st)
    resource_data.set_value(db, res.id, "pw", "secret", redact=True)
    resource_data.set_value(db, res.id, "plain", "v1")
    resource_data.set_value(db, res.id, "plain", "v2")
    assert resource_data.get_all(db, res.id) == {"pw": "secret", "plain": "v2"}
    assert resource_data.get(db, res.id, "pw") == "secret"
    with db.transaction() as session:
        from keel_heat_core.db import models

        stored = {
            r.key: (r.value, r.decrypt_method)
            for r in session.query(models.ResourceData).filter_by(
                resource_id=res.id
            )
        }
    assert stored["plain"] == ("v2", "")
    assert stored["pw"][1] == "cryptography_decrypt_v1"
    assert stored["pw"][0] != "secret"
    resource_data.delete(db, res.id, "pw")
    assert resource_data.get_all(db, res.id) == {"plain": "v2"}
