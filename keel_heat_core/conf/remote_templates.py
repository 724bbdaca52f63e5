"""Where remote templates may come from: options of the ``[api]`` group
that the API (``template_url``) and the engines (resource types and
registry entries that are URLs) both read."""

from oslo_config import cfg

remote_template_opts: list[cfg.Opt] = [
    cfg.ListOpt(
        "template_url_allowed_hosts",
        default=[],
        help="keel-heat only. Host names (or IP networks in CIDR form) "
        "remote templates may be fetched from: template_url, and resource "
        "types or environment entries that are URLs. Empty allows any "
        "host whose addresses are all public.",
    ),
    cfg.BoolOpt(
        "template_url_allow_private",
        default=False,
        help="keel-heat only. Let remote templates come from loopback, "
        "link-local and private addresses. Off by default: neither the "
        "API nor an engine may be a way into the internal network.",
    ),
]


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[api]`` options of remote templates.

    :returns: one ``(group name, options)`` pair
    """
    return [("api", remote_template_opts)]
