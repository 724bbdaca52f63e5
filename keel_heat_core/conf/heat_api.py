"""Options of the ``[heat_api]`` and ``[heat_api_cfn]`` groups.

Under uwsgi or gunicorn the container decides where to listen; these
options serve ``keel-heat-all``, which runs its own WSGI servers.
"""

from oslo_config import cfg


def _server_opts(port: int) -> list[cfg.Opt]:
    return [
        cfg.HostAddressOpt(
            "bind_host",
            default="0.0.0.0",  # noqa: S104 - Heat's default
            help="Address the server listens on. In noauth mode only a "
            "loopback address is accepted.",
        ),
        cfg.PortOpt(
            "bind_port",
            default=port,
            help="Port the server listens on; 0 picks a free one.",
        ),
        cfg.IntOpt(
            "workers",
            default=0,
            min=0,
            help="Worker count for WSGI containers that read it; the "
            "embedded server serves requests from a thread pool.",
        ),
        cfg.IntOpt(
            "max_header_line",
            default=16384,
            help="Longest request header line accepted, in bytes.",
        ),
    ]


heat_api_opts = _server_opts(8004)
heat_api_cfn_opts = _server_opts(8000)


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the API server options.

    :returns: ``(group name, options)`` pairs
    """
    return [("heat_api", heat_api_opts), ("heat_api_cfn", heat_api_cfn_opts)]
