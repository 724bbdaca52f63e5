"""oslo.messaging transports, servers, clients and notifiers.

Every part of keel-heat gets its messaging objects here, so that the
control exchange, the executor and the in-process transport are the same
everywhere.

``[DEFAULT] transport_url`` chooses the bus: ``rabbit://…`` in
production, ``inproc://`` (:mod:`keel_heat_core.rpc.inproc`, oslo.messaging's
fake driver with listeners that wake on delivery) for the embedded mode.
Transports are cached per configuration and URL, so that the callers and
servers of one process share one, and :func:`cleanup` drops them.
"""

import threading
from collections.abc import Iterable, Sequence
from typing import Any

import oslo_messaging
from oslo_config import cfg

#: In-process transport of the embedded mode.
IN_PROCESS_TRANSPORT_URL = "inproc://"

#: Modules whose exceptions travel back to callers as themselves.
ALLOWED_EXMODS = ["keel_heat_core.exception", "heat.common.exception"]

_lock = threading.Lock()
_rpc: dict[tuple[int, str], oslo_messaging.Transport] = {}
_notify: dict[tuple[int, str], oslo_messaging.Transport] = {}


def _url(conf: cfg.ConfigOpts) -> str:
    return str(conf.transport_url or "")


def get_transport(
    conf: cfg.ConfigOpts, url: str | None = None
) -> oslo_messaging.Transport:
    """Return this process's RPC transport for ``conf``.

    :param conf: the service configuration
    :param url: a transport URL overriding ``[DEFAULT] transport_url``
    """
    url = url or _url(conf)
    key = (id(conf), url)
    with _lock:
        if key not in _rpc:
            _rpc[key] = oslo_messaging.get_rpc_transport(
                conf,
                url=url or None,
                allowed_remote_exmods=ALLOWED_EXMODS,
            )
        return _rpc[key]


def get_notification_transport(
    conf: cfg.ConfigOpts,
) -> oslo_messaging.Transport:
    """Return the notification transport.

    ``[oslo_messaging_notifications] transport_url`` wins when set, as
    oslo.messaging documents; otherwise the RPC URL is used.
    """
    url = _url(conf)
    key = (id(conf), url)
    with _lock:
        if key not in _notify:
            _notify[key] = oslo_messaging.get_notification_transport(
                conf, allowed_remote_exmods=ALLOWED_EXMODS
            )
        return _notify[key]


def get_rpc_server(
    conf: cfg.ConfigOpts,
    topic: str,
    server: str,
    endpoints: Sequence[object],
    version: str = "1.0",
    serializer: oslo_messaging.Serializer | None = None,
) -> oslo_messaging.MessageHandlingServer:
    """Build an RPC server with the threading executor.

    Every public method of the endpoints is callable, as in Heat
    (``DefaultRPCAccessPolicy``).

    :param conf: the service configuration
    :param topic: e.g. ``engine``, ``engine_worker``
    :param server: the server name: ``[DEFAULT] host`` or an engine id
    :param endpoints: objects whose methods serve the calls
    :param version: the endpoint's API version
    :param serializer: turns contexts and payloads into dicts and back
    """
    target = oslo_messaging.Target(topic=topic, server=server, version=version)
    return oslo_messaging.get_rpc_server(
        get_transport(conf),
        target,
        list(endpoints),
        executor="threading",
        serializer=serializer,
        access_policy=oslo_messaging.DefaultRPCAccessPolicy,
    )


def get_rpc_client(
    conf: cfg.ConfigOpts,
    topic: str,
    version: str,
    server: str | None = None,
    serializer: oslo_messaging.Serializer | None = None,
    timeout: float | None = None,
) -> oslo_messaging.RPCClient:
    """Build an RPC client for one topic.

    :param conf: the service configuration
    :param topic: the topic called
    :param version: the version the client pins
    :param server: a server name, to call one engine only
    :param serializer: turns contexts and payloads into dicts and back
    :param timeout: seconds; ``rpc_response_timeout`` when ``None``
    """
    target = oslo_messaging.Target(topic=topic, server=server, version=version)
    return oslo_messaging.get_rpc_client(
        get_transport(conf),
        target,
        serializer=serializer,
        timeout=timeout,
    )


def get_notifier(
    conf: cfg.ConfigOpts,
    publisher_id: str | None = None,
    serializer: oslo_messaging.Serializer | None = None,
    topics: Iterable[str] | None = None,
) -> oslo_messaging.Notifier:
    """Build a notifier publishing as ``orchestration.<host>``.

    Nothing is sent unless ``[oslo_messaging_notifications] driver`` is set.

    :param conf: the service configuration
    :param publisher_id: defaults to ``orchestration.<host>``
    :param serializer: turns contexts and payloads into dicts
    :param topics: override the configured topics
    """
    kwargs: dict[str, Any] = {}
    if topics is not None:
        kwargs["topics"] = list(topics)
    return oslo_messaging.Notifier(
        get_notification_transport(conf),
        publisher_id=publisher_id or f"orchestration.{conf.host}",
        serializer=serializer,
        **kwargs,
    )


def cleanup() -> None:
    """Close and forget every cached transport (at exit, between tests)."""
    with _lock:
        transports = [*_rpc.values(), *_notify.values()]
        _rpc.clear()
        _notify.clear()
    for transport in transports:
        transport.cleanup()
