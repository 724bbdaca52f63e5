"""keel-heat-engine: N engine worker processes under cotyledon.

SIGTERM stops every worker gracefully (each finishes its stop() within
``graceful_shutdown_timeout``); SIGHUP makes the master and every worker
re-read the configuration files and apply the mutable options.
"""

import os
import threading
from collections.abc import Sequence

import cotyledon
from cotyledon import types as cotyledon_types
from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import uuidutils

from keel_heat_core import heap, plugins, profiling, reports
from keel_heat_core.cmd import prepare_conf
from keel_heat_core.cmd.engine_service import (
    EngineService,
    EngineServiceFactory,
    load_engine_factory,
)
from keel_heat_core.cmd.startup import check_database, refuse

LOG = logging.getLogger(__name__)

PROG = "keel-heat-engine"


def worker_count(conf: cfg.ConfigOpts) -> int:
    """Return ``num_engine_workers``, or max(4, CPUs) when it is unset."""
    if conf.num_engine_workers:
        return int(conf.num_engine_workers)
    return max(4, len(os.sched_getaffinity(0)))


class EngineWorker(cotyledon.Service):
    """One engine process: builds and runs one engine service."""

    name = "keel-heat-engine worker"

    def __init__(
        self,
        worker_id: cotyledon_types.WorkerId,
        conf: cfg.ConfigOpts,
        factory: EngineServiceFactory,
    ) -> None:
        super().__init__(worker_id)
        self._conf = conf
        self._factory = factory
        self._service: EngineService | None = None
        self._started = threading.Event()
        self.engine_id = uuidutils.generate_uuid()

    def run(self) -> None:
        """Build the engine service and start it."""
        LOG.info(
            "Engine worker %s starting with engine_id %s",
            self.worker_id,
            self.engine_id,
        )
        self._service = self._factory(self._conf, self.engine_id)
        self._service.start()
        # what start-up built lives as long as the process: full
        # collections need not walk it again during traversals
        frozen = heap.freeze_startup_objects()
        LOG.debug("Engine worker %s froze %d objects", self.worker_id, frozen)
        self._started.set()

    def terminate(self) -> None:
        """Stop the engine service and wait for it to finish."""
        if self._service is not None:
            LOG.info("Engine worker %s stopping", self.worker_id)
            self._service.stop()
            self._service.wait()

    def reload(self) -> None:
        """Apply changed mutable options; the process keeps running."""
        self._conf.mutate_config_files()
        reload = getattr(self._service, "reload", None)
        if callable(reload):
            reload()
        LOG.info("Engine worker %s reloaded its configuration", self.worker_id)


def _reload_master(conf: cfg.ConfigOpts) -> None:
    conf.mutate_config_files()
    LOG.info("%s reloaded its configuration", PROG)


def build_manager(
    conf: cfg.ConfigOpts,
    factory: EngineServiceFactory,
    workers: int | None = None,
) -> cotyledon.ServiceManager:
    """Return a service manager running ``workers`` engine processes."""
    manager = cotyledon.ServiceManager()
    manager.add(
        EngineWorker,
        workers=workers or worker_count(conf),
        args=(conf, factory),
    )
    manager.register_hooks(on_reload=lambda: _reload_master(conf))
    return manager


def main(
    argv: Sequence[str] | None = None,
    factory: EngineServiceFactory | None = None,
) -> int:
    """Run keel-heat-engine.

    :param argv: arguments without the program name
    :param factory: the engine service class; imported from
        ``keel_heat_core.service.engine`` when ``None``
    :returns: the exit status
    """
    conf = prepare_conf(argv, PROG)
    try:
        plugins.install_hooks(plugins.load_plugins(conf).hooks)
        if factory is None:
            factory = load_engine_factory()
            # the real engine: its database, before the workers fork
            check_database(conf)
    except Exception as exc:
        return refuse(PROG, exc, conf)
    reports.setup(conf)
    profiling.setup(conf, "engine")
    LOG.info("%s starting %d workers", PROG, worker_count(conf))
    build_manager(conf, factory).run()
    return 0
