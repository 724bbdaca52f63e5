"""The hook implementations (entry point ``keel_heat.hooks: prometheus``).

Until the ``engine_start`` hook ran in a process (an API process, a
command-line tool) the hooks do nothing: only engine processes measure.
"""

from __future__ import annotations

import datetime
import logging
import time
from collections.abc import Callable, Generator, Mapping
from typing import Any

from oslo_config import cfg

from keel_heat_core import plugin_api as api
from keel_heat_metrics_prometheus import exposition
from keel_heat_metrics_prometheus.metrics import Metrics

LOG = logging.getLogger(__name__)

#: actions of a stack row just made: they interrupt nothing
NEW_STACK_ACTIONS = frozenset({"CREATE", "ADOPT"})

#: the metrics of this process, once its engine started
_metrics: Metrics | None = None
_endpoint: exposition.Endpoint | None = None


def use(metrics: Metrics | None) -> None:
    """Measure into ``metrics`` from now on (``None``: stop measuring)."""
    global _metrics
    _metrics = metrics


@api.hookimpl
def keel_heat_engine_start(conf: cfg.ConfigOpts, engine_id: str) -> None:
    """Write this process's values to the host's directory, and serve
    them if this process gets the port first."""
    global _endpoint
    if _endpoint is not None:
        return  # one endpoint per process, whatever starts again
    try:
        made, _endpoint = exposition.start(conf)
    except OSError as exc:  # the directory: the engine works without
        LOG.error("Prometheus metrics are off in this process: %s", exc)
        return
    use(made)


def _seconds_since(started: datetime.datetime | None) -> float | None:
    if started is None:
        return None
    if started.tzinfo is None:  # the database's naive UTC
        started = started.replace(tzinfo=datetime.UTC)
    return (datetime.datetime.now(datetime.UTC) - started).total_seconds()


@api.hookimpl
def keel_heat_stack_pre_operation(
    context: Any, stack: Any, action: str
) -> None:
    """One more operation in progress; the one it interrupts (an update
    during a create…) ends here, as no final state will come for it."""
    m = _metrics
    if m is None:
        return
    previous = getattr(stack, "action", None)
    # a new stack's row is written CREATE IN_PROGRESS just before
    if (
        action not in NEW_STACK_ACTIONS
        and getattr(stack, "status", None) == "IN_PROGRESS"
        and getattr(stack, "current_traversal", None)
        and previous
    ):
        m.stack_in_progress.labels(previous).dec()
        m.stack_operations.labels(previous, "SUPERSEDED").inc()
    m.stack_in_progress.labels(action).inc()


@api.hookimpl
def keel_heat_stack_post_operation(
    context: Any, stack: Any, action: str, status: str
) -> None:
    """An operation ended: its outcome and duration."""
    m = _metrics
    if m is None:
        return
    m.stack_in_progress.labels(action).dec()
    m.stack_operations.labels(action, status).inc()
    started = getattr(stack, "updated_at", None) or getattr(
        stack, "created_at", None
    )
    seconds = _seconds_since(started)
    if seconds is not None and seconds >= 0:
        m.stack_seconds.labels(action).observe(seconds)


@api.hookimpl(wrapper=True)
def keel_heat_resource_action(
    context: Any, resource: Any, action: str, run: Callable[[], Any]
) -> Generator[None, Any, Any]:
    """Time the action and count it in progress while it runs."""
    m = _metrics
    if m is None:
        return (yield)
    rtype = _type_of(resource)
    running = m.resource_in_progress.labels(rtype, action)
    running.inc()
    start = time.monotonic()
    try:
        return (yield)
    except api.exception.UpdateReplace:
        raise  # the update asks for a replacement: no failure
    except Exception:
        m.resource_failures.labels(rtype, action).inc()
        raise
    finally:
        running.dec()
        m.resource_seconds.labels(rtype, action).observe(
            time.monotonic() - start
        )


def _type_of(resource: Any) -> str:
    kind = getattr(resource, "type", None)
    return str(kind() if callable(kind) else kind or "unknown")


@api.hookimpl
def keel_heat_emit_event(context: Any, event: Mapping[str, Any]) -> None:
    """Count stored events by status."""
    if _metrics is not None:
        status = event.get("resource_status") or "unknown"
        _metrics.events.labels(status).inc()


@api.hookimpl
def keel_heat_resource_lock_conflict(
    context: Any, stack_id: str, resource_name: str, holder: str
) -> None:
    """Count locks found held by another live engine."""
    if _metrics is not None:
        _metrics.lock_conflicts.inc()


@api.hookimpl
def keel_heat_traversal_resume(
    context: Any, stack_id: str, traversal: str, reason: str
) -> None:
    """Count re-driven nodes by reason."""
    if _metrics is not None:
        _metrics.resumes.labels(reason).inc()


@api.hookimpl
def keel_heat_rpc_call_handled(
    method: str, seconds: float, failed: bool
) -> None:
    """Time of each engine API call, and its errors."""
    if _metrics is not None:
        _metrics.rpc_seconds.labels(method).observe(seconds)
        if failed:
            _metrics.rpc_errors.labels(method).inc()
