"""The metrics of an engine process.

Names follow Prometheus' conventions (``_total`` counters, ``_seconds``
histograms). In-progress gauges of stack operations may be raised in one
engine process and lowered in another (a traversal moves between
engines), so they add up every process that ever wrote them
(``multiprocess_mode="sum"``); a resource action starts and ends in one
process, so its gauge counts only live processes (``livesum``).
"""

from __future__ import annotations

import dataclasses

import prometheus_client as prom
from prometheus_client import registry as prom_registry

#: seconds: from a quick delete to a long server create or nested stack
ACTION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)
STACK_BUCKETS = (0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
RPC_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


@dataclasses.dataclass
class Metrics:
    """The metric objects, made once per process."""

    stack_in_progress: prom.Gauge
    stack_operations: prom.Counter
    stack_seconds: prom.Histogram
    resource_in_progress: prom.Gauge
    resource_seconds: prom.Histogram
    resource_failures: prom.Counter
    events: prom.Counter
    lock_conflicts: prom.Counter
    resumes: prom.Counter
    rpc_seconds: prom.Histogram
    rpc_errors: prom.Counter


def make_metrics(
    registry: prom_registry.CollectorRegistry | None = None,
) -> Metrics:
    """Make the metric objects.

    :param registry: where to register them; ``None`` in multiprocess
        mode, where the values live in files and a
        ``MultiProcessCollector`` reads them back.
    """
    return Metrics(
        stack_in_progress=prom.Gauge(
            "keel_heat_stack_operations_in_progress",
            "Stack operations (traversals) started and not yet ended.",
            ["action"],
            multiprocess_mode="sum",
            registry=registry,
        ),
        stack_operations=prom.Counter(
            "keel_heat_stack_operations",
            "Stack operations ended, by action and final status "
            "(COMPLETE, FAILED, or SUPERSEDED by a newer operation).",
            ["action", "status"],
            registry=registry,
        ),
        stack_seconds=prom.Histogram(
            "keel_heat_stack_operation_seconds",
            "Duration of stack operations that reached a final state.",
            ["action"],
            buckets=STACK_BUCKETS,
            registry=registry,
        ),
        resource_in_progress=prom.Gauge(
            "keel_heat_resource_actions_in_progress",
            "Resource actions running now.",
            ["type", "action"],
            multiprocess_mode="livesum",
            registry=registry,
        ),
        resource_seconds=prom.Histogram(
            "keel_heat_resource_action_seconds",
            "Duration of resource actions (handle and completion checks).",
            ["type", "action"],
            buckets=ACTION_BUCKETS,
            registry=registry,
        ),
        resource_failures=prom.Counter(
            "keel_heat_resource_action_failures",
            "Resource actions that failed (timeouts and cancels included; "
            "a replacement asked for by an update is no failure).",
            ["type", "action"],
            registry=registry,
        ),
        events=prom.Counter(
            "keel_heat_events",
            "Stack and resource events stored, by status.",
            ["status"],
            registry=registry,
        ),
        lock_conflicts=prom.Counter(
            "keel_heat_resource_lock_conflicts",
            "Resource locks found held by another live engine.",
            registry=registry,
        ),
        resumes=prom.Counter(
            "keel_heat_traversal_resumes",
            "Nodes of stalled traversals re-driven by a resume pass "
            "(engine_down: the lock holder died; stalled: a lost message).",
            ["reason"],
            registry=registry,
        ),
        rpc_seconds=prom.Histogram(
            "keel_heat_rpc_call_seconds",
            "Time the engine took to answer engine API calls.",
            ["method"],
            buckets=RPC_BUCKETS,
            registry=registry,
        ),
        rpc_errors=prom.Counter(
            "keel_heat_rpc_call_errors",
            "Engine API calls answered with an error.",
            ["method"],
            registry=registry,
        ),
    )
