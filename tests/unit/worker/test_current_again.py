"""A row chosen again over a replacement of an older traversal is the
resource's current row: its ``replaced_by`` is cleared by the update,
whether the update changes it or keeps it."""

import pytest

from keel_heat_core.model import rows as r
from tests.unit.worker.fakes import Harness


@pytest.mark.parametrize("value", ["1", "2"])
def test_update_clears_an_old_replacement(value: str) -> None:
    h = Harness(engines=1)
    sid = h.new_stack({"a": {"properties": {"value": "1"}}})
    h.run()
    row = h.rows(sid)["a"]
    # a replacement of an older traversal that failed and is gone
    gone = h.stores.insert_resource(
        r.ResourceRow(id=0, name="a", stack_id=sid, replaces=row.id)
    )
    h.stores.update_resource(row.id, {"replaced_by": gone})
    h.stores.delete_resource(gone)
    h.update(sid, {"a": {"properties": {"value": value}}})
    h.run()
    assert h.state(sid) == "UPDATE_COMPLETE"
    after = h.stores.get_resource(row.id)
    assert after is not None
    assert after.replaced_by is None
    assert after.physical_id == row.physical_id
