"""Run a series of child-stack changes, one batch after the other.

Groups (ResourceGroup, AutoScalingGroup) apply ``batch_create`` and
``rolling_update`` policies as several updates of their child stack, with
a pause between batches.  A :class:`BatchSeries` is the handle data of such
an action: each ``check_*_complete`` call advances it without blocking.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: Builds the child template of one batch when the batch starts.
TemplateMaker = Callable[[], dict[str, Any]]


class BatchSeries:
    """Child-stack changes and pauses, run in order.

    :param resource: the StackResource whose child stack changes.
    :param timeout_mins: the timeout given to each child update.
    """

    def __init__(self, resource: Any, timeout_mins: float | None) -> None:
        self.resource = resource
        self.timeout_mins = timeout_mins
        self.steps: list[tuple[str, Any]] = []
        self._index = 0
        self._started = False
        self._cookie: Any = None
        self._action = ""
        self._pause_until = 0.0

    def add_change(self, make_template: TemplateMaker) -> None:
        """Append a child-stack change (create if there is no child yet)."""
        self.steps.append(("change", make_template))

    def add_pause(self, seconds: float) -> None:
        """Append a pause between two changes."""
        if seconds > 0:
            self.steps.append(("pause", seconds))

    def __len__(self) -> int:
        return len(self.steps)

    def _start(self, kind: str, arg: Any) -> None:
        res = self.resource
        if kind == "pause":
            self._pause_until = time.monotonic() + float(arg)
        elif res.resource_id is None:
            res.create_with_template(arg(), {}, self.timeout_mins)
            self._action, self._cookie = res.CREATE, None
        else:
            self._cookie = res.update_with_template(
                arg(), {}, self.timeout_mins
            )
            self._action = res.UPDATE
        self._started = True

    def _step_done(self, kind: str) -> bool:
        if kind == "pause":
            return time.monotonic() >= self._pause_until
        return bool(
            self.resource._check_status_complete(self._action, self._cookie)
        )

    def step(self) -> bool:
        """Advance; True once every step is done."""
        while self._index < len(self.steps):
            kind, arg = self.steps[self._index]
            if not self._started:
                self._start(kind, arg)
            if not self._step_done(kind):
                return False
            self._index += 1
            self._started = False
        return True
