"""keel-heat configuration: oslo.config options, one module per group.

Nothing is registered at import time. A program builds or receives a
:class:`oslo_config.cfg.ConfigOpts` and calls :func:`register_opts` on it;
tests build their own.

Other parts read options as ``conf.<option>`` or ``conf.<group>.<option>``,
with the defaults registered here and nowhere else; an option another
library registers only when it is used is read with
:func:`library_option`.
A part that needs options of its own adds a module here exposing
``list_opts()`` (pairs of group name and options) and lists it in
:data:`GROUP_MODULES`; the generator and :func:`register_opts` pick it up.
"""

import importlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import oslo_messaging
from oslo_config import cfg
from oslo_log import log as logging

from keel_heat_core.conf import database, diagnostics, identity, trustee

#: Added to oslo.log's ``default_log_levels``: Alembic announces each of
#: its autogenerate plugins at INFO, seven lines at every start of the
#: embedded mode (the migrations it runs are still logged).
QUIET_LOGGERS = ["alembic.runtime.plugins=WARN"]

#: Modules under ``keel_heat_core.conf`` that expose ``list_opts()``.
GROUP_MODULES = (
    "default",
    "heat_api",
    "auth_password",
    "revision",
    "clients",
    "plugins",
    "embedded",
    "yaql",
    "remote_templates",
    "database",
)

#: The RPC exchange Heat uses; keeping it lets both talk on one bus.
CONTROL_EXCHANGE = "heat"

#: Project name for oslo.config (default config file locations).
PROJECT = "keel-heat"


#: oslo.messaging options registered only on the global ``cfg.CONF`` by
#: the library itself (tracing, metrics) or only once a transport exists:
#: (module, attribute, group), the list oslo.messaging's own ConfFixture
#: uses so that a private ``ConfigOpts`` works as well as the global one.
_MESSAGING_OPTS = (
    (
        "oslo_messaging._drivers.impl_rabbit",
        "rabbit_opts",
        "oslo_messaging_rabbit",
    ),
    ("oslo_messaging._drivers.amqp", "amqp_opts", "oslo_messaging_rabbit"),
    ("oslo_messaging.rpc.client", "_client_opts", None),
    ("oslo_messaging.transport", "_transport_opts", None),
    ("oslo_messaging.rpc.dispatcher", "_dispatcher_opts", None),
    (
        "oslo_messaging.notify.notifier",
        "_notifier_opts",
        "oslo_messaging_notifications",
    ),
    (
        "oslo_messaging._metrics.client",
        "oslo_messaging_metrics",
        "oslo_messaging_metrics",
    ),
    (
        "oslo_messaging._tracing.client",
        "oslo_messaging_tracing",
        "oslo_messaging_tracing",
    ),
)


def _register_messaging_opts(conf: cfg.ConfigOpts) -> None:
    for module_name, attr, group in _MESSAGING_OPTS:
        try:
            opts = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError):
            continue  # another oslo.messaging release: it registers them
        conf.register_opts(opts, group=group)


def _modules() -> Iterator[ModuleType]:
    for name in GROUP_MODULES:
        yield importlib.import_module(f"{__name__}.{name}")


def core_opts() -> list[tuple[str, list[cfg.Opt]]]:
    """Return the options keel-heat-core defines itself.

    :returns: ``(group name, options)`` pairs; a group may appear twice
    """
    pairs: list[tuple[str, list[cfg.Opt]]] = []
    for module in _modules():
        pairs.extend(module.list_opts())
    return pairs


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register every option keel-heat-core reads on ``conf``.

    That is the core groups, oslo.log's options, oslo.messaging's (with
    Heat's control exchange as default), oslo.db's ``[database]`` and the
    keystoneauth options of ``[trustee]``. Calling it twice is harmless.

    :param conf: the configuration to register into
    """
    for group, opts in core_opts():
        conf.register_opts(opts, group=None if group == "DEFAULT" else group)
    if "debug" not in conf:
        logging.register_options(conf)
    levels = logging.get_default_log_levels()
    if QUIET_LOGGERS[0] not in levels:
        logging.set_defaults(default_log_levels=[*levels, *QUIET_LOGGERS])
    oslo_messaging.set_transport_defaults(control_exchange=CONTROL_EXCHANGE)
    _register_messaging_opts(conf)
    database.register(conf)
    trustee.register(conf)
    identity.register_opts(conf)
    diagnostics.register(conf)


def library_option(conf: cfg.ConfigOpts, group: str, name: str) -> Any:
    """An option another library registers when it is used, or None.

    keystonemiddleware registers ``[keystone_authtoken]`` in the API
    process only; keystoneauth registers the options of the ``[trustee]``
    plugin once its ``auth_type`` is loaded. Code that may run before or
    without them reads them here; keel-heat's own options are read as
    ``conf.<group>.<name>``.
    """
    try:
        return conf[group][name]
    except (cfg.NoSuchOptError, cfg.NoSuchGroupError, KeyError):
        return None
