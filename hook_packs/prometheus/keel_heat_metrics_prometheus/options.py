"""The ``[prometheus]`` options.

Registered on the service configuration when an engine process starts
(the ``engine_start`` hook), and listed for oslo-config-generator through
the ``oslo.config.opts`` entry point ``keel_heat_metrics_prometheus``.
"""

from __future__ import annotations

from oslo_config import cfg

GROUP = "prometheus"

OPTS = [
    cfg.HostAddressOpt(
        "bind_host",
        default="127.0.0.1",
        help="Address the metrics endpoint listens on.",
    ),
    cfg.PortOpt(
        "bind_port",
        default=9464,
        help="Port of the metrics endpoint (GET /metrics). Every engine "
        "process of a host tries it; the first that binds serves the "
        "metrics of all of them.",
    ),
    cfg.StrOpt(
        "multiproc_dir",
        help="Directory where each engine process keeps its metric "
        "values (prometheus_client's multiprocess mode), shared by the "
        "processes of one host. Empty the directory when the service "
        "starts. By default, a directory per engine service (named after "
        "its process group) in the system's temporary directory, removed "
        "by the next engine of the host once that service ended.",
    ),
    cfg.FloatOpt(
        "bind_retry_interval",
        default=30.0,
        min=0.1,
        help="Seconds between attempts of a process that could not bind "
        "the port to take it over (when the process serving it ended).",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register the ``[prometheus]`` options (once) on ``conf``."""
    conf.register_opts(OPTS, group=GROUP)


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """The options of this pack, for oslo-config-generator."""
    return [(GROUP, list(OPTS))]
