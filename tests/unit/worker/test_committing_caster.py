"""``CommittingCaster``: a check_resource cast goes out after the calling
thread's run of releases committed; the caster's other casts pass
through as they are."""

from __future__ import annotations

from typing import Any

from keel_heat_core.worker.deps import CommittingCaster, _NoCommitRuns


class Caster:
    def __init__(self, calls: list[Any]) -> None:
        self.calls = calls

    def check_resource(
        self, ctxt: Any, resource_id: int | str, *rest: Any, **kw: Any
    ) -> None:
        self.calls.append(("cast", resource_id))

    def stack_finished(self, ctxt: Any, stack_id: str) -> None:
        self.calls.append(("finished", stack_id))


class Runs(_NoCommitRuns):
    def __init__(self, calls: list[Any]) -> None:
        self.calls = calls

    def flush(self) -> None:
        self.calls.append("flush")


def test_a_cast_goes_out_after_the_run_committed() -> None:
    calls: list[Any] = []
    caster = CommittingCaster(Caster(calls), Runs(calls))
    caster.check_resource({}, 7, "traversal", {}, True)
    assert calls == ["flush", ("cast", 7)]


def test_the_casters_other_casts_are_its_own() -> None:
    calls: list[Any] = []
    caster = CommittingCaster(Caster(calls), Runs(calls))
    caster.stack_finished({}, "child")
    assert calls == [("finished", "child")]
    # what the caster lacks, the wrapper lacks (callers ask with getattr)
    assert getattr(caster, "cancel_check_resource", None) is None
