"""The engine's collaborators built from the database and the plugins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging

from keel_heat_core.db import raw_template as template_repo
from keel_heat_core.db import stack_tag as stack_tag_repo
from keel_heat_core.db.database import (
    Database,
    OutageRetry,
    trace_statements,
)
from keel_heat_core.model import rows as r
from keel_heat_core.service import db_stores
from keel_heat_core.service.notifications import StackNotifier
from keel_heat_core.service.plugin_factory import PluginFactory
from keel_heat_core.service.snapshots import SnapshotFinisher
from keel_heat_core.service.stack_creds import StackCredentials
from keel_heat_core.template import versions
from keel_heat_core.worker.check_resource import CheckResource
from keel_heat_core.worker.deps import (
    Caster,
    CommittingCaster,
    Liveness,
    WorkerDeps,
)

LOG = logging.getLogger(__name__)


class _TraversalEnd:
    """Calls each end-of-traversal handler in turn; returns what they
    leave for after the final state, in the same order."""

    def __init__(self, *handlers: Any) -> None:
        self.handlers = handlers

    def __call__(self, *args: Any) -> Callable[[], None] | None:
        left = [later for h in self.handlers if (later := h(*args))]
        if not left:
            return None

        def run() -> None:
            for later in left:
                try:
                    later()
                except Exception:
                    LOG.exception("After the end of a traversal")

        return run


class DatabaseBackend:
    """:class:`~keel_heat_core.service.engine.EngineBackend` over the
    database named by ``[database] connection``.

    :param conf: the service configuration.
    :param db: a database object to share (tests, embedded mode).
    """

    def __init__(
        self, conf: cfg.ConfigOpts, db: Database | None = None
    ) -> None:
        self.conf = conf
        if db is None:
            db = Database(
                conf.database.connection,
                conf.auth_encryption_key,
                outage=OutageRetry.from_conf(conf.database),
            )
            trace_statements(db, conf)
        self.db = db
        self.stacks = db_stores.DbStackStore(db)
        self.resources = db_stores.DbResourceStore(
            db,
            bool(conf.encrypt_parameters_and_properties),
            stacks=self.stacks,
        )
        self.sync_points = db_stores.DbSyncPointStore(db, self.stacks)
        self.templates = db_stores.DbTemplateStore(db)
        self._services = db_stores.DbServiceStore(db)
        self.creds = StackCredentials(conf, db)

    def worker_deps(
        self, engine_id: str, caster: Caster, liveness: Liveness
    ) -> WorkerDeps:
        return WorkerDeps(
            engine_id=engine_id,
            stacks=self.stacks,
            resources=self.resources,
            sync_points=self.sync_points,
            templates=self.templates,
            plugins=PluginFactory(self.db, self.stacks, creds=self.creds),
            caster=CommittingCaster(caster, self.db.runs),
            liveness=liveness,
            commits=self.db.runs,
            stack_action_timeout=int(self.conf.stack_action_timeout),
            notifier=self._notifier(),
            # snapshots: service/snapshots.py
            on_traversal_end=_TraversalEnd(
                SnapshotFinisher(self.db, self.templates),
                self.creds.on_traversal_end,
            ),
        )

    def _notifier(self) -> StackNotifier:
        try:
            drivers = self.conf.oslo_messaging_notifications.driver
        except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
            drivers = []
        if not drivers:
            return StackNotifier(None)
        from keel_heat_core.rpc import transport
        from keel_heat_core.rpc.worker_client import serializer

        return StackNotifier(
            transport.get_notifier(self.conf, serializer=serializer()),
            str(self.conf.default_notification_level),
            details=self._stack_details,
        )

    def _stack_details(
        self, stack: r.StackRow
    ) -> tuple[list[str] | None, str]:
        """A stack's tags (None for none) and its template's description,
        for a notification."""
        tags = stack_tag_repo.get(self.db, stack.id) or None
        try:
            stored = template_repo.get(self.db, stack.raw_template_id)
            description = versions.load(stored.template).description()
        except Exception:
            # a notification is sent whatever happens to this read: the
            # stack's state is what it reports
            LOG.warning("No description for stack %s", stack.id)
            description = ""
        return tags, description

    def engine_endpoints(
        self, deps: WorkerDeps, check: CheckResource
    ) -> list[object]:
        from keel_heat_core.service.engine_endpoint import EngineEndpoint
        from keel_heat_core.service.nested import LocalEngineRPC
        from keel_heat_core.service.stack_api import StackAPI

        api = StackAPI(self.conf, self.db, deps, check, creds=self.creds)
        if isinstance(deps.plugins, PluginFactory):
            deps.plugins.rpc = LocalEngineRPC(api)
        return [EngineEndpoint(api)]

    def services(self) -> db_stores.DbServiceStore:
        return self._services
