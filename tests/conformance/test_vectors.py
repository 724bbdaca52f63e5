"""The Heat 27 vectors, through the service (see runner.py).

Every vector is a stack-create request to an in-process keel-heat (the
native API over HTTP, the real engine on the ``fake://`` transport,
SQLite), followed by a stack show, and a ``POST /validate`` of the same
body. The pass rate must not fall below the recorded level, and every
documented deliberate difference must hold.
"""

from __future__ import annotations

import functools

from tests.conformance.runner import Result, run_all


@functools.cache
def _results() -> tuple[Result, ...]:
    return tuple(run_all())


#: Vectors passing when this was recorded (of those compared).
RECORDED_PASSES = 845
#: Vectors whose ``POST /validate`` record matches (all 877 are compared).
RECORDED_VALIDATE_PASSES = 877


def test_pass_rate_does_not_regress() -> None:
    results = _results()
    compared = [r for r in results if not r.deliberate]
    failures = [r for r in compared if not r.ok]
    passed = len(compared) - len(failures)
    rate = 100.0 * passed / len(compared)
    print(f"{passed}/{len(compared)} vectors pass ({rate:.1f}%)")
    assert passed >= RECORDED_PASSES, "\n".join(
        f"{r.vector_id}: {'; '.join(r.problems)}" for r in failures
    )


def test_deliberate_differences_hold() -> None:
    broken = [r for r in _results() if r.deliberate and not r.ok]
    assert not broken, [r.vector_id for r in broken]


def test_template_validate_does_not_regress() -> None:
    results = _results()
    failures = [r for r in results if not r.validate_ok]
    passed = len(results) - len(failures)
    print(f"template-validate: {passed}/{len(results)} vectors pass")
    assert passed >= RECORDED_VALIDATE_PASSES, "\n".join(
        f"{r.vector_id}: {'; '.join(r.validate_problems)}" for r in failures
    )
