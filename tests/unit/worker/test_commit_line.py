"""``LineCommits``: which node a ``check_resource`` call runs after each
one when its releases share commits, and from where it runs a line
again whose run was rolled back."""

from __future__ import annotations

from typing import Any

from keel_heat_core.exception import RunLost
from keel_heat_core.worker.commit_line import LineCommits, Step


class Runs:
    """A thread's runs as the driver sees them, set by each test."""

    def __init__(self) -> None:
        self.open: int | None = None
        self.is_lost = False
        self.flush_fails = False
        self.on = False
        self.flushes = 0

    def start(self) -> bool:
        self.on = True
        return True

    def stop(self) -> None:
        self.flush()
        self.on = False

    def flush(self) -> None:
        if self.is_lost:
            raise RunLost()
        if self.open is not None and self.flush_fails:
            self.is_lost = True
            raise RunLost()
        self.flushes += 1
        self.open = None

    def serial(self) -> int | None:
        return self.open

    def lost(self) -> bool:
        return self.is_lost

    def recover(self) -> None:
        self.is_lost = False
        self.open = None


def step(resource_id: int) -> Step:
    args: tuple[Any, ...] = ("traversal", {}, False)
    return ({}, resource_id, args, {}, None)


def test_the_kept_successor_runs_next_and_the_end_commits() -> None:
    runs = Runs()
    line = LineCommits(runs)
    runs.open = 1  # node 1's release opened run 1
    assert line.after(step(1), step(2)) == step(2)
    assert line.after(step(2), step(3)) == step(3)
    assert runs.flushes == 0
    assert line.after(step(3), None) is None  # nothing kept: commit
    assert runs.flushes == 1
    line.stop()
    assert not runs.on


def test_a_lost_run_runs_again_from_the_node_that_opened_it() -> None:
    runs = Runs()
    line = LineCommits(runs)
    line.after(step(1), step(2))  # node 1 committed by itself
    runs.open = 1
    line.after(step(2), step(3))  # node 2 opened run 1
    line.after(step(3), step(4))
    runs.is_lost = True  # node 4's release failed: run 1 undone
    assert line.after(step(4), None) == step(2)
    assert not runs.lost()
    assert not runs.on  # the rest of the call commits node by node
    assert line.after(step(2), step(3)) == step(3)


def test_a_run_lost_in_the_node_that_opened_it_runs_that_node() -> None:
    runs = Runs()
    line = LineCommits(runs)
    runs.open = 1
    line.after(step(1), step(2))  # run 1, opened by node 1
    runs.open = 2  # node 2 committed run 1, opened run 2 and lost it
    runs.is_lost = True
    assert line.after(step(2), step(3)) == step(2)


def test_a_run_that_fails_to_commit_at_the_end_runs_again() -> None:
    runs = Runs()
    line = LineCommits(runs)
    runs.open = 1
    line.after(step(5), step(6))
    runs.flush_fails = True
    assert line.after(step(6), None) == step(5)
