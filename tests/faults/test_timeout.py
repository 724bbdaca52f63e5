"""A stack's timeout ends it even when no node watches the clock (#6).

A running node checks the stack's deadline only inside a resource's
``check_<action>_complete`` loop. Here the only node left is stuck
outside it: ``r1`` is created, then its node resolves the attribute
``r2`` needs and that read takes 60 s (``attr_wait_secs``). The resume
pass must fail the stack with Heat's reason, ``Timed out``, once the
timeout (5 s, ``stack_action_timeout``) and the grace passed, long
before the node wakes up. (The pass does not re-cast the node meanwhile:
it runs in this engine, so a re-cast would only start a second 60 s
read.)
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from tests.faults.harness import FaultCloud
from tests.faults.templates import VERSION

pytestmark = [pytest.mark.slow, pytest.mark.rabbit, pytest.mark.postgresql]

TIMEOUT = 5

TEMPLATE = {
    "heat_template_version": VERSION,
    "resources": {
        "r1": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "one", "attr_wait_secs": 60},
        },
        "r2": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": ["r1", "output"]}},
        },
    },
}


@pytest.fixture
def timeout_cloud(
    pg_cloud_factory: Callable[[str], FaultCloud],
) -> FaultCloud:
    return pg_cloud_factory(f"\n[DEFAULT]\nstack_action_timeout = {TIMEOUT}\n")


def test_stack_timeout_with_no_node_watching(
    timeout_cloud: FaultCloud, attempt: int
) -> None:
    cloud = timeout_cloud
    cloud.start_engines(1)
    started = time.monotonic()
    ident = cloud.client.create_stack(
        cloud.ctxt,
        f"timeout-{attempt}",
        TEMPLATE,
        {},
        {},
        {"disable_rollback": True},
    )
    sid = ident["stack_id"]
    cloud.wait_state(sid, "CREATE_FAILED", 40)
    took = time.monotonic() - started
    assert cloud.stack(sid) == ("CREATE_FAILED", "Timed out")
    # the stuck node would have ended it only after its 60 s read
    assert took < 40, took
    rows = {r.name: f"{r.action}_{r.status}" for r in cloud.resources(sid)}
    assert rows == {"r1": "CREATE_COMPLETE", "r2": "INIT_COMPLETE"}
