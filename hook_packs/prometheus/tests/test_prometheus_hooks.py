"""The hook functions through the core's hook facade, with fake stacks
and resources and a registry of this process (no multiprocess files)."""

from __future__ import annotations

import datetime
import types

import prometheus_client as prom
import pytest
from keel_heat_metrics_prometheus import hooks as metric_hooks
from keel_heat_metrics_prometheus.metrics import make_metrics

from keel_heat_core import plugin_api as api
from keel_heat_core import plugins


@pytest.fixture
def registry():
    reg = prom.CollectorRegistry()
    metric_hooks.use(make_metrics(reg))
    yield reg
    metric_hooks.use(None)


@pytest.fixture
def manager():
    hooks = plugins.HookManager()
    hooks.register(metric_hooks, "keel-heat-metrics-prometheus:prometheus")
    hooks.check_pending()
    return hooks


class FakeResource:
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def type(self) -> str:
        return self.kind


def value(registry, name, **labels):
    return registry.get_sample_value(name, labels) or 0.0


def test_resource_action_counts_time_and_failures(registry, manager):
    res = FakeResource("OS::Heat::TestResource")
    assert manager.resource_action(None, res, "CREATE", lambda: "ok") == "ok"

    def fail():
        raise api.exception.Error("boom")

    with pytest.raises(api.exception.Error):
        manager.resource_action(None, res, "CREATE", fail)

    def replace():
        raise api.exception.UpdateReplace("r")

    with pytest.raises(api.exception.UpdateReplace):
        manager.resource_action(None, res, "UPDATE", replace)
    labels = {"type": "OS::Heat::TestResource", "action": "CREATE"}
    assert (
        value(registry, "keel_heat_resource_action_seconds_count", **labels)
        == 2
    )
    assert (
        value(registry, "keel_heat_resource_action_failures_total", **labels)
        == 1
    )
    update = {**labels, "action": "UPDATE"}
    assert (
        value(registry, "keel_heat_resource_action_failures_total", **update)
        == 0
    )
    assert (
        value(registry, "keel_heat_resource_actions_in_progress", **labels)
        == 0
    )


def test_in_progress_while_the_action_runs(registry, manager):
    res = FakeResource("OS::Heat::RandomString")
    seen = []

    def run():
        seen.append(
            value(
                registry,
                "keel_heat_resource_actions_in_progress",
                type="OS::Heat::RandomString",
                action="DELETE",
            )
        )

    manager.resource_action(None, res, "DELETE", run)
    assert seen == [1.0]


def stack(**kw):
    base = {
        "action": "CREATE",
        "status": "INIT",
        "current_traversal": "",
        "updated_at": None,
        "created_at": None,
    }
    return types.SimpleNamespace(**{**base, **kw})


def test_stack_operation_outcome_and_duration(registry, manager):
    started = datetime.datetime.now(datetime.UTC).replace(
        tzinfo=None
    ) - datetime.timedelta(seconds=3)
    # the engine writes a new stack's row CREATE IN_PROGRESS first
    new = stack(status="IN_PROGRESS", current_traversal="t0")
    manager.stack_pre_operation(None, new, "CREATE")
    assert (
        value(
            registry, "keel_heat_stack_operations_in_progress", action="CREATE"
        )
        == 1
    )
    manager.stack_post_operation(
        None, stack(created_at=started), "CREATE", "FAILED"
    )
    assert (
        value(
            registry, "keel_heat_stack_operations_in_progress", action="CREATE"
        )
        == 0
    )
    assert (
        value(
            registry,
            "keel_heat_stack_operations_total",
            action="CREATE",
            status="FAILED",
        )
        == 1
    )
    total = value(
        registry, "keel_heat_stack_operation_seconds_sum", action="CREATE"
    )
    assert 3 <= total < 60


def test_an_update_during_a_create_supersedes_it(registry, manager):
    manager.stack_pre_operation(None, stack(), "CREATE")
    running = stack(status="IN_PROGRESS", current_traversal="t1")
    manager.stack_pre_operation(None, running, "UPDATE")
    gauge = "keel_heat_stack_operations_in_progress"
    assert value(registry, gauge, action="CREATE") == 0
    assert value(registry, gauge, action="UPDATE") == 1
    assert (
        value(
            registry,
            "keel_heat_stack_operations_total",
            action="CREATE",
            status="SUPERSEDED",
        )
        == 1
    )


def test_events_conflicts_resumes_and_rpc(registry, manager):
    manager.emit_event(None, {"resource_status": "COMPLETE"})
    manager.emit_event(None, {"resource_status": "COMPLETE"})
    manager.emit_event(None, {"resource_status": "FAILED"})
    manager.resource_lock_conflict(None, "s", "r", "other-engine")
    manager.traversal_resume(None, "s", "t", "engine_down")
    manager.rpc_call("show_stack", lambda: None)

    def missing():
        raise api.exception.EntityNotFound(entity="Stack", name="x")

    with pytest.raises(api.exception.EntityNotFound):
        manager.rpc_call("show_stack", missing)
    assert value(registry, "keel_heat_events_total", status="COMPLETE") == 2
    assert value(registry, "keel_heat_events_total", status="FAILED") == 1
    assert value(registry, "keel_heat_resource_lock_conflicts_total") == 1
    assert (
        value(
            registry, "keel_heat_traversal_resumes_total", reason="engine_down"
        )
        == 1
    )
    assert (
        value(
            registry, "keel_heat_rpc_call_seconds_count", method="show_stack"
        )
        == 2
    )
    assert (
        value(registry, "keel_heat_rpc_call_errors_total", method="show_stack")
        == 1
    )


def test_nothing_is_measured_before_the_engine_starts(manager):
    metric_hooks.use(None)
    res = FakeResource("OS::Heat::None")
    assert manager.resource_action(None, res, "CREATE", lambda: 5) == 5
    manager.stack_pre_operation(None, stack(), "CREATE")
    manager.emit_event(None, {"resource_status": "COMPLETE"})
