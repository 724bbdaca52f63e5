"""Multiprocess values and the one HTTP endpoint of a host.

An engine runs several processes (cotyledon workers). Each writes its
values to files in one shared directory (prometheus_client's multiprocess
mode); whichever process binds ``[prometheus] bind_port`` first serves
``/metrics``, summing the files of all. The others retry now and then, so
the endpoint comes back when the process serving it ends.
"""

from __future__ import annotations

import logging
import os
import pathlib
import re
import shutil
import socketserver
import tempfile
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref import simple_server

import prometheus_client as prom
from oslo_config import cfg
from prometheus_client import multiprocess, values

from keel_heat_metrics_prometheus import metrics, options

LOG = logging.getLogger(__name__)

ENV = "PROMETHEUS_MULTIPROC_DIR"

_LIVE_FILE = re.compile(r"^gauge_live\w+?_(\d+)\.db$")


def multiproc_dir(conf: cfg.ConfigOpts) -> pathlib.Path:
    """The directory of this host's values (created if missing)."""
    configured = conf.prometheus.multiproc_dir
    if configured:
        path = pathlib.Path(configured)
    else:
        # the engine's master and its workers share a process group
        prefix = f"keel-heat-prometheus-{os.getuid()}-"
        base = pathlib.Path(tempfile.gettempdir())
        _remove_ended(base, prefix)
        path = base / f"{prefix}{os.getpgid(0)}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _remove_ended(base: pathlib.Path, prefix: str) -> None:
    """Remove the default directories of engine services that ended."""
    for entry in base.glob(f"{prefix}*"):
        group = entry.name[len(prefix) :]
        if not group.isdigit():
            continue
        try:
            os.killpg(int(group), 0)
        except ProcessLookupError:
            shutil.rmtree(entry, ignore_errors=True)
        except PermissionError:
            continue


def use_multiprocess(directory: pathlib.Path) -> None:
    """Make metrics made from now on write to ``directory``."""
    os.environ[ENV] = str(directory)
    # prometheus_client picks its value class when first imported, which
    # may have been before this process knew the directory
    values.ValueClass = values.MultiProcessValue()  # type: ignore[no-untyped-call]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def forget_dead_processes(directory: pathlib.Path) -> list[int]:
    """Drop the live gauges of processes that ended (their running
    resource actions ended with them); counters and histograms stay."""
    dead = set()
    for entry in directory.iterdir():
        match = _LIVE_FILE.match(entry.name)
        if match and not _alive(int(match.group(1))):
            dead.add(int(match.group(1)))
    for pid in dead:
        multiprocess.mark_process_dead(  # type: ignore[no-untyped-call]
            pid, str(directory)
        )
    return sorted(dead)


class _QuietHandler(simple_server.WSGIRequestHandler):
    """No access log line per scrape."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return None


class _Server(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True


def metrics_app(
    directory: pathlib.Path,
) -> Callable[[dict[str, Any], Any], Iterable[bytes]]:
    """The WSGI application answering ``GET /metrics`` for the host."""
    registry = prom.CollectorRegistry()
    multiprocess.MultiProcessCollector(  # type: ignore[no-untyped-call]
        registry, path=str(directory)
    )
    inner = prom.make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        forget_dead_processes(directory)
        result: Iterable[bytes] = inner(environ, start_response)
        return result

    return app


class Endpoint:
    """Tries to serve the host's metrics from this process.

    :param directory: the multiprocess directory
    :param host: the address to bind
    :param port: the port to bind
    :param retry: seconds between attempts while another process has it
    """

    def __init__(
        self, directory: pathlib.Path, host: str, port: int, retry: float
    ) -> None:
        self.directory = directory
        self.host = host
        self.port = port
        self.retry = retry
        self.server: simple_server.WSGIServer | None = None
        self._stop = threading.Event()

    def try_bind(self) -> bool:
        """Serve if the port is free; False when another process has it."""
        try:
            server = simple_server.make_server(
                self.host,
                self.port,
                metrics_app(self.directory),
                server_class=_Server,
                handler_class=_QuietHandler,
            )
        except OSError as exc:
            LOG.debug(
                "Metrics endpoint %s:%s not bound here: %s",
                self.host,
                self.port,
                exc,
            )
            return False
        self.server = server
        threading.Thread(
            target=server.serve_forever, name="prometheus", daemon=True
        ).start()
        LOG.info(
            "Serving Prometheus metrics on http://%s:%s/metrics (pid %s)",
            self.host,
            server.server_port,
            os.getpid(),
        )
        return True

    def start(self) -> None:
        """Bind now, or keep trying in the background."""
        if self.try_bind():
            return
        threading.Thread(
            target=self._keep_trying, name="prometheus-bind", daemon=True
        ).start()

    def _keep_trying(self) -> None:
        while not self._stop.wait(self.retry):
            if self.try_bind():
                return

    def stop(self) -> None:
        """Stop serving (and trying)."""
        self._stop.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


def start(conf: cfg.ConfigOpts) -> tuple[metrics.Metrics, Endpoint]:
    """Set up this process: its values in the host's directory, and the
    endpoint if it gets the port.

    :param conf: the service configuration (``[prometheus]`` is
        registered here)
    """
    options.register_opts(conf)
    group = conf.prometheus
    directory = multiproc_dir(conf)
    use_multiprocess(directory)
    made = metrics.make_metrics(registry=None)
    endpoint = Endpoint(
        directory, group.bind_host, group.bind_port, group.bind_retry_interval
    )
    endpoint.start()
    return made, endpoint
