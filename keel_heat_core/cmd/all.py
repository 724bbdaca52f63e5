"""keel-heat-all: native API, CFN API and one engine in one process.

Without configuration it runs the embedded mode (see
:func:`keel_heat_core.conf.embedded.apply_defaults`): SQLite in a state
directory, the in-process transport and, when the API distribution is
installed, its noauth mode bound to 127.0.0.1. With a configuration file
it runs whatever that file says, still in one process.
"""

import importlib
import signal
import threading
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
from oslo_utils import uuidutils

from keel_heat_core import heap, plugins, profiling, reports
from keel_heat_core.cmd import prepare_conf
from keel_heat_core.cmd.engine_service import (
    EngineServiceFactory,
    load_engine_factory,
)
from keel_heat_core.cmd.startup import StartupError, listen_error, refuse
from keel_heat_core.cmd.wsgi_server import WSGIServer
from keel_heat_core.conf import embedded
from keel_heat_core.rpc import transport

LOG = logging.getLogger(__name__)

PROG = "keel-heat-all"

#: Where the WSGI applications come from: (module, factory(conf)).
NATIVE_APP = ("keel_heat_api.app", "setup_app")
CFN_APP = ("keel_heat_api.cfn", "setup_app")
API_OPTS = "keel_heat_api.opts"

NOAUTH_WARNING = (
    "*** keel-heat-all runs WITHOUT AUTHENTICATION (noauth): every request "
    "acts as one fixed user in project %r. Only this machine can reach "
    "it (127.0.0.1). Configure Keystone before exposing it. ***"
)


def _register_api_opts(conf: cfg.ConfigOpts) -> None:
    try:
        module = importlib.import_module(API_OPTS)
    except ImportError:
        return
    module.register_opts(conf)


def load_app(
    conf: cfg.ConfigOpts, where: tuple[str, str], **kwargs: Any
) -> Any:
    """Import an application factory and build the application.

    :param kwargs: passed to the factory after ``conf``
    :raises StartupError: when the API distribution lacks it
    """
    module_name, attr = where
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise StartupError(
            f"The WSGI application {module_name}.{attr} is not available "
            f"({exc}); install keel-heat-api."
        ) from exc
    return factory(conf, **kwargs)


def noauth_project(conf: cfg.ConfigOpts) -> str | None:
    """Return the noauth project when the API runs without Keystone."""
    # the core registers [api] too (its remote-template options): the
    # API's own options are there only with the API distribution
    api = conf.api if "api" in conf else None
    if (
        api is not None
        and "auth_strategy" in api
        and (api.auth_strategy == "noauth")
    ):
        return str(conf.api.noauth_project_id)
    return None


def check_binding(conf: cfg.ConfigOpts) -> None:
    """Refuse to serve the noauth mode anywhere but on loopback.

    :raises StartupError: naming the offending option
    """
    project = noauth_project(conf)
    if project is None:
        return
    for group in ("heat_api", "heat_api_cfn"):
        host = conf[group].bind_host
        if not embedded.is_loopback(host):
            raise StartupError(
                f"[{group}] bind_host = {host}: the noauth mode only binds "
                f"to a loopback address; configure Keystone "
                f"([api] auth_strategy = keystone) to listen on {host}."
            )
    LOG.warning(NOAUTH_WARNING, project)


def sync_embedded_database(conf: cfg.ConfigOpts) -> None:
    """Create or upgrade the schema of an SQLite database.

    The embedded mode must work from nothing; a server database
    (MariaDB, PostgreSQL) is upgraded by its operator with
    ``keel-heat-manage db sync`` instead.
    """
    url = str(conf.database.connection or "")
    if not url.startswith("sqlite"):
        return
    from keel_heat_core.db.database import Database
    from keel_heat_core.migrations import runner

    database = Database(url, conf.auth_encryption_key)
    try:
        runner.upgrade(database.engine)
    finally:
        database.engine.dispose()
    LOG.info("%s database schema is current: %s", PROG, url)


def _wait_for_signal() -> int:
    stop = threading.Event()
    received: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, handler)
    stop.wait()
    return received[0]


def _server(
    conf: cfg.ConfigOpts, name: str, app: Any, group: str
) -> WSGIServer:
    """A server bound to ``[group] bind_host``/``bind_port``.

    :raises StartupError: naming the address and the options
    """
    host, port = conf[group].bind_host, conf[group].bind_port
    try:
        return WSGIServer(name, app, host, port)
    except OSError as exc:
        raise listen_error(exc, group, host, port) from exc


def run(
    conf: cfg.ConfigOpts,
    factory: EngineServiceFactory,
    wait: Callable[[], int] = _wait_for_signal,
) -> None:
    """Start the engine and both APIs, wait, then stop them in order."""
    native = load_app(conf, NATIVE_APP)
    try:
        cfn = load_app(conf, CFN_APP)
    except StartupError as exc:
        # The native API is usable on its own (OSC, Horizon, Skyline);
        # only in-instance tools and AWS:: signals need the CFN API.
        LOG.warning("Serving the native API only: %s", exc)
        cfn = None
    # the ports first: one taken stops the start before the engine runs
    servers = [_server(conf, "native API", native, "heat_api")]
    if cfn is not None:
        servers.append(_server(conf, "CFN API", cfn, "heat_api_cfn"))
    engine = factory(conf, uuidutils.generate_uuid())
    engine.start()
    for server in servers:
        server.start()
    heap.freeze_startup_objects()
    LOG.info(
        "%s ready: native API %s/ CFN API %s",
        PROG,
        servers[0].url,
        f"{servers[1].url}/" if cfn is not None else "not installed",
    )
    project = noauth_project(conf)
    if project is not None:
        LOG.info(
            "Try: openstack --os-auth-type none --os-endpoint %s/v1/%s "
            "orchestration build info",
            servers[0].url,
            project,
        )
    try:
        signum = wait()
        LOG.info("%s stopping on signal %s", PROG, signum)
    finally:
        for server in servers:
            server.stop()
        engine.stop()
        engine.wait()
        transport.cleanup()


def main(
    argv: Sequence[str] | None = None,
    factory: EngineServiceFactory | None = None,
) -> int:
    """Run keel-heat-all.

    :param argv: arguments without the program name
    :param factory: the engine service class; imported from
        ``keel_heat_core.service.engine`` when ``None``
    :returns: the exit status
    """
    conf = cfg.CONF
    _register_api_opts(conf)
    conf = prepare_conf(argv, PROG, conf)
    state = embedded.apply_defaults(conf)
    LOG.info("%s state directory: %s", PROG, state)
    try:
        check_binding(conf)
        plugins.install_hooks(plugins.load_plugins(conf).hooks)
        factory = factory or load_engine_factory()
        sync_embedded_database(conf)
        reports.setup(conf)
        profiling.setup(conf, "all")
        run(conf, factory)
    except Exception as exc:
        return refuse(PROG, exc, conf)
    return 0
