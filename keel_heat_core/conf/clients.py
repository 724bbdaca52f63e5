"""Options of ``[clients]`` and the per-service ``[clients_<name>]`` groups.

``[clients]`` holds the defaults; a ``[clients_<name>]`` group overrides
them for one service. The per-service options have no defaults so that an
unset one falls back to ``[clients]`` (see :func:`get_client_option`).
"""

from typing import Any

from oslo_config import cfg

#: Services with a ``[clients_<name>]`` group, as in Heat 27.
CLIENT_NAMES = (
    "aodh",
    "barbican",
    "cinder",
    "designate",
    "glance",
    "heat",
    "keystone",
    "magnum",
    "manila",
    "mistral",
    "monasca",
    "neutron",
    "nova",
    "octavia",
    "sahara",
    "senlin",
    "swift",
    "trove",
    "zaqar",
)


def _client_opts(with_defaults: bool) -> list[cfg.Opt]:
    def default(value: Any) -> Any:
        return value if with_defaults else None

    return [
        cfg.StrOpt(
            "endpoint_type",
            default=default("publicURL"),
            help="Catalog interface used to reach the service.",
        ),
        cfg.StrOpt("ca_file", help="CA certificate file for TLS."),
        cfg.StrOpt("cert_file", help="PEM client certificate chain."),
        cfg.StrOpt("key_file", help="PEM private key of cert_file."),
        cfg.BoolOpt(
            "insecure",
            default=default(False),
            help="Skip verification of the server certificate.",
        ),
    ]


default_clients_opts = _client_opts(with_defaults=True)
clients_opts = _client_opts(with_defaults=False)

heat_client_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "url",
        default="",
        help="Orchestration URL, like http://0.0.0.0:8004/v1/%(tenant_id)s.",
    ),
]

keystone_client_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "auth_uri",
        default="",
        help="Unversioned Keystone URL, like http://0.0.0.0:5000.",
    ),
]

http_log_debug_opts: list[cfg.Opt] = [
    cfg.BoolOpt(
        "http_log_debug",
        default=False,
        help="Log the client's HTTP requests at debug level.",
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the client options of every group.

    :returns: ``(group name, options)`` pairs; a group may repeat
    """
    pairs: list[tuple[str, list[cfg.Opt]]] = [
        ("clients", default_clients_opts)
    ]
    pairs += [(f"clients_{name}", clients_opts) for name in CLIENT_NAMES]
    pairs += [
        ("clients_heat", heat_client_opts),
        ("clients_keystone", keystone_client_opts),
        ("clients_nova", http_log_debug_opts),
        ("clients_cinder", http_log_debug_opts),
    ]
    return pairs


def get_client_option(conf: cfg.ConfigOpts, client: str, name: str) -> Any:
    """Read a client option, falling back from the service to ``[clients]``.

    :param conf: a configuration with the options registered
    :param client: service name, e.g. ``nova``
    :param name: option name, e.g. ``endpoint_type``
    :returns: the service's value when set, else the ``[clients]`` value
    """
    group = f"clients_{client}"
    if group in conf:
        value = conf[group].get(name) if name in conf[group] else None
        if value is not None:
            return value
    return conf.clients[name]
