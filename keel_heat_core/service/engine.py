"""One engine process: its RPC servers and background work.

:class:`EngineService` is what ``keel-heat-engine`` (one per cotyledon worker)
and ``keel-heat-all`` run. It serves three targets (docs/design/engine.md,
"RPC"): topic ``engine`` (server ``[DEFAULT] host``, API 1.36), topic
``engine_worker`` (server = engine id, 1.9) and ``heat-engine-listener``
(server = engine id, 1.0), all on oslo.messaging's threading executor.
Background threads write the ``service`` heartbeat row and re-drive stalled
traversals (:mod:`keel_heat_core.worker.resume`).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from typing import Protocol

import oslo_messaging
from oslo_config import cfg

from keel_heat_core import plugins
from keel_heat_core import remote_templates as remote
from keel_heat_core.rpc import transport as rpc_transport
from keel_heat_core.rpc.listener_client import TOPIC as LISTENER_TOPIC
from keel_heat_core.rpc.listener_client import ListenerClient
from keel_heat_core.rpc.worker_client import TOPIC as WORKER_TOPIC
from keel_heat_core.rpc.worker_client import WorkerClient, serializer
from keel_heat_core.service.db_backend import DatabaseBackend
from keel_heat_core.service.expected import ExpectedErrors
from keel_heat_core.service.worker_endpoint import (
    ListenerEndpoint,
    WorkerEndpoint,
)
from keel_heat_core.template import environment, versions, yaql_function
from keel_heat_core.worker.check_resource import CheckResource
from keel_heat_core.worker.deps import Caster, Liveness, WorkerDeps
from keel_heat_core.worker.liveness import HeartbeatLiveness
from keel_heat_core.worker.resume import Resumer

LOG = logging.getLogger(__name__)

ENGINE_TOPIC = "engine"
ENGINE_VERSION = "1.36"


class ServiceStore(Protocol):
    """The ``service`` table (heartbeat rows)."""

    def heartbeat(
        self,
        engine_id: str,
        host: str,
        hostname: str,
        binary: str,
        topic: str,
        report_interval: int,
    ) -> None:
        """Insert the row the first time, then bump ``updated_at``."""

    def soft_delete(self, engine_id: str) -> None:
        """Mark this engine's row deleted (at shutdown)."""

    def soft_delete_stale(
        self, host: str, hostname: str, binary: str, older_than: int
    ) -> None:
        """Soft-delete rows of this host not updated for ``older_than`` s."""


class EngineBackend(Protocol):
    """Builds what an engine needs from the database and the plugins."""

    def worker_deps(
        self, engine_id: str, caster: Caster, liveness: Liveness
    ) -> WorkerDeps:
        """The worker's collaborators for this engine."""

    def engine_endpoints(
        self, deps: WorkerDeps, check: CheckResource
    ) -> list[object]:
        """Endpoints of topic ``engine`` (API 1.36)."""

    def services(self) -> ServiceStore | None:
        """The heartbeat store, if any."""


def _default_backend(conf: cfg.ConfigOpts) -> EngineBackend:
    return DatabaseBackend(conf)


def _default_transport(conf: cfg.ConfigOpts) -> oslo_messaging.Transport:
    return rpc_transport.get_transport(conf)


