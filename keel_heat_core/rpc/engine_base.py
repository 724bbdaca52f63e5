"""Plumbing of the engine RPC client: transport, serializer, errors.

Exceptions the engine raises come back rebuilt by oslo.messaging
(``<Name>_Remote``, subclassing the original); those of a module this
process cannot import arrive as ``RemoteError`` and are rebuilt here as
``<Name>_Remote`` subclasses of :class:`RemoteEngineError`, so that
callers can map any of them by class name.
"""

from __future__ import annotations

import contextlib
import importlib
from typing import Any

from oslo_service import backend as _service_backend

# keel-heat runs without eventlet: unless a process chose otherwise,
# oslo.service (which oslo.messaging imports) uses its threading backend.
if _service_backend.get_backend_type() is None:
    _service_backend.register_backend_default_hook(
        lambda: _service_backend.BackendType.THREADING
    )

import oslo_messaging as messaging  # noqa: E402
from oslo_config import cfg

from keel_heat_core.context import BusContextSerializer
from keel_heat_core.exception import HeatException
from keel_heat_core.rpc import transport as rpc_transport
from keel_heat_core.rpc.payload import PayloadSerializer

__all__ = [
    "ALLOWED_EXMODS",
    "ENGINE_TOPIC",
    "RPCClientBase",
    "RemoteEngineError",
    "context_serializer",
    "get_transport",
    "messaging",
    "rebuild_remote_error",
    "register_tracing_opts",
]

#: The topic the engine API listens on.
ENGINE_TOPIC = "engine"
#: The base version; methods pin newer ones.
BASE_RPC_API_VERSION = "1.0"
#: Modules whose exceptions oslo.messaging may rebuild in this process.
ALLOWED_EXMODS = ["keel_heat_core.exception", "heat.common.exception"]


def _as_rebuilt(err: HeatException) -> HeatException:
    """``err`` as oslo.messaging rebuilds it on the calling side.

    An error a broker transport already rebuilt (its class is the
    ``<Name>_Remote`` subclass oslo.messaging makes) is left as it is:
    rebuilding it once more would double the ``": "`` of path errors
    again.
    """
    if type(err).__name__.endswith("_Remote"):
        return err
    try:
        return type(err)(**err.kwargs)
    except Exception:  # not rebuildable: a broker sends a RemoteError
        return err


class RemoteEngineError(Exception):
    """An engine exception whose class this process cannot import.

    Subclasses are created on the fly and named ``<Name>_Remote``.

    :ivar exc_type: the engine-side class name.
    :ivar message: the engine's message for it.
    :ivar remote_traceback: the engine-side traceback text.
    """

    exc_type = "Exception"

    def __init__(self, message: str, remote_traceback: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.remote_traceback = remote_traceback

    def __str__(self) -> str:
        if self.remote_traceback:
            return self.message + "\n" + self.remote_traceback
        return self.message


_REBUILT: dict[str, type[RemoteEngineError]] = {}


def rebuild_remote_error(err: messaging.RemoteError) -> RemoteEngineError:
    """Turn a generic ``RemoteError`` into a class named like the original.

    :param err: what oslo.messaging raised.
    """
    name = str(err.exc_type or "Exception")
    cls = _REBUILT.get(name)
    if cls is None:
        cls = type(name + "_Remote", (RemoteEngineError,), {})
        cls.exc_type = name
        _REBUILT[name] = cls
    trace = err.traceback or ""
    if isinstance(trace, list | tuple):
        trace = "\n".join(str(line) for line in trace)
    return cls(str(err.value or ""), str(trace))


def context_serializer() -> messaging.Serializer:
    """Return the serializer of engine calls: contexts without secrets."""
    return BusContextSerializer(base=PayloadSerializer())


_GLOBAL_ONLY_OPTS = (
    ("oslo_messaging._tracing.client", "oslo_messaging_tracing"),
    ("oslo_messaging._metrics.client", "oslo_messaging_metrics"),
)


def register_tracing_opts(conf: cfg.ConfigOpts) -> None:
    """Register oslo.messaging's tracing and metrics options on ``conf``.

    oslo.messaging 18 registers them only on the global ``cfg.CONF`` but
    reads them from the transport's configuration, so any RPC client or
    server built on its own ``ConfigOpts`` fails without this.
    """
    for module_name, group in _GLOBAL_ONLY_OPTS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        opts = getattr(module, group, None)
        if opts is None:
            continue
        with contextlib.suppress(cfg.DuplicateOptError):
            conf.register_opts(opts, group=group)


def get_transport(conf: cfg.ConfigOpts) -> messaging.Transport:
    """Return the RPC transport of the configured ``transport_url``."""
    return rpc_transport.get_transport(conf)


class RPCClientBase:
    """Calls and casts to the engine API, topic ``engine``.

    :param conf: configuration (``transport_url``, ``rpc_response_timeout``).
    :param transport: an existing transport; built from ``conf`` if absent.
    """

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        transport: messaging.Transport | None = None,
    ) -> None:
        register_tracing_opts(conf)
        self.transport = transport or get_transport(conf)
        target = messaging.Target(
            topic=ENGINE_TOPIC, version=BASE_RPC_API_VERSION
        )
        self._client = messaging.get_rpc_client(
            self.transport, target, serializer=context_serializer()
        )

    def _prepare(self, version: str | None, timeout: float | None) -> Any:
        kwargs: dict[str, Any] = {}
        if version is not None:
            kwargs["version"] = version
        if timeout is not None:
            kwargs["timeout"] = timeout
        return self._client.prepare(**kwargs) if kwargs else self._client

    def call(
        self,
        ctxt: Any,
        method: str,
        version: str | None = None,
        rpc_timeout: float | None = None,
        **kwargs: Any,
    ) -> Any:
        """Call ``method`` on any engine and return its result.

        :raises RemoteEngineError: for engine exceptions of unknown
            modules; others are raised as oslo.messaging rebuilt them.
        """
        try:
            return self._prepare(version, rpc_timeout).call(
                ctxt, method, **kwargs
            )
        except messaging.RemoteError as err:
            raise rebuild_remote_error(err) from None
        except HeatException as err:
            # The in-process transports (inproc://, fake://) hand over
            # the engine's own exception object; a broker transport
            # rebuilds it from its keyword arguments, which changes some
            # texts (Heat's doubled ": " in path errors). Rebuild here
            # too, so that the API answers the same on every transport.
            raise _as_rebuilt(err) from None

    def cast(
        self, ctxt: Any, method: str, version: str | None = None, **kwargs: Any
    ) -> None:
        """Send ``method`` to any engine without waiting."""
        self._prepare(version, None).cast(ctxt, method, **kwargs)
