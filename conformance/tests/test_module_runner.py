"""The two-slot module scheduler, with a stand-in interpreter."""

import stat
from pathlib import Path

from conformance.module_runner import (
    join_streams,
    largest_first,
    module_of,
    run_modules,
)

# Called as `<runner> <module>`: prints the module's name and sleeps as
# long as its last component says.
FAKE_RUNNER = """#!/bin/sh
printf '%s;' "$1"
sleep "${1##*_}"
"""


def _python(tmp_path: Path) -> list[str]:
    runner = tmp_path / "runner"
    runner.write_text(FAKE_RUNNER)
    runner.chmod(runner.stat().st_mode | stat.S_IEXEC)
    return [str(runner)]


def test_module_of_strips_class_test_and_attributes() -> None:
    assert module_of("p.tests.test_hooks.HooksTest.test_x[id-1]") == (
        "p.tests.test_hooks"
    )


def test_modules_with_more_tests_start_first() -> None:
    tests = ["p.a.T.t1", "p.b.T.t1", "p.b.T.t2", "p.c.T.t1", "p.b.U.t3"]
    assert largest_first(tests) == ["p.b", "p.a", "p.c"]


def test_all_modules_run_and_streams_join(tmp_path: Path) -> None:
    modules = ["m.a_0.2", "m.b_0.1", "m.c_0"]
    jobs, schedule = run_modules(
        _python(tmp_path), {}, tmp_path, modules, deadline=30
    )
    assert sorted(schedule.finished) == sorted(modules)
    assert schedule.stopped == [] and schedule.never_started == []
    join_streams(jobs, tmp_path / "all")
    assert (tmp_path / "all").read_text() == "m.a_0.2;m.b_0.1;m.c_0;"


def test_a_slow_module_holds_one_slot_only(tmp_path: Path) -> None:
    modules = ["m.slow_30", "m.x_0", "m.y_0", "m.z_0"]
    jobs, schedule = run_modules(
        _python(tmp_path), {}, tmp_path, modules, deadline=4
    )
    assert schedule.stopped == ["m.slow_30"]
    assert sorted(schedule.finished) == ["m.x_0", "m.y_0", "m.z_0"]
    assert schedule.never_started == []
    assert all(job.process and job.process.poll() is not None for job in jobs)


def test_the_deadline_leaves_the_queue(tmp_path: Path) -> None:
    modules = ["m.a_30", "m.b_30", "m.c_0"]
    _, schedule = run_modules(
        _python(tmp_path), {}, tmp_path, modules, deadline=1
    )
    assert sorted(schedule.stopped) == ["m.a_30", "m.b_30"]
    assert schedule.never_started == ["m.c_0"]