class EngineService:
    """The engine of one process.

    :param conf: the service configuration.
    :param engine_id: this process's engine id (a fresh uuid).
    :param transport: an RPC transport (the shared one by default).
    :param backend: stores and endpoints (the database by default).
    :param resume_interval: seconds between resume passes (a stalled
        unlocked node is re-cast after two quiet passes).
    :param topic_prefix: prepended to every topic, so that tests sharing a
        broker do not share queues (oslo.messaging names queues by topic
        whatever the exchange); empty in deployments.
    """

    def __init__(
        self,
        conf: cfg.ConfigOpts,
        engine_id: str,
        transport: oslo_messaging.Transport | None = None,
        backend: EngineBackend | None = None,
        resume_interval: float | None = None,
        topic_prefix: str = "",
    ) -> None:
        self.conf = conf
        self.topic_prefix = topic_prefix
        self.engine_id = engine_id
        self._transport = transport
        self._backend = backend
        self._resume_interval = resume_interval
        self._servers: list[oslo_messaging.MessageHandlingServer] = []
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self.check: CheckResource | None = None
        #: the topic ``engine`` endpoints (also callable in-process)
        self.engine_endpoints: list[object] = []
        self.resumer: Resumer | None = None

    @property
    def host(self) -> str:
        """``[DEFAULT] host``: the server name of topic ``engine``."""
        return str(self.conf.host)

    def start(self) -> None:
        """Start serving and the background threads; return promptly."""
        load_global_environment(self.conf)
        load_registries()
        configure_yaql(self.conf)
        configure_remote_templates(self.conf)
        transport = self._transport or _default_transport(self.conf)
        backend = self._backend or _default_backend(self.conf)
        self._backend = backend
        prefix = self.topic_prefix
        liveness: Liveness = ListenerClient(
            transport,
            self.conf.engine_life_check_timeout,
            topic=prefix + LISTENER_TOPIC,
        )
        services = backend.services()
        if services is not None and hasattr(services, "last_seen"):
            # dead = stale heartbeat (two beats missed) and no answer
            liveness = HeartbeatLiveness(
                liveness, services.last_seen, 2 * self._beat() + 1
            )
        deps = backend.worker_deps(
            self.engine_id,
            WorkerClient(transport, topic=prefix + WORKER_TOPIC),
            liveness,
        )
        self.check = CheckResource(deps)
        self.resumer = Resumer(
            deps,
            self.check.working_on,
            lost_writes=self.check.lost_writes,
        )
        # The listener first: other engines must see us alive before we
        # take any lock.
        self._serve(
            transport,
            prefix + LISTENER_TOPIC,
            self.engine_id,
            [ListenerEndpoint(self.check)],
        )
        self._serve(
            transport,
            prefix + WORKER_TOPIC,
            self.engine_id,
            [WorkerEndpoint(self.check)],
        )
        self.engine_endpoints = backend.engine_endpoints(deps, self.check)
        for endpoint in self.engine_endpoints:
            # what the first request would otherwise load (the policy
            # rules of resource types...)
            prepare = getattr(endpoint, "prepare", None)
            if prepare is not None:
                prepare()
        # the engine API's errors are answers to its callers (4xx at the
        # API), logged without a traceback; the workers' casts have no
        # caller to tell
        self._serve(
            transport,
            prefix + ENGINE_TOPIC,
            self.host,
            [ExpectedErrors(endpoint) for endpoint in self.engine_endpoints],
        )
        self._start_thread("heartbeat", self._heartbeat_loop)
        self._start_thread("resume", self._resume_loop)
        LOG.info("Engine %s serving on host %s", self.engine_id, self.host)
        plugins.current_hooks().engine_start(self.conf, self.engine_id)

    def _serve(
        self,
        transport: oslo_messaging.Transport,
        topic: str,
        server: str,
        endpoints: list[object],
    ) -> None:
        if not endpoints:
            return
        target = oslo_messaging.Target(topic=topic, server=server)
        rpc_server = oslo_messaging.get_rpc_server(
            transport,
            target,
            endpoints,
            executor="threading",
            serializer=serializer(),
            access_policy=oslo_messaging.DefaultRPCAccessPolicy,
        )
        rpc_server.start()
        self._servers.append(rpc_server)

    def _start_thread(self, name: str, loop: Callable[[], None]) -> None:
        thread = threading.Thread(
            target=loop, name=f"keel-heat-{name}-{self.engine_id}", daemon=True
        )
        thread.start()
        self._threads.append(thread)

    def _heartbeat_loop(self) -> None:
        assert self._backend is not None
        store = self._backend.services()
        if store is None:
            return
        interval = int(self.conf.periodic_interval)
        hostname = socket.gethostname()
        try:
            store.soft_delete_stale(
                self.host, hostname, "heat-engine", 3 * interval
            )
        except Exception:
            LOG.exception("Cleaning stale service rows failed")
        while not self._stop.is_set():
            try:
                store.heartbeat(
                    self.engine_id,
                    self.host,
                    hostname,
                    "heat-engine",
                    ENGINE_TOPIC,
                    interval,
                )
            except Exception:
                LOG.exception("Service heartbeat failed")
            self._stop.wait(self._beat())

    def _beat(self) -> float:
        """Seconds between heartbeats: ``periodic_interval``, or the
        resume interval when shorter (the heartbeat tells other engines'
        resume passes that this one is alive, worker/liveness.py)."""
        period = float(self.conf.periodic_interval)
        return min(period, self._resume_period())

    def _resume_period(self) -> float:
        # a stalled node is re-driven after two quiet passes; a dead
        # engine's locks are taken over on the first pass
        return float(
            self._resume_interval
            if self._resume_interval is not None
            else self.conf.resume_interval
        )

    def _resume_loop(self) -> None:
        interval = self._resume_period()
        while True:  # a first pass at start-up, then every interval
            try:
                assert self.resumer is not None
                self.resumer.run_once()
            except Exception:
                LOG.exception("Resume pass failed")
            if self._stop.wait(interval):
                return

    def stop(self) -> None:
        """Stop taking work, let running handlers finish."""
        self._stop.set()
        for server in self._servers:
            server.stop()
        for server in self._servers:
            server.wait()
        for thread in self._threads:
            thread.join(timeout=5)
        if self._backend is not None:
            store = self._backend.services()
            if store is not None:
                try:
                    store.soft_delete(self.engine_id)
                except Exception:
                    LOG.exception("Soft-deleting the service row failed")
        self._servers.clear()
        self._stopped.set()

    def wait(self) -> None:
        """Block until :meth:`stop` finished."""
        self._stopped.wait()

    def reload(self) -> None:
        """SIGHUP: nothing engine-specific to re-read yet."""
        LOG.info("Engine %s reloaded its configuration", self.engine_id)


def configure_yaql(conf: cfg.ConfigOpts) -> None:
    """Apply the ``[yaql]`` limits to the ``yaql`` functions run here."""
    group = conf.yaql
    yaql_function.configure(
        limit_iterators=group.limit_iterators,
        memory_quota=group.memory_quota,
    )


def configure_remote_templates(conf: cfg.ConfigOpts) -> None:
    """Fetch remote templates (resource types and registry entries that
    are URLs) only from the hosts ``[api]`` allows, as ``template_url``."""
    try:
        policy = remote.FetchPolicy.from_conf(conf)
    except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
        # a configuration without the core's options (a test's bare
        # one): the default, public hosts only
        return
    remote.configure(policy)


def load_registries() -> None:
    """Load the installed plugins' registries now, not on first use.

    The resource types, event sinks and constraints of the global
    environment and the template versions come from entry points; reading
    them cost the first stack request after a start about a tenth of a
    second.
    """
    environment.global_env()
    versions.template_classes()


def load_global_environment(conf: cfg.ConfigOpts) -> bool:
    """Install the global environment of ``[DEFAULT] environment_dir``.

    Every stack's environment starts from it (Heat's ``environment.d``:
    type aliases, template resources an operator provides...).

    :returns: whether a directory was found and read.
    """
    env_dir = conf.environment_dir
    if not env_dir or not os.path.isdir(env_dir):
        return False
    environment.set_global_env(environment.build_global_env(env_dir=env_dir))
    LOG.info("Global environment read from %s", env_dir)
    return True
