"""An EngineBackend over the in-memory stores of the worker tests."""

from __future__ import annotations

from typing import Any

from keel_heat_core.worker.check_resource import CheckResource
from keel_heat_core.worker.deps import Caster, Liveness, WorkerDeps
from tests.unit.worker.fakes import Harness, TestResource


class MemoryBackend:
    """Shares one :class:`Harness`'s stores among several engines."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self.deps: dict[str, WorkerDeps] = {}

    def worker_deps(
        self, engine_id: str, caster: Caster, liveness: Liveness
    ) -> WorkerDeps:
        h = self.harness
        deps = h.deps(engine_id)
        deps.caster = caster
        deps.liveness = liveness
        deps.poll_interval = 0.01
        deps.plugins = lambda d, row, props, s: TestResource(
            h.cloud, row, props
        )
        self.deps[engine_id] = deps
        return deps

    def engine_endpoints(
        self, deps: WorkerDeps, check: CheckResource
    ) -> list[object]:
        return []

    def services(self) -> Any:
        return None
