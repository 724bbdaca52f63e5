"""Request tracing with osprofiler, turned on by ``[profiler] enabled``.

A trace starts at the API: a request signed with one of ``[profiler]
hmac_keys`` (``openstack --os-profile <key> stack ...``) opens a ``wsgi``
span, and every span below it goes to ``[profiler] connection_string``
with the same base id, so that ``osprofiler trace show <id>`` draws the
request across processes. From the API the trace travels to the engine
with the request's context on the bus: only the trace's ids go, never
the HMAC key, which each process reads from its own configuration. In
the engine each RPC method is a ``rpc`` span, each SQL statement a
``db`` span (``[profiler] trace_sqlalchemy``).

With ``[profiler] enabled = False`` (the default) nothing is set up and
each call here costs one check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from oslo_config import cfg
from osprofiler import initializer, profiler, web

PROJECT = "keel-heat"
#: the key under which a trace's ids travel in a bus context
CONTEXT_KEY = "trace_info"

_state: dict[str, str] = {}

T = TypeVar("T")


def enabled(conf: cfg.ConfigOpts) -> bool:
    """Whether ``[profiler] enabled`` is set (and the group registered)."""
    return "profiler" in conf and bool(conf.profiler.enabled)


def setup(conf: cfg.ConfigOpts, service: str, host: str | None = None) -> None:
    """Send this process's spans to ``[profiler] connection_string``.

    :param service: the process's part, e.g. ``engine``, ``api``.
    :param host: the host name in each span (``[DEFAULT] host``).
    """
    if not enabled(conf):
        return
    initializer.init_from_conf(
        conf=conf,
        context={},
        project=PROJECT,
        service=service,
        host=host or conf.host,
    )
    keys = [k.strip() for k in (conf.profiler.hmac_keys or "").split(",")]
    _state["hmac_key"] = next((k for k in keys if k), "")


def wsgi(app: Any, conf: cfg.ConfigOpts) -> Any:
    """``app`` behind osprofiler's middleware when profiling is on."""
    if not enabled(conf):
        return app
    return web.WsgiMiddleware(
        app, hmac_keys=conf.profiler.hmac_keys, enabled=True
    )


def outgoing() -> dict[str, str] | None:
    """The ids of the trace this thread is in, for a bus context."""
    active = profiler.get()
    if active is None:
        return None
    return {"base_id": active.get_base_id(), "parent_id": active.get_id()}


def incoming(info: Mapping[str, Any] | None) -> None:
    """Continue the trace of a received context in this thread, or leave
    any earlier trace (a pool thread serves many messages)."""
    key = _state.get("hmac_key")
    if not info or not key:
        profiler.clean()
        return
    profiler.init(
        hmac_key=key,
        base_id=str(info.get("base_id")),
        parent_id=str(info.get("parent_id")),
    )


def traced(name: str) -> Callable[[type[T]], type[T]]:
    """A class decorator: each public method is a ``name`` span."""
    decorate: Callable[[type[T]], type[T]] = profiler.trace_cls(name)
    return decorate
