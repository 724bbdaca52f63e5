"""Unit checks of the report's medians (run by hand, not in CI):

.venv/bin/python -m pytest -p no:cacheprovider bench/test_report.py
"""

from __future__ import annotations

from typing import Any

from bench import report


def _row(label: str, case: str, seconds: float, **more: Any) -> dict[str, Any]:
    return {
        "label": label,
        "case": case,
        "shape": "chain",
        "n": 100,
        "status": "COMPLETE",
        "seconds": seconds,
        **more,
    }


def test_a_case_run_several_times_is_its_median() -> None:
    rows = [
        _row("keel", "create", 1.6),
        _row("keel", "create", 1.2),
        _row("keel", "create", 1.3),
        _row("keel", "delete", 0.9),
        _row("keel", "create", 9.0, status="ERROR"),
    ]
    by_case = {r["case"]: r for r in report.medians(rows)}
    assert by_case["create"]["seconds"] == 1.3
    assert by_case["create"]["runs"] == 3  # the failed run left out
    assert by_case["create"]["spread"] == [1.2, 1.6]
    assert by_case["delete"]["runs"] == 1
    assert "median of 3, 1.2-1.6" in report._fmt(by_case["create"])
    assert "median" not in report._fmt(by_case["delete"])


def test_throughput_medians_and_labels_kept_apart() -> None:
    rows = [
        {"label": "a", "case": "list", "concurrency": 8, "req_per_s": r,
         "p50": 0.01, "p99": 0.02}
        for r in (50.0, 70.0, 60.0, 65.0)
    ]  # fmt: skip
    rows.append({**rows[0], "label": "b", "req_per_s": 10.0})
    found = {r["label"]: r for r in report.medians(rows)}
    assert found["a"]["req_per_s"] == 62.5 and found["a"]["runs"] == 4
    assert found["b"]["req_per_s"] == 10.0


def test_heat_comparison_takes_medians_not_the_last_run() -> None:
    rows = [
        _row("heat27", "create", 8.0),
        _row("heat27", "create", 8.4),
        _row("heat27", "create", 7.8),
        _row("keel", "create", 1.0),
        _row("keel", "create", 2.0),  # a slow last run
        _row("keel", "create", 1.0),
    ]
    text = report.vs_heat(rows)
    assert "| 8.0x |" in text  # 8.0 / 1.0, not 8.0 / 2.0
    compared = report.compare(rows[3:], rows[:3])
    assert "| 8.0x |" in compared
