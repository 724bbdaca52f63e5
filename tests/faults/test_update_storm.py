"""A burst of 20 updates to one stack (issue #6).

Each update changes the set of resources and their values while the
previous traversal is still running; each new traversal preempts the
last. The last template must win: one row per resource of it, with its
properties, nothing left of the earlier templates, no stack
IN_PROGRESS.
"""

from __future__ import annotations

import json
import random

import pytest

from tests.faults.harness import FaultCloud
from tests.faults.templates import named

pytestmark = [pytest.mark.slow, pytest.mark.rabbit, pytest.mark.postgresql]

UPDATES = 20
POOL = [f"r{i:02d}" for i in range(30)]


def test_burst_of_updates(pg_cloud: FaultCloud, attempt: int) -> None:
    cloud = pg_cloud
    cloud.start_engines(2)
    rand = random.Random(attempt)
    ident = cloud.client.create_stack(
        cloud.ctxt,
        f"storm-{attempt}",
        named(POOL[:10], "v0", 0.5),
        {},
        {},
        {},
    )
    sid = ident["stack_id"]
    names: list[str] = []
    for number in range(1, UPDATES + 1):
        names = sorted(rand.sample(POOL, rand.randint(5, 15)))
        template = named(names, f"v{number}", rand.choice([0, 0.5, 1]))
        cloud.client.update_stack(cloud.ctxt, ident, template, {}, {}, {})
    cloud.wait_state(sid, "UPDATE_COMPLETE", 180)
    rows = cloud.resources(sid)
    (cloud.tmp / "rows.txt").write_text(
        "\n".join(str(tuple(r)) for r in rows) + f"\n{names}\n"
    )
    assert sorted(r.name for r in rows) == names, (
        names,
        [(r.id, r.name, r.action, r.status, r.current_template_id,
          r.replaces, r.status_reason) for r in rows],
    )  # fmt: skip
    for row in rows:
        assert (row.action, row.status) in {
            ("CREATE", "COMPLETE"),
            ("UPDATE", "COMPLETE"),
        }, row
        assert row.engine_id is None
        assert row.replaced_by is None
        props = (
            json.loads(row.props) if isinstance(row.props, str) else row.props
        )
        assert props["value"] == f"v{UPDATES}", (row.name, props)
