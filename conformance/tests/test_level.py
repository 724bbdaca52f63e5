"""The CI level: a run below it fails, above it passes with failures."""

import json
from pathlib import Path

from conformance.level import DEFAULT, Level
from conformance.results import FAILED, PASSED, Outcome, Report


def _write(tmp_path: Path, spec: dict[str, object]) -> Level:
    path = tmp_path / "level.json"
    path.write_text(json.dumps(spec))
    return Level.load(path)


def test_a_run_at_the_level_has_no_shortfall(tmp_path: Path) -> None:
    level = _write(
        tmp_path,
        {"_comment": "x", "api": {"min_passed": 2, "must_pass": ["a.t"]}},
    )
    report = Report(
        [
            Outcome("api", "a.t[id-1,smoke]", PASSED),
            Outcome("api", "b.t", PASSED),
            Outcome("api", "c.t", FAILED, "boom"),
        ]
    )
    assert level.shortfalls(report, ("api",)) == []


def test_fewer_passes_or_a_lost_test_is_a_shortfall(tmp_path: Path) -> None:
    level = _write(
        tmp_path, {"api": {"min_passed": 2, "must_pass": ["a.t", "b.t"]}}
    )
    report = Report(
        [Outcome("api", "a.t", PASSED), Outcome("api", "b.t", FAILED, "x")]
    )
    assert level.shortfalls(report, ("api",)) == [
        "api: 1 passed, the level is 2",
        "api: b.t no longer passes",
    ]


def test_suites_not_run_are_not_checked(tmp_path: Path) -> None:
    level = _write(tmp_path, {"gophercloud": {"min_passed": 5}})
    assert level.shortfalls(Report(), ("api",)) == []


def test_a_scenario_is_a_test_of_its_own(tmp_path: Path) -> None:
    test = "h.functional.test_c.RoleBasedExposureTest.test_listed"
    level = _write(
        tmp_path,
        {"integration": {"min_passed": 1, "must_pass": [f"{test}(r_nova)"]}},
    )
    report = Report(
        [
            Outcome("integration", f"{test}(r_nova)", PASSED),
            Outcome("integration", f"{test}(r_qos)", FAILED, "x"),
        ]
    )
    assert level.shortfalls(report, ("integration",)) == []
    lost = Report([Outcome("integration", f"{test}(r_qos)", PASSED)])
    assert level.shortfalls(lost, ("integration",)) == [
        f"integration: {test}(r_nova) no longer passes"
    ]


def test_the_shipped_level_file_reads() -> None:
    level = Level.load(DEFAULT)
    assert set(level.suites) == {
        "api",
        "functional",
        "gophercloud",
        "integration",
    }
    for suite in level.suites.values():
        assert suite.min_passed >= len(suite.must_pass) > 0
