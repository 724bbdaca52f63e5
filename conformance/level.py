"""The level a conformance run must reach to count as green in CI.

``conformance/level.json`` records, per suite, the fewest tests that must
pass and the tests that must be among them. A run below it is a
regression and fails; failures above the level are printed in the summary
but do not fail the run, so CI can gate on what has been reached while the
summary still shows every test that does not pass yet. Raise the level
when more tests pass; never lower it to make a run green.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from conformance.results import PASSED, Report

#: The level file shipped with the harness.
DEFAULT = Path(__file__).with_name("level.json")


@dataclass(frozen=True)
class SuiteLevel:
    """What one suite must reach.

    :ivar min_passed: the fewest passing tests.
    :ivar must_pass: tests (ids without tempest's ``[...]`` tags) that
        must pass.
    """

    min_passed: int = 0
    must_pass: tuple[str, ...] = ()


@dataclass(frozen=True)
class Level:
    """Per-suite levels, read from a level file."""

    suites: dict[str, SuiteLevel] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Level:
        """Read a level file (``{suite: {min_passed, must_pass}}``)."""
        raw = json.loads(path.read_text())
        suites = {
            name: SuiteLevel(
                int(spec.get("min_passed", 0)),
                tuple(dict.fromkeys(spec.get("must_pass", ()))),
            )
            for name, spec in raw.items()
            if not name.startswith("_")
        }
        return cls(suites)

    def shortfalls(self, report: Report, chosen: tuple[str, ...]) -> list[str]:
        """Return why ``report`` is below this level (empty: it is not).

        :param report: the run's outcomes.
        :param chosen: the suites that were run; others are not checked.
        """
        out: list[str] = []
        for name, level in self.suites.items():
            if name not in chosen:
                continue
            rows = [
                o.test_id.split("[", 1)[0]
                for o in report.outcomes
                if o.suite == name and o.status == PASSED
            ]
            passed = set(rows)
            if len(rows) < level.min_passed:
                out.append(
                    f"{name}: {len(rows)} passed, the level is "
                    f"{level.min_passed}"
                )
            out.extend(
                f"{name}: {test} no longer passes"
                for test in level.must_pass
                if test not in passed
            )
        return out
