"""Options of the ``[trustee]`` group, loaded through keystoneauth.

The engine authenticates as this user to create and consume trusts. The
group holds the usual keystoneauth auth options (``auth_type``,
``auth_url``, ``username``…), as in Heat.
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "trustee"


def register(conf: cfg.ConfigOpts) -> None:
    """Register ``auth_type`` and ``auth_section`` in ``[trustee]``.

    The plugin's own options (``auth_url``, ``password``…) are registered
    by keystoneauth when the plugin is loaded from the configuration.

    :param conf: the configuration to register into
    """
    ks_loading.register_auth_conf_options(conf, GROUP)


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the ``[trustee]`` options for the sample configuration.

    :returns: one ``(group name, options)`` pair: the common auth options
        and those of the ``password`` plugin
    """
    opts = ks_loading.get_auth_common_conf_options()
    opts += ks_loading.get_auth_plugin_conf_options("password")
    return [(GROUP, opts)]
