"""A stack of N resources costs O(N) database statements, not O(N^2)."""

import pathlib
import time

import sqlalchemy as sa

from keel_heat_core.db import stack as stack_repo
from tests.functional.engine.stacks import Cloud, scratch_database


def statements_to_create(tmp: pathlib.Path, count: int) -> int:
    template = {
        "heat_template_version": "2021-04-16",
        "resources": {
            f"r{i}": {
                "type": "OS::Heat::None",
                "depends_on": [f"r{i - 1}"] if i % 2 else [],
            }
            for i in range(count)
        },
    }
    with scratch_database("sqlite", tmp) as url:
        cloud = Cloud(url, resume_interval=3600)
        seen = [0]

        def counter(*_: object) -> None:
            seen[0] += 1

        try:
            sa.event.listen(cloud.db.engine, "before_cursor_execute", counter)
            ident = cloud.endpoint(0).create_stack(
                cloud.ctxt, "rt", template, {}, {}, {}
            )
            sa.event.remove(cloud.db.engine, "before_cursor_execute", counter)
            while True:  # polls are not counted
                rec = stack_repo.get(cloud.db, ident["stack_id"])
                assert rec is not None
                if rec.status != "IN_PROGRESS":
                    break
                sa.event.listen(
                    cloud.db.engine, "before_cursor_execute", counter
                )
                time.sleep(0.2)
                sa.event.remove(
                    cloud.db.engine, "before_cursor_execute", counter
                )
            assert rec.status == "COMPLETE", rec.status_reason
        finally:
            cloud.close()
    return seen[0]


def test_statements_grow_linearly(tmp_path: pathlib.Path) -> None:
    small = statements_to_create(tmp_path, 10)
    large = statements_to_create(tmp_path, 40)
    # about 20 statements (plus BEGINs) per resource, whatever the size
    assert large / 40 < 60
    assert large < small * 4 * 1.3
