"""The commits of a ``check_resource`` call's line of nodes: their
releases share commits (``keel_heat_core.db.commit_runs``), and a run
rolled back is run again from its first node (``docs/design/resume.md``,
"Committing a line in runs")."""

from __future__ import annotations

import logging
from typing import Any

from keel_heat_core.exception import RunLost
from keel_heat_core.worker.deps import CommitRuns

LOG = logging.getLogger(__name__)

#: one node of the call: ``(ctxt, resource id, args, kw, its first read
#: or None)``
Step = tuple[Any, int, tuple[Any, ...], dict[str, Any], Any]


class LineCommits:
    """The commits of a ``check_resource`` call's line of nodes
    (``keel_heat_core.db.commit_runs``): which node's release opened the
    run still open, and what to run next when a run was rolled back (the
    nodes from that one on; runs are off for the rest of the call then).
    """

    def __init__(self, commits: CommitRuns) -> None:
        self._commits = commits
        self._on = commits.start()
        #: the open run's number and the step whose release opened it
        self._opened: tuple[int, Step] | None = None

    def after(self, done: Step, step: Step | None) -> Step | None:
        """What runs after ``done`` (given without its first read), which
        kept ``step`` for this thread: ``step``; or nothing, the run
        committed; or, the run lost, the step that opened it."""
        if not self._on:
            return step
        commits = self._commits
        serial = commits.serial()
        if not commits.lost():
            if serial is None:
                self._opened = None
            elif self._opened is None or self._opened[0] != serial:
                self._opened = (serial, done)
            if step is not None:
                return step
            if self._committed():
                return None
        commits.recover()
        commits.stop()
        self._on = False
        opened = self._opened
        # the lost run was opened by ``done`` when it is not the one noted
        again = opened[1] if opened and opened[0] == serial else done
        LOG.info(
            "A shared commit was rolled back: resource %s runs again", again[1]
        )
        return again

    def _committed(self) -> bool:
        """Commit the open run; False when it was lost doing so."""
        try:
            self._commits.flush()
        except RunLost:
            return False
        return True

    def stop(self) -> None:
        """The call ends: commit what is open."""
        if not self._on:
            return
        try:
            self._commits.stop()
        except RunLost:  # only after a node's own unexpected error
            self._commits.recover()
            LOG.warning("A shared commit was lost; the resume pass re-runs it")
