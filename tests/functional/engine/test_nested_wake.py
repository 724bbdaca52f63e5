"""The end of a nested stack wakes its parent resource's poll.

Two engines on MariaDB and the real RabbitMQ, with the poll of a resource
action set to 60 s: a ResourceGroup's create, update and delete can only
finish within the test's 30 s because the child stack's end wakes the
parent's check, in the engine that finished the child or, over the
broker's fanout, in the other one.
"""

from __future__ import annotations

import functools
import pathlib
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from keel_heat_core.db import stack as stack_repo
from tests.functional.engine.stacks import Cloud, scratch_database, wait_for
from tests.functional.engine.test_stacks_sqlite import group

pytestmark = [pytest.mark.rabbit, pytest.mark.mariadb]

RABBIT = "rabbit://guest:guest@127.0.0.1:5672/"
#: longer than the test waits: a step that needs a poll fails
SLOW_POLL = 60.0


@pytest.fixture
def cloud(tmp_path: pathlib.Path) -> Iterator[Cloud]:
    with scratch_database("mariadb", tmp_path) as url:
        cloud = Cloud(url, transport_url=RABBIT)
        try:
            for index in range(len(cloud.engines)):
                _deps(cloud, index).poll_interval = SLOW_POLL
            yield cloud
        finally:
            cloud.close()


def _deps(cloud: Cloud, index: int) -> Any:
    check = cloud.engines[index].check
    assert check is not None
    return check.deps


def _state(cloud: Cloud, stack_id: str) -> str:
    rec = stack_repo.get(cloud.db, stack_id, show_deleted=True)
    assert rec is not None
    return f"{rec.action}_{rec.status}"


def _finished(cloud: Cloud, stack_id: str, action: str) -> bool:
    return _state(cloud, stack_id) != f"{action}_IN_PROGRESS"


def test_a_resource_group_does_not_wait_for_its_next_poll(
    cloud: Cloud,
) -> None:
    api = cloud.endpoint(0)
    ident = api.create_stack(cloud.ctxt, "woken", group(3), {}, {}, {})
    sid = ident["stack_id"]
    for action, template in (("CREATE", None), ("UPDATE", group(2))):
        if template is not None:
            api.update_stack(cloud.ctxt, ident, template, {}, {}, {})
        wait_for(
            functools.partial(_finished, cloud, sid, action),
            timeout=30,
            what=f"{action} of the group",
        )
        assert _state(cloud, sid) == f"{action}_COMPLETE"
    api.delete_stack(cloud.ctxt, ident)
    wait_for(
        functools.partial(_finished, cloud, sid, "DELETE"),
        timeout=30,
        what="delete of the group",
    )
    assert _state(cloud, sid) == "DELETE_COMPLETE"


def test_the_fanout_reaches_the_other_engine(cloud: Cloud) -> None:
    woken = threading.Event()
    other = _deps(cloud, 1)
    with other.waiters.watching(["a-child-stack"], woken):
        _deps(cloud, 0).caster.stack_finished({}, "a-child-stack")
        assert woken.wait(10), "the fanout cast never reached engine 1"
