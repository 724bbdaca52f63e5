"""Options of ``[ec2authtoken]``: how the CFN API checks EC2 signatures.

Heat's option names. Keystone 30 lets only services and admins validate
EC2 signatures, so the group also takes keystoneauth's auth options (the
service user, ``auth_type = password`` …) and session options
(``cafile``, ``certfile``, ``keyfile``, ``insecure``, ``timeout``), with
Heat's older spellings (``ca_file``, ``cert_file``, ``key_file``) still
read. ``[trustee]`` and the stack-domain options live in
:mod:`keel_heat_core.conf.trustee` and :mod:`keel_heat_core.conf.default`;
``[keystone_authtoken]`` belongs to keystonemiddleware, which registers it.
"""

from __future__ import annotations

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "ec2authtoken"

ec2authtoken_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "auth_uri",
        help="Identity endpoint the EC2 signatures are checked against; "
        "the keystone_authtoken or clients_keystone one when unset.",
    ),
    cfg.BoolOpt(
        "multi_cloud",
        default=False,
        help="Try each of allowed_auth_uris in turn.",
    ),
    cfg.ListOpt(
        "allowed_auth_uris",
        default=[],
        help="Identity endpoints tried when multi_cloud is on; at least "
        "one is needed then.",
    ),
]

_DEPRECATED_SESSION = {
    "cafile": [cfg.DeprecatedOpt("ca_file", GROUP)],
    "certfile": [cfg.DeprecatedOpt("cert_file", GROUP)],
    "keyfile": [cfg.DeprecatedOpt("key_file", GROUP)],
}


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register ``[ec2authtoken]`` on ``conf`` (harmless twice).

    :param conf: the configuration to register into.
    """
    conf.register_opts(ec2authtoken_opts, group=GROUP)
    ks_loading.register_session_conf_options(
        conf, GROUP, deprecated_opts=_DEPRECATED_SESSION
    )
    ks_loading.register_auth_conf_options(conf, GROUP)


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[ec2authtoken]`` options for the sample configuration."""
    session = ks_loading.get_session_conf_options(
        deprecated_opts=_DEPRECATED_SESSION
    )
    auth = ks_loading.get_auth_common_conf_options()
    auth += ks_loading.get_auth_plugin_conf_options("password")
    return [(GROUP, ec2authtoken_opts + session + auth)]
